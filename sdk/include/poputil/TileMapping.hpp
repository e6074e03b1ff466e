// poputil::mapTensorLinearly: spread a tensor's elements evenly over the
// tiles.
//
// The rule is PopLibs': regions of a grain (by default the target's vector
// width for the type) with at least a minimum number of elements per tile
// (by default 128 bytes' worth); the library applies it.
#ifndef PRS_POPUTIL_TILEMAPPING_HPP
#define PRS_POPUTIL_TILEMAPPING_HPP

#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>

namespace poputil {

/// The library's default grain and minimum for the tensor's type.
inline void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t) {
  poplar::detail::check(prs_graph_map_linearly(graph.handle(), t.handle(), 0, 0));
}

inline void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile,
                              unsigned grainSize) {
  // 0 asks the library for its default, so explicit zeros become 1.
  unsigned minimum = minElementsPerTile == 0 ? 1 : minElementsPerTile;
  unsigned grain = grainSize == 0 ? 1 : grainSize;
  poplar::detail::check(prs_graph_map_linearly(graph.handle(), t.handle(), minimum, grain));
}

} // namespace poputil

#endif

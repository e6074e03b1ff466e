// popops::zero: set every element of a tensor to zero.
#ifndef PRS_POPOPS_ZERO_HPP
#define PRS_POPOPS_ZERO_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/Fill.hpp>

namespace popops {

inline void zero(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debugContext = {}) {
  fill(graph, t, prog, 0, debugContext);
}

} // namespace popops

#endif

// popops::fill: set every element of a tensor to a value.
#ifndef PRS_POPOPS_FILL_HPP
#define PRS_POPOPS_FILL_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/TypeTraits.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>

#include <type_traits>

namespace popops {

/// Appends to `prog` a step that sets every element of `t` to `fillValue`.
template <typename FillValueType>
typename std::enable_if<poplar::TypeTraits::isSimpleType<FillValueType>()>::type
fill(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &prog, FillValueType fillValue,
     const poplar::DebugContext &debugContext = {}) {
  (void)debugContext;
  poplar::detail::check(prs_op_fill(graph.handle(), prog.handle(), t.handle(), static_cast<double>(fillValue)));
}

} // namespace popops

#endif

// popops::cast: a tensor's values converted to another element type.
#ifndef PRS_POPOPS_CAST_HPP
#define PRS_POPOPS_CAST_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>

namespace popops {

inline poplar::Tensor cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Type &dstType,
                           poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}) {
  return map(graph, expr::Cast(expr::_1, dstType), {src}, prog, debugContext);
}

/// `src` converted into the existing tensor `dst` (of the target type).
inline void castWithOutput(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
                           poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}) {
  mapWithOutput(graph, expr::Cast(expr::_1, dst.elementType()), {src}, dst, prog, debugContext);
}

} // namespace popops

#endif

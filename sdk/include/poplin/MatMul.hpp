// poplin::matMul: matrix products of rank-2 tensors.
//
// One prs_op_matmul call each; the library plans the product. Options and
// planning caches are accepted and ignored.
#ifndef PRS_POPLIN_MATMUL_HPP
#define PRS_POPLIN_MATMUL_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <poputil/TileMapping.hpp>

#include <cstddef>
#include <vector>

namespace poplin {

/// Plans shared between calls; nothing to keep here.
class PlanningCache {
public:
  PlanningCache() {}
};

namespace matmul {
using PlanningCache = poplin::PlanningCache;
}

/// A x B with elements of `outputType`.
inline poplar::Tensor matMul(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             poplar::program::Sequence &prog, const poplar::Type &outputType,
                             const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr) {
  (void)options;
  (void)cache;
  prs_tensor *out = nullptr;
  poplar::detail::check(prs_op_matmul(graph.handle(), prog.handle(), A.handle(), B.handle(), outputType.abiTag(),
                                      debugContext.getPathName().c_str(), &out));
  return poplar::Tensor(out);
}

/// A x B with A's element type.
inline poplar::Tensor matMul(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr) {
  return matMul(graph, A, B, prog, A.elementType(), debugContext, options, cache);
}

/// A x B written to `out`.
inline void matMulWithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             poplar::Tensor &out, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr) {
  poplar::Tensor product = matMul(graph, A, B, prog, out.elementType(), debugContext, options, cache);
  prog.add(poplar::program::Copy(product, out));
}

/// C += k * (A x B).
inline void matMulAcc(poplar::Graph &graph, const poplar::Tensor &C, float k, const poplar::Tensor &A,
                      const poplar::Tensor &B, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                      PlanningCache *cache = nullptr) {
  poplar::Tensor product = matMul(graph, A, B, prog, C.elementType(), debugContext, options, cache);
  popops::expr::Cast scale(popops::expr::Const(k), C.elementType());
  popops::mapInPlace(graph, popops::expr::_1 + scale * popops::expr::_2, {C, product}, prog, debugContext);
}

/// A variable for the left operand of a product of these shapes, mapped
/// across the tiles.
inline poplar::Tensor createMatMulInputLHS(poplar::Graph &graph, const poplar::Type &inputType,
                                           const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                                           const std::vector<std::size_t> &bShape,
                                           const poplar::DebugContext &debugContext,
                                           const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr) {
  (void)outputType;
  (void)bShape;
  (void)options;
  (void)cache;
  poplar::Tensor t = graph.addVariable(inputType, aShape, debugContext);
  poputil::mapTensorLinearly(graph, t);
  return t;
}
inline poplar::Tensor createMatMulInputLHS(poplar::Graph &graph, const poplar::Type &dataType,
                                           const std::vector<std::size_t> &aShape,
                                           const std::vector<std::size_t> &bShape,
                                           const poplar::DebugContext &debugContext,
                                           const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr) {
  return createMatMulInputLHS(graph, dataType, dataType, aShape, bShape, debugContext, options, cache);
}

/// A variable for the right operand, mapped across the tiles.
inline poplar::Tensor createMatMulInputRHS(poplar::Graph &graph, const poplar::Type &inputType,
                                           const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                                           const std::vector<std::size_t> &bShape,
                                           const poplar::DebugContext &debugContext,
                                           const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr) {
  (void)outputType;
  (void)aShape;
  (void)options;
  (void)cache;
  poplar::Tensor t = graph.addVariable(inputType, bShape, debugContext);
  poputil::mapTensorLinearly(graph, t);
  return t;
}
inline poplar::Tensor createMatMulInputRHS(poplar::Graph &graph, const poplar::Type &dataType,
                                           const std::vector<std::size_t> &aShape,
                                           const std::vector<std::size_t> &bShape,
                                           const poplar::DebugContext &debugContext,
                                           const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr) {
  return createMatMulInputRHS(graph, dataType, dataType, aShape, bShape, debugContext, options, cache);
}

} // namespace poplin

#endif

// popnn::calcLoss and calcAccuracy for classifiers: per-sample loss,
// gradients and the count of correct predictions.
//
// Built from element-wise maps and reductions. With `modelOutputs` of shape
// {batch, classes} and integer labels `expected` of shape {batch}:
//   mask[b][c]   = (c == expected[b])
//   deltas       = modelOutputs - mask
//   loss[b]      = sum_c 0.5 (modelOutputs - mask)^2        SUM_SQUARED_LOSS
//                = -log(modelOutputs[b][expected[b]])        CROSS_ENTROPY_LOSS
//   numCorrect   = #b with modelOutputs[b][expected[b]] equal to the row's
//                  maximum (a tie for the maximum counts as correct).
// Not implemented: the overloads with deltasScale and modelOutputScaling,
// and masked labels (MASKED_LABEL_CODE).
#ifndef PRS_POPNN_LOSS_HPP
#define PRS_POPNN_LOSS_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplar/exceptions.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/Reduce.hpp>
#include <poputil/exceptions.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace popnn {

enum LossType { SUM_SQUARED_LOSS, CROSS_ENTROPY_LOSS };

namespace detail {

inline void checkShapes(const poplar::Tensor &modelOutputs, const poplar::Tensor &expected) {
  if (modelOutputs.rank() != 2 || expected.rank() != 1 || expected.dim(0) != modelOutputs.dim(0))
    throw poputil::poplibs_error("popnn::calcLoss: modelOutputs must be {batch, classes} and expected {batch}");
}

/// A BOOL tensor {batch, classes}: whether the class is the sample's label.
inline poplar::Tensor labelMask(poplar::Graph &graph, const poplar::Tensor &expected, std::size_t classes,
                                poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  std::vector<unsigned> ids(classes);
  for (std::size_t c = 0; c < classes; ++c)
    ids[c] = static_cast<unsigned>(c);
  poplar::Tensor classIds =
      graph.addConstant<unsigned>(expected.elementType(), {classes}, ids, poplar::DebugContext("class ids"));
  graph.setTileMapping(classIds, 0);
  std::size_t batch = expected.dim(0);
  poplar::Tensor rows = classIds.expand({0}).broadcast(static_cast<unsigned>(batch), 0);
  poplar::Tensor labels = expected.expand({1}).broadcast(static_cast<unsigned>(classes), 1);
  return popops::map(graph, popops::expr::Equal(popops::expr::_1, popops::expr::_2), {labels, rows}, prog,
                     debugContext);
}

inline void addAccuracy(poplar::Graph &graph, const poplar::Tensor &modelOutputs, const poplar::Tensor &mask,
                        const poplar::Tensor &numCorrect, poplar::program::Sequence &prog,
                        const poplar::DebugContext &debugContext) {
  namespace expr = popops::expr;
  poplar::Type et = modelOutputs.elementType();
  poplar::Tensor rowMax = popops::reduce(graph, modelOutputs, {1}, popops::ReduceParams(popops::Operation::MAX),
                                         prog, debugContext);
  poplar::Tensor atLabel =
      popops::map(graph, expr::Select(expr::_1, expr::Cast(expr::Const(0), et), expr::_2), {modelOutputs, mask},
                  prog, debugContext);
  poplar::Tensor labelValue = popops::reduce(graph, atLabel, {1}, popops::ReduceParams(popops::Operation::ADD),
                                             prog, debugContext);
  poplar::Tensor correct =
      popops::map(graph, expr::Cast(expr::Equal(expr::_1, expr::_2), numCorrect.elementType()),
                  {labelValue, rowMax}, prog, debugContext);
  if (numCorrect.numElements() != 1)
    throw poputil::poplibs_error("popnn: numCorrect must have one element");
  popops::reduceWithOutput(graph, correct, numCorrect.reshape({}), {0},
                           popops::ReduceParams(popops::Operation::ADD), prog, debugContext);
}

inline poplar::program::Program loss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                     const poplar::Tensor &expected, const poplar::Tensor &loss,
                                     const poplar::Tensor &deltas, const poplar::Tensor *numCorrect,
                                     LossType lossType, const poplar::DebugContext &debugContext) {
  namespace expr = popops::expr;
  checkShapes(modelOutputs, expected);
  poplar::program::Sequence prog;
  poplar::Type et = modelOutputs.elementType();
  poplar::Tensor mask = labelMask(graph, expected, modelOutputs.dim(1), prog, debugContext);
  popops::mapWithOutput(graph, expr::_1 - expr::Cast(expr::_2, et), {modelOutputs, mask}, deltas, prog,
                        debugContext);
  expr::Any perClass = expr::Mul(expr::Cast(expr::Const(0.5f), et),
                                 expr::Square(expr::Sub(expr::_1, expr::Cast(expr::_2, et))));
  if (lossType == CROSS_ENTROPY_LOSS)
    perClass = expr::Select(expr::Neg(expr::Log(expr::_1)), expr::Cast(expr::Const(0.0f), et), expr::_2);
  poplar::Tensor terms = popops::map(graph, perClass, {modelOutputs, mask}, prog, debugContext);
  popops::reduceWithOutput(graph, terms, loss, {1}, popops::ReduceParams(popops::Operation::ADD), prog,
                           debugContext);
  if (numCorrect != nullptr)
    addAccuracy(graph, modelOutputs, mask, *numCorrect, prog, debugContext);
  return prog;
}

[[noreturn]] inline void scaledLossNotImplemented() {
  throw poplar::poplar_error("popnn::calcLoss with deltasScale and modelOutputScaling is not implemented "
                             "(see docs/host-api.md)");
}

} // namespace detail

inline poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                         const poplar::Tensor &expected, const poplar::Tensor &loss,
                                         const poplar::Tensor &deltas, LossType lossType,
                                         const poplar::DebugContext &debugContext = {}) {
  return detail::loss(graph, modelOutputs, expected, loss, deltas, nullptr, lossType, debugContext);
}

inline poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                         const poplar::Tensor &expected, const poplar::Tensor &loss,
                                         const poplar::Tensor &deltas, const poplar::Tensor &numCorrect,
                                         LossType lossType, const poplar::DebugContext &debugContext = {}) {
  return detail::loss(graph, modelOutputs, expected, loss, deltas, &numCorrect, lossType, debugContext);
}

/// With deltasScale and modelOutputScaling: not implemented, throws.
inline poplar::program::Program calcLoss(poplar::Graph &, const poplar::Tensor &, const poplar::Tensor &,
                                         const poplar::Tensor &, const poplar::Tensor &, const poplar::Tensor &,
                                         const poplar::Tensor &, LossType, const poplar::DebugContext & = {}) {
  detail::scaledLossNotImplemented();
}

/// With deltasScale and modelOutputScaling: not implemented, throws.
inline poplar::program::Program calcLoss(poplar::Graph &, const poplar::Tensor &, const poplar::Tensor &,
                                         const poplar::Tensor &, const poplar::Tensor &, const poplar::Tensor &,
                                         const poplar::Tensor &, const poplar::Tensor &, LossType,
                                         const poplar::DebugContext & = {}) {
  detail::scaledLossNotImplemented();
}

/// The number of samples whose label has the highest output.
inline poplar::program::Program calcAccuracy(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                             const poplar::Tensor &expected, const poplar::Tensor &numCorrect,
                                             const poplar::DebugContext &debugContext = {}) {
  detail::checkShapes(modelOutputs, expected);
  poplar::program::Sequence prog;
  poplar::Tensor mask = detail::labelMask(graph, expected, modelOutputs.dim(1), prog, debugContext);
  detail::addAccuracy(graph, modelOutputs, mask, numCorrect, prog, debugContext);
  return prog;
}

} // namespace popnn

#endif

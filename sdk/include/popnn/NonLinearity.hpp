// popnn::nonLinearity: activation functions applied element by element (or
// along the innermost dimension, for softmax).
//
// ReLU, sigmoid, tanh, GELU (both forms) and the softmaxes are the library's
// (prs_op_nonlinearity); hard sigmoid and swish are element-wise maps.
// SOFTMAX_SCALED computes the stable softmax unscaled and reports a scaling
// of 1.
#ifndef PRS_POPNN_NONLINEARITY_HPP
#define PRS_POPNN_NONLINEARITY_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>
#include <popnn/NonLinearityDef.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>

namespace popnn {

namespace detail {

/// The library's code for a non-linearity, or -1 for one built from a map.
inline int32_t nonLinearityCode(NonLinearityType type) {
  switch (type) {
  case NonLinearityType::RELU:
    return 0;
  case NonLinearityType::SIGMOID:
    return 1;
  case NonLinearityType::TANH:
    return 2;
  case NonLinearityType::SOFTMAX:
    return 3;
  case NonLinearityType::SOFTMAX_STABLE:
  case NonLinearityType::SOFTMAX_SCALED:
    return 4;
  case NonLinearityType::GELU:
    return 5;
  case NonLinearityType::HARD_SIGMOID:
  case NonLinearityType::SWISH:
    return -1;
  case NonLinearityType::GELU_ERF:
    return 6;
  default:
    throw poplar::poplar_error("popnn: unknown NonLinearityType");
  }
}

/// HARD_SIGMOID: max(0, min(1, 0.2 x + 0.5)); SWISH: x sigmoid(x).
inline poplar::Tensor mappedNonLinearity(poplar::Graph &graph, NonLinearityType type, const poplar::Tensor &t,
                                         bool inPlace, poplar::program::Sequence &prog,
                                         const poplar::DebugContext &debugContext) {
  namespace expr = popops::expr;
  poplar::Type et = t.elementType();
  expr::Any e = expr::Mul(expr::_1, expr::Sigmoid(expr::_1));
  if (type == NonLinearityType::HARD_SIGMOID) {
    expr::Add line(expr::Mul(expr::Cast(expr::Const(0.2f), et), expr::_1), expr::Cast(expr::Const(0.5f), et));
    e = expr::Clamp(line, expr::Cast(expr::Const(0.0f), et), expr::Cast(expr::Const(1.0f), et));
  }
  if (inPlace) {
    popops::mapInPlace(graph, e, {t}, prog, debugContext);
    return t;
  }
  return popops::map(graph, e, {t}, prog, debugContext);
}

inline poplar::Tensor runNonLinearity(poplar::Graph &graph, NonLinearityType type, const poplar::Tensor &t,
                                      bool inPlace, poplar::program::Sequence &prog,
                                      const poplar::DebugContext &debugContext) {
  int32_t code = nonLinearityCode(type);
  if (code < 0)
    return mappedNonLinearity(graph, type, t, inPlace, prog, debugContext);
  prs_tensor *out = nullptr;
  poplar::detail::check(prs_op_nonlinearity(graph.handle(), prog.handle(), code, t.handle(), inPlace ? 1 : 0,
                                            debugContext.getPathName().c_str(), &out));
  if (out != nullptr)
    return poplar::Tensor(out);
  return t;
}

} // namespace detail

inline poplar::Tensor nonLinearity(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}) {
  return detail::runNonLinearity(graph, nonLinearityType, t, false, prog, debugContext);
}

/// As above; `nonLinearityScaling` receives the factor the output was
/// scaled by (always 1 here).
inline poplar::Tensor nonLinearity(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                                   float &nonLinearityScaling, poplar::program::Sequence &prog,
                                   const poplar::DebugContext &debugContext = {}) {
  nonLinearityScaling = 1.0f;
  return nonLinearity(graph, nonLinearityType, t, prog, debugContext);
}

inline void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                                poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}) {
  detail::runNonLinearity(graph, nonLinearityType, t, true, prog, debugContext);
}

inline void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                                float &nonLinearityScaling, poplar::program::Sequence &prog,
                                const poplar::DebugContext &debugContext = {}) {
  nonLinearityScaling = 1.0f;
  nonLinearityInPlace(graph, nonLinearityType, t, prog, debugContext);
}

// One function per non-linearity, with and without the scaling output.
#define PRS_NON_LINEARITY(name, Type)                                                                             \
  inline poplar::Tensor name(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,             \
                             const poplar::DebugContext &debugContext = {}) {                                     \
    return nonLinearity(graph, NonLinearityType::Type, t, prog, debugContext);                                    \
  }                                                                                                               \
  inline poplar::Tensor name(poplar::Graph &graph, poplar::Tensor t, float &nonLinearityScaling,                  \
                             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}) {    \
    return nonLinearity(graph, NonLinearityType::Type, t, nonLinearityScaling, prog, debugContext);               \
  }                                                                                                               \
  inline void name##InPlace(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,              \
                            const poplar::DebugContext &debugContext = {}) {                                      \
    nonLinearityInPlace(graph, NonLinearityType::Type, t, prog, debugContext);                                    \
  }                                                                                                               \
  inline void name##InPlace(poplar::Graph &graph, poplar::Tensor t, float &nonLinearityScaling,                   \
                            poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}) {     \
    nonLinearityInPlace(graph, NonLinearityType::Type, t, nonLinearityScaling, prog, debugContext);               \
  }

PRS_NON_LINEARITY(sigmoid, SIGMOID)
PRS_NON_LINEARITY(relu, RELU)
PRS_NON_LINEARITY(tanh, TANH)
PRS_NON_LINEARITY(gelu, GELU)
PRS_NON_LINEARITY(geluErf, GELU_ERF)
PRS_NON_LINEARITY(swish, SWISH)
PRS_NON_LINEARITY(softmax, SOFTMAX)
PRS_NON_LINEARITY(softmaxStable, SOFTMAX_STABLE)
PRS_NON_LINEARITY(scaledSoftmaxStable, SOFTMAX_SCALED)

#undef PRS_NON_LINEARITY

} // namespace popnn

#endif

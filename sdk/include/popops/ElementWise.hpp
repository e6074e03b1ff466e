// Element-wise operations: popops::map over an expression, and the named
// operations (add, exp, select, ...) as maps of one operator.
//
// Every function here appends to `prog` through one prs_op_map call: the
// expression is flattened in postfix order and the library expands it into
// compute sets. The InPlace forms write the first input; the WithOutput
// forms compute into a new tensor and copy it to `out`. A scalar operand
// becomes a constant of the tensor operand's element type.
#ifndef PRS_POPOPS_ELEMENTWISE_HPP
#define PRS_POPOPS_ELEMENTWISE_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>
#include <popops/Expr.hpp>
#include <popops/ExprOp.hpp>

#include <type_traits>
#include <vector>

namespace popops {

namespace detail {

inline poplar::Tensor runMap(poplar::Graph &graph, const expr::Expr &e, const std::vector<poplar::Tensor> &ts,
                             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                             bool inPlace) {
  std::vector<prs_expr_node> nodes;
  e.appendNodes(nodes);
  std::vector<const prs_tensor *> inputs;
  for (const poplar::Tensor &t : ts)
    inputs.push_back(t.handle());
  prs_tensor *out = nullptr;
  poplar::detail::check(prs_op_map(graph.handle(), prog.handle(), nodes.data(), nodes.size(), inputs.data(),
                                   inputs.size(), inPlace ? 1 : 0, debugContext.getPathName().c_str(), &out));
  return out != nullptr ? poplar::Tensor(out) : poplar::Tensor();
}

/// A scalar as a constant of `type`.
template <typename T> expr::Cast scalar(T value, const poplar::Type &type) {
  return expr::Cast(expr::Const(value), type);
}

} // namespace detail

/// A new tensor: the expression evaluated element by element over `ts`
/// (placeholder _i is ts[i - 1]).
inline poplar::Tensor map(poplar::Graph &graph, const expr::Expr &expr, const std::vector<poplar::Tensor> &ts,
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {}) {
  (void)options;
  return detail::runMap(graph, expr, ts, prog, debugContext, false);
}

inline poplar::Tensor map(poplar::Graph &graph, expr::UnaryOpType op, const poplar::Tensor &t,
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {}) {
  return map(graph, expr::UnaryOp(op, expr::_1), {t}, prog, debugContext, options);
}

inline poplar::Tensor map(poplar::Graph &graph, expr::BinaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  return map(graph, expr::BinaryOp(op, expr::_1, expr::_2), {a, b}, prog, debugContext, options);
}

inline poplar::Tensor map(poplar::Graph &graph, expr::TernaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, const poplar::Tensor &c, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  return map(graph, expr::TernaryOp(op, expr::_1, expr::_2, expr::_3), {a, b, c}, prog, debugContext, options);
}

/// The expression's value written over the first tensor of `ts`.
inline void mapInPlace(poplar::Graph &graph, const expr::Expr &expr, const std::vector<poplar::Tensor> &ts,
                       poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                       const poplar::OptionFlags &options = {}) {
  (void)options;
  detail::runMap(graph, expr, ts, prog, debugContext, true);
}

inline void mapInPlace(poplar::Graph &graph, expr::UnaryOpType op, const poplar::Tensor &t,
                       poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                       const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::UnaryOp(op, expr::_1), {t}, prog, debugContext, options);
}

inline void mapInPlace(poplar::Graph &graph, expr::BinaryOpType op, const poplar::Tensor &a,
                       const poplar::Tensor &b, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::BinaryOp(op, expr::_1, expr::_2), {a, b}, prog, debugContext, options);
}

inline void mapInPlace(poplar::Graph &graph, expr::TernaryOpType op, const poplar::Tensor &a,
                       const poplar::Tensor &b, const poplar::Tensor &c, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::TernaryOp(op, expr::_1, expr::_2, expr::_3), {a, b, c}, prog, debugContext, options);
}

/// The expression's value written to `out`.
inline void mapWithOutput(poplar::Graph &graph, const expr::Expr &expr, const std::vector<poplar::Tensor> &ts,
                          const poplar::Tensor &out, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  poplar::Tensor result = map(graph, expr, ts, prog, debugContext, options);
  prog.add(poplar::program::Copy(result, out));
}

// ---- named unary operations -------------------------------------------------

#define PRS_UNARY_OPERATION(name, Op)                                                                             \
  inline poplar::Tensor name(poplar::Graph &graph, const poplar::Tensor &A, poplar::program::Sequence &prog,      \
                             const poplar::DebugContext &debugContext = {},                                       \
                             const poplar::OptionFlags &options = {}) {                                           \
    return map(graph, expr::UnaryOpType::Op, A, prog, debugContext, options);                                     \
  }                                                                                                               \
  inline void name##InPlace(poplar::Graph &graph, const poplar::Tensor &A, poplar::program::Sequence &prog,       \
                            const poplar::DebugContext &debugContext = {},                                        \
                            const poplar::OptionFlags &options = {}) {                                            \
    mapInPlace(graph, expr::UnaryOpType::Op, A, prog, debugContext, options);                                     \
  }                                                                                                               \
  inline void name##WithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &out,          \
                               poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},    \
                               const poplar::OptionFlags &options = {}) {                                         \
    mapWithOutput(graph, expr::UnaryOp(expr::UnaryOpType::Op, expr::_1), {A}, out, prog, debugContext, options);  \
  }

PRS_UNARY_OPERATION(abs, ABSOLUTE)
PRS_UNARY_OPERATION(asin, ASIN)
PRS_UNARY_OPERATION(bitwiseNot, BITWISE_NOT)
PRS_UNARY_OPERATION(cbrt, CBRT)
PRS_UNARY_OPERATION(ceil, CEIL)
PRS_UNARY_OPERATION(cos, COS)
PRS_UNARY_OPERATION(countLeadingZeros, COUNT_LEADING_ZEROS)
PRS_UNARY_OPERATION(erf, ERF)
PRS_UNARY_OPERATION(exp, EXPONENT)
PRS_UNARY_OPERATION(exp2, EXPONENT2)
PRS_UNARY_OPERATION(expm1, EXPONENT_MINUS_ONE)
PRS_UNARY_OPERATION(floor, FLOOR)
PRS_UNARY_OPERATION(geluErf, GELU_ERF)
PRS_UNARY_OPERATION(inv, INVERSE)
PRS_UNARY_OPERATION(log, LOGARITHM)
PRS_UNARY_OPERATION(log1p, LOGARITHM_ONE_PLUS)
PRS_UNARY_OPERATION(logicalNot, LOGICAL_NOT)
PRS_UNARY_OPERATION(nearbyint, NEARBY_INT)
PRS_UNARY_OPERATION(neg, NEGATE)
PRS_UNARY_OPERATION(popcount, POPCOUNT)
PRS_UNARY_OPERATION(round, ROUND)
PRS_UNARY_OPERATION(rsqrt, RSQRT)
PRS_UNARY_OPERATION(sigmoid, SIGMOID)
PRS_UNARY_OPERATION(signum, SIGNUM)
PRS_UNARY_OPERATION(sin, SIN)
PRS_UNARY_OPERATION(sqrt, SQRT)
PRS_UNARY_OPERATION(square, SQUARE)
PRS_UNARY_OPERATION(tan, TAN)
PRS_UNARY_OPERATION(tanh, TANH)

#undef PRS_UNARY_OPERATION

/// Whether each element of `A` is neither infinite nor NaN (a BOOL tensor;
/// no InPlace form, as in PopLibs).
inline poplar::Tensor isFinite(poplar::Graph &graph, const poplar::Tensor &A, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {}) {
  return map(graph, expr::UnaryOpType::IS_FINITE, A, prog, debugContext, options);
}
inline void isFiniteWithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &out,
                               poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::UnaryOp(expr::UnaryOpType::IS_FINITE, expr::_1), {A}, out, prog, debugContext,
                options);
}

// ---- named binary operations -------------------------------------------------

#define PRS_BINARY_OPERATION(name, Op)                                                                            \
  inline poplar::Tensor name(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,              \
                             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},      \
                             const poplar::OptionFlags &options = {}) {                                           \
    return map(graph, expr::BinaryOpType::Op, A, B, prog, debugContext, options);                                 \
  }                                                                                                               \
  template <typename constType>                                                                                   \
  inline typename std::enable_if<std::is_arithmetic<constType>::value, poplar::Tensor>::type name(                \
      poplar::Graph &graph, const poplar::Tensor &A, const constType B, poplar::program::Sequence &prog,          \
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {                   \
    return map(graph, expr::BinaryOp(expr::BinaryOpType::Op, expr::_1, detail::scalar(B, A.elementType())), {A},  \
               prog, debugContext, options);                                                                      \
  }                                                                                                               \
  template <typename constType>                                                                                   \
  inline typename std::enable_if<std::is_arithmetic<constType>::value, poplar::Tensor>::type name(                \
      poplar::Graph &graph, const constType A, const poplar::Tensor &B, poplar::program::Sequence &prog,          \
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {                   \
    return map(graph, expr::BinaryOp(expr::BinaryOpType::Op, detail::scalar(A, B.elementType()), expr::_1), {B},  \
               prog, debugContext, options);                                                                      \
  }                                                                                                               \
  inline void name##InPlace(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,               \
                            poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},       \
                            const poplar::OptionFlags &options = {}) {                                            \
    mapInPlace(graph, expr::BinaryOpType::Op, A, B, prog, debugContext, options);                                 \
  }                                                                                                               \
  template <typename constType>                                                                                   \
  inline typename std::enable_if<std::is_arithmetic<constType>::value>::type name##InPlace(                       \
      poplar::Graph &graph, const poplar::Tensor &A, const constType B, poplar::program::Sequence &prog,          \
      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {                   \
    mapInPlace(graph, expr::BinaryOp(expr::BinaryOpType::Op, expr::_1, detail::scalar(B, A.elementType())), {A},  \
               prog, debugContext, options);                                                                      \
  }                                                                                                               \
  inline void name##WithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,            \
                               const poplar::Tensor &out, poplar::program::Sequence &prog,                        \
                               const poplar::DebugContext &debugContext = {},                                     \
                               const poplar::OptionFlags &options = {}) {                                         \
    mapWithOutput(graph, expr::BinaryOp(expr::BinaryOpType::Op, expr::_1, expr::_2), {A, B}, out, prog,           \
                  debugContext, options);                                                                         \
  }

PRS_BINARY_OPERATION(add, ADD)
PRS_BINARY_OPERATION(sub, SUBTRACT)
PRS_BINARY_OPERATION(mul, MULTIPLY)
PRS_BINARY_OPERATION(div, DIVIDE)
PRS_BINARY_OPERATION(pow, POWER)
PRS_BINARY_OPERATION(rem, REMAINDER)
PRS_BINARY_OPERATION(max, MAXIMUM)
PRS_BINARY_OPERATION(min, MINIMUM)
PRS_BINARY_OPERATION(eq, EQUAL)
PRS_BINARY_OPERATION(neq, NOT_EQUAL)
PRS_BINARY_OPERATION(gt, GREATER_THAN)
PRS_BINARY_OPERATION(gteq, GREATER_THAN_EQUAL)
PRS_BINARY_OPERATION(lt, LESS_THAN)
PRS_BINARY_OPERATION(lteq, LESS_THAN_EQUAL)
PRS_BINARY_OPERATION(logicalAnd, LOGICAL_AND)
PRS_BINARY_OPERATION(logicalOr, LOGICAL_OR)
PRS_BINARY_OPERATION(atan2, ATAN2)
PRS_BINARY_OPERATION(bitwiseAnd, BITWISE_AND)
PRS_BINARY_OPERATION(bitwiseOr, BITWISE_OR)
PRS_BINARY_OPERATION(bitwiseXor, BITWISE_XOR)
PRS_BINARY_OPERATION(bitwiseXnor, BITWISE_XNOR)
PRS_BINARY_OPERATION(shiftLeft, SHIFT_LEFT)
PRS_BINARY_OPERATION(shiftRight, SHIFT_RIGHT)
PRS_BINARY_OPERATION(shiftRightSignExtend, SHIFT_RIGHT_SIGN_EXTEND)
PRS_BINARY_OPERATION(varianceToInvStdDev, VARIANCE_TO_INV_STD_DEV)
PRS_BINARY_OPERATION(invStdDevToVariance, INV_STD_DEV_TO_VARIANCE)

#undef PRS_BINARY_OPERATION

// ---- variance conversions with an output type ------------------------------------
//
// PopLibs' older forms take the result's element type instead of options:
// `varianceToInvStdDev` gives HALF unless asked (HALF or the input's type),
// `invStdDevToVariance` FLOAT (FLOAT or the input's type). The function is
// computed in float and rounded once to the result's type.

namespace detail {
inline poplar::Tensor varianceConversion(poplar::Graph &graph, expr::BinaryOpType op, const char *name,
                                         const poplar::Tensor &src, const expr::Expr &epsilon,
                                         std::vector<poplar::Tensor> inputs, poplar::program::Sequence &prog,
                                         const poplar::Type &allowed, const poplar::Type &dstType,
                                         const poplar::DebugContext &debugContext) {
  if (dstType != allowed && dstType != src.elementType()) {
    throw poplar::poplar_error(std::string("popops::") + name + ": the output type " + dstType.toString() +
                               " must be " + allowed.toString() + " or the input's type " +
                               src.elementType().toString());
  }
  return map(graph, expr::Cast(expr::BinaryOp(op, expr::_1, epsilon), dstType), inputs, prog, debugContext);
}
} // namespace detail

inline poplar::Tensor varianceToInvStdDev(poplar::Graph &graph, const poplar::Tensor &src,
                                          const poplar::Tensor &epsilon, poplar::program::Sequence &prog,
                                          const poplar::Type dstType = poplar::HALF,
                                          const poplar::DebugContext &debugContext = {}) {
  return detail::varianceConversion(graph, expr::BinaryOpType::VARIANCE_TO_INV_STD_DEV, "varianceToInvStdDev", src,
                                    expr::_2, {src, epsilon}, prog, poplar::HALF, dstType, debugContext);
}
inline poplar::Tensor varianceToInvStdDev(poplar::Graph &graph, const poplar::Tensor &src, const float epsilon,
                                          poplar::program::Sequence &prog, const poplar::Type dstType = poplar::HALF,
                                          const poplar::DebugContext &debugContext = {}) {
  return detail::varianceConversion(graph, expr::BinaryOpType::VARIANCE_TO_INV_STD_DEV, "varianceToInvStdDev", src,
                                    detail::scalar(epsilon, src.elementType()), {src}, prog, poplar::HALF, dstType,
                                    debugContext);
}
inline poplar::Tensor invStdDevToVariance(poplar::Graph &graph, const poplar::Tensor &src,
                                          const poplar::Tensor &epsilon, poplar::program::Sequence &prog,
                                          const poplar::Type dstType = poplar::FLOAT,
                                          const poplar::DebugContext &debugContext = {}) {
  return detail::varianceConversion(graph, expr::BinaryOpType::INV_STD_DEV_TO_VARIANCE, "invStdDevToVariance", src,
                                    expr::_2, {src, epsilon}, prog, poplar::FLOAT, dstType, debugContext);
}
inline poplar::Tensor invStdDevToVariance(poplar::Graph &graph, const poplar::Tensor &src, const float epsilon,
                                          poplar::program::Sequence &prog, const poplar::Type dstType = poplar::FLOAT,
                                          const poplar::DebugContext &debugContext = {}) {
  return detail::varianceConversion(graph, expr::BinaryOpType::INV_STD_DEV_TO_VARIANCE, "invStdDevToVariance", src,
                                    detail::scalar(epsilon, src.elementType()), {src}, prog, poplar::FLOAT, dstType,
                                    debugContext);
}

// ---- ternary operations -----------------------------------------------------------

/// `conditions ? A : B` element by element.
inline poplar::Tensor select(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             const poplar::Tensor &conditions, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  return map(graph, expr::TernaryOpType::SELECT, A, B, conditions, prog, debugContext, options);
}
inline void selectInPlace(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                          const poplar::Tensor &conditions, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::TernaryOpType::SELECT, A, B, conditions, prog, debugContext, options);
}

/// `values` limited to [minimums, maximums] element by element.
inline poplar::Tensor clamp(poplar::Graph &graph, const poplar::Tensor &values, const poplar::Tensor &minimums,
                            const poplar::Tensor &maximums, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  return map(graph, expr::TernaryOpType::CLAMP, values, minimums, maximums, prog, debugContext, options);
}
inline void clampInPlace(poplar::Graph &graph, const poplar::Tensor &values, const poplar::Tensor &minimums,
                         const poplar::Tensor &maximums, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::TernaryOpType::CLAMP, values, minimums, maximums, prog, debugContext, options);
}

} // namespace popops

#endif

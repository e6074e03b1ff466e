// popops::scaledAddTo and scaledSubtractFrom: A updated in place with a
// scaled B (and optionally a scaled A).
//
// Each is one in-place element-wise map. Scales are numbers or one-element
// tensors; they are converted to A's element type.
#ifndef PRS_POPOPS_SCALEDADD_HPP
#define PRS_POPOPS_SCALEDADD_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/detail/ScalarOperand.hpp>

namespace popops {

/// DEFAULT: A = scaleA * A + scaleB * B; X_MINUS_AX_PLUS_BY: A = A - scaleA * A + scaleB * B.
enum class ScaledAddSpecialisation { DEFAULT, X_MINUS_AX_PLUS_BY };

namespace detail {

/// A scale as an expression of A's type: a number, or map's input `index`
/// (a one-element tensor broadcast to A's shape).
inline expr::Cast scaleNumber(float scale, const poplar::Tensor &A) { return scalar(scale, A.elementType()); }
inline expr::Cast scaleInput(unsigned index, const poplar::Tensor &A) {
  return expr::Cast(expr::PlaceHolder(index), A.elementType());
}

/// The new value of A (map input _1) from B (input _2) and the scales.
inline expr::BinaryOp combine(ScaledAddSpecialisation speciality, const expr::Expr &scaleA, const expr::Expr &scaleB,
                              bool subtract) {
  expr::Mul scaledB(scaleB, expr::_2);
  if (speciality == ScaledAddSpecialisation::X_MINUS_AX_PLUS_BY)
    return expr::Add(expr::Sub(expr::_1, expr::Mul(scaleA, expr::_1)), scaledB);
  if (subtract)
    return expr::Sub(expr::Mul(scaleA, expr::_1), scaledB);
  return expr::Add(expr::Mul(scaleA, expr::_1), scaledB);
}

} // namespace detail

/// A += scaleB * B.
inline void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, float scaleB,
                        poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {}) {
  (void)options;
  mapInPlace(graph, expr::_1 + detail::scaleNumber(scaleB, A) * expr::_2, {A, B}, prog, debugContext);
}

inline void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, poplar::Tensor scaleB,
                        poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {}) {
  (void)options;
  poplar::Tensor s = detail::broadcastScalar(scaleB, A.shape(), "popops::scaledAddTo");
  mapInPlace(graph, expr::_1 + detail::scaleInput(3, A) * expr::_2, {A, B, s}, prog, debugContext);
}

/// A -= scaleB * B.
inline void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, float scaleB,
                               poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {}) {
  (void)options;
  mapInPlace(graph, expr::_1 - detail::scaleNumber(scaleB, A) * expr::_2, {A, B}, prog, debugContext);
}

inline void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, poplar::Tensor scaleB,
                               poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {}) {
  (void)options;
  poplar::Tensor s = detail::broadcastScalar(scaleB, A.shape(), "popops::scaledSubtractFrom");
  mapInPlace(graph, expr::_1 - detail::scaleInput(3, A) * expr::_2, {A, B, s}, prog, debugContext);
}

/// A = scaleA * A + scaleB * B (or as `speciality` says).
inline void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA, poplar::Tensor B,
                        poplar::Tensor scaleB, poplar::program::Sequence &prog,
                        const ScaledAddSpecialisation speciality, const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {}) {
  (void)options;
  poplar::Tensor sa = detail::broadcastScalar(scaleA, A.shape(), "popops::scaledAddTo");
  poplar::Tensor sb = detail::broadcastScalar(scaleB, A.shape(), "popops::scaledAddTo");
  expr::BinaryOp update = detail::combine(speciality, detail::scaleInput(3, A), detail::scaleInput(4, A), false);
  mapInPlace(graph, update, {A, B, sa, sb}, prog, debugContext);
}

inline void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA, poplar::Tensor B,
                        poplar::Tensor scaleB, poplar::program::Sequence &prog,
                        const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  scaledAddTo(graph, A, scaleA, B, scaleB, prog, ScaledAddSpecialisation::DEFAULT, debugContext, options);
}

inline void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B, float scaleB,
                        poplar::program::Sequence &prog, const ScaledAddSpecialisation speciality,
                        const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  (void)options;
  expr::BinaryOp update =
      detail::combine(speciality, detail::scaleNumber(scaleA, A), detail::scaleNumber(scaleB, A), false);
  mapInPlace(graph, update, {A, B}, prog, debugContext);
}

inline void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B, float scaleB,
                        poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {}) {
  scaledAddTo(graph, A, scaleA, B, scaleB, prog, ScaledAddSpecialisation::DEFAULT, debugContext, options);
}

/// A = scaleA * A - scaleB * B.
inline void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA, poplar::Tensor B,
                               poplar::Tensor scaleB, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {}) {
  (void)options;
  poplar::Tensor sa = detail::broadcastScalar(scaleA, A.shape(), "popops::scaledSubtractFrom");
  poplar::Tensor sb = detail::broadcastScalar(scaleB, A.shape(), "popops::scaledSubtractFrom");
  expr::BinaryOp update =
      detail::combine(ScaledAddSpecialisation::DEFAULT, detail::scaleInput(3, A), detail::scaleInput(4, A), true);
  mapInPlace(graph, update, {A, B, sa, sb}, prog, debugContext);
}

inline void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B,
                               float scaleB, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {}) {
  (void)options;
  expr::BinaryOp update = detail::combine(ScaledAddSpecialisation::DEFAULT, detail::scaleNumber(scaleA, A),
                                          detail::scaleNumber(scaleB, A), true);
  mapInPlace(graph, update, {A, B}, prog, debugContext);
}

} // namespace popops

#endif

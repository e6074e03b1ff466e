// poprand: tensors of random numbers with the shape and tile mapping of a
// reference tensor, and dropout. PopLibs' functions and signatures.
//
// Each call is one prs_op_random (setSeed: prs_op_set_seed). The values are
// generated on the tiles by a counter-based generator (SplitMix64, see
// docs/pir-ops.md "Random numbers"): value i of a call depends only on the
// seed tensor's two words, seedModifier and i, so it is the same on the sim
// and cpu devices, for any thread count and any tile mapping. With
// seed == nullptr the graph's generator state is used: the seed setSeed
// last gave (zero before), with a modifier that setSeed sets and each such
// call advances by one, so successive calls (also in a loop) differ.
// The values are not those of an IPU's hardware generator.
#ifndef PRS_POPRAND_RANDOMGEN_HPP
#define PRS_POPRAND_RANDOMGEN_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <poputil/exceptions.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace poprand {

namespace detail {

enum Distribution { UNIFORM = 0, NORMAL = 1, BERNOULLI = 2, TRUNCATED_NORMAL = 3, LOG_UNIFORM = 4, DROPOUT = 5 };

/// Bad arguments are poputil::poplibs_error, as in PopLibs; other failures
/// keep their Poplar exception.
inline void check(int status) {
  if (status == PRS_POPLAR_ERROR) {
    const char *text = prs_last_error();
    throw poputil::poplibs_error(text != nullptr ? text : "poprand");
  }
  poplar::detail::check(status);
}

inline poplar::Tensor random(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                             const poplar::Tensor &reference, const poplar::Tensor *input, int32_t outType,
                             Distribution dist, double a, double b, double c, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext) {
  prs_tensor *out = nullptr;
  check(prs_op_random(graph.handle(), prog.handle(), dist, seed != nullptr ? seed->handle() : nullptr,
                      seedModifier, reference.handle(), input != nullptr ? input->handle() : nullptr, outType, a, b,
                      c, debugContext.getPathName().c_str(), &out));
  return poplar::Tensor(out);
}

} // namespace detail

/// `input` kept with probability keepProbability and multiplied by scale,
/// else zero; a new tensor laid out like `reference` (same shape as input).
inline poplar::Tensor dropout(poplar::Graph &graph, const poplar::Tensor *seed, const uint32_t seedModifier,
                              const poplar::Tensor &input, const poplar::Tensor &reference, double keepProbability,
                              double scale, poplar::program::Sequence &prog,
                              const poplar::DebugContext &debugContext = {}) {
  return detail::random(graph, seed, seedModifier, reference, &input, -1, detail::DROPOUT, keepProbability, scale,
                        0.0, prog, debugContext);
}

/// As above; with outputClonesRef false the output is laid out like `input`.
inline poplar::Tensor dropout(poplar::Graph &graph, const poplar::Tensor *seed, const uint32_t seedModifier,
                              const poplar::Tensor &input, const poplar::Tensor &reference, double keepProbability,
                              double scale, bool outputClonesRef, poplar::program::Sequence &prog,
                              const poplar::DebugContext &debugContext = {}) {
  // The mask is the reference's either way; only the layout differs.
  if (!outputClonesRef && input.shape() != reference.shape())
    throw poputil::poplibs_error("poprand::dropout: the input and reference shapes differ");
  return detail::random(graph, seed, seedModifier, outputClonesRef ? reference : input, &input, -1,
                        detail::DROPOUT, keepProbability, scale, 0.0, prog, debugContext);
}

/// Dropout of whole rows, columns or dimensions: a mask of `reference`'s
/// shape (broadcastable to input's: each of its dimensions equal to
/// input's or 1, the same rank), kept with probability keepProbability,
/// is broadcast over `input`; kept elements are multiplied by scale.
inline poplar::Tensor shapedDropout(poplar::Graph &graph, const poplar::Tensor *seed, const uint32_t seedModifier,
                                    const poplar::Tensor &input, const poplar::Tensor &reference,
                                    double keepProbability, double scale, poplar::program::Sequence &prog,
                                    const poplar::DebugContext &debugContext = {}) {
  prs_tensor *out = nullptr;
  detail::check(prs_op_shaped_dropout(graph.handle(), prog.handle(), seed != nullptr ? seed->handle() : nullptr,
                                      seedModifier, input.handle(), reference.handle(), keepProbability, scale,
                                      debugContext.getPathName().c_str(), &out));
  return poplar::Tensor(out);
}

/// Uniform in [minVal, maxVal] (float, half, int).
inline poplar::Tensor uniform(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                              const poplar::Tensor &reference, const poplar::Type &outType, double minVal,
                              double maxVal, poplar::program::Sequence &prog,
                              const poplar::DebugContext &debugContext = {}) {
  return detail::random(graph, seed, seedModifier, reference, nullptr, outType.abiTag(), detail::UNIFORM, minVal,
                        maxVal, 0.0, prog, debugContext);
}

/// base to the power of a value uniform in [log(minVal), log(maxVal)],
/// kept inside [minVal, maxVal] (float, half, int; minVal at least 1).
inline poplar::Tensor logUniform(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                                 const poplar::Tensor &reference, const poplar::Type &outType, double minVal,
                                 double maxVal, poplar::program::Sequence &prog, double base = M_E,
                                 const poplar::DebugContext &debugContext = {}) {
  return detail::random(graph, seed, seedModifier, reference, nullptr, outType.abiTag(), detail::LOG_UNIFORM,
                        minVal, maxVal, base, prog, debugContext);
}

/// 1 with probability `prob`, else 0 (float, half, int).
inline poplar::Tensor bernoulli(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                                const poplar::Tensor &reference, const poplar::Type &outType, double prob,
                                poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}) {
  return detail::random(graph, seed, seedModifier, reference, nullptr, outType.abiTag(), detail::BERNOULLI, prob,
                        0.0, 0.0, prog, debugContext);
}

/// Normal with the given mean and standard deviation (float, half).
inline poplar::Tensor normal(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                             const poplar::Tensor &reference, const poplar::Type &outType, double mean,
                             double stdDev, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {}) {
  return detail::random(graph, seed, seedModifier, reference, nullptr, outType.abiTag(), detail::NORMAL, mean,
                        stdDev, 0.0, prog, debugContext);
}

/// Normal truncated to mean ± alpha * stdDev (float, half).
inline poplar::Tensor truncatedNormal(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                                      const poplar::Tensor &reference, const poplar::Type &outType, double mean,
                                      double stdDev, double alpha, poplar::program::Sequence &prog,
                                      const poplar::DebugContext &debugContext = {}) {
  return detail::random(graph, seed, seedModifier, reference, nullptr, outType.abiTag(), detail::TRUNCATED_NORMAL,
                        mean, stdDev, alpha, prog, debugContext);
}

/// Seeds the calls without a seed tensor that follow: they draw as if given
/// masterSeed (two unsigned ints) and modifiers seedModifier,
/// seedModifier + 1, ... in turn.
inline void setSeed(poplar::Graph &graph, const poplar::Tensor &masterSeed, uint32_t seedModifier,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}) {
  detail::check(prs_op_set_seed(graph.handle(), prog.handle(), masterSeed.handle(), seedModifier,
                                debugContext.getPathName().c_str()));
}

} // namespace poprand

#endif

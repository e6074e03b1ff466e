// poprand: tensors of random numbers with the shape and tile mapping of a
// reference tensor.
//
// Each call is one prs_op_random. The generator is seeded with
// `seedModifier` only: seed tensors (`seed` non-null) are not implemented
// and throw. Results are deterministic for a given modifier but do not match
// an IPU's bit for bit.
#ifndef PRS_POPRAND_RANDOMGEN_HPP
#define PRS_POPRAND_RANDOMGEN_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>

#include <cstdint>

namespace poprand {

namespace detail {

enum Distribution { UNIFORM = 0, NORMAL = 1, BERNOULLI = 2 };

inline poplar::Tensor random(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                             const poplar::Tensor &reference, const poplar::Type &outType, Distribution dist,
                             double a, double b, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext) {
  if (seed != nullptr)
    throw poplar::poplar_error("poprand: seed tensors are not implemented (see docs/host-api.md); "
                               "pass nullptr and choose the stream with seedModifier");
  prs_tensor *out = nullptr;
  poplar::detail::check(prs_op_random(graph.handle(), prog.handle(), dist, reference.handle(), outType.abiTag(), a,
                                      b, 0, seedModifier, debugContext.getPathName().c_str(), &out));
  return poplar::Tensor(out);
}

} // namespace detail

/// Uniform in [minVal, maxVal) (for integer types, [minVal, maxVal]).
inline poplar::Tensor uniform(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                              const poplar::Tensor &reference, const poplar::Type &outType, double minVal,
                              double maxVal, poplar::program::Sequence &prog,
                              const poplar::DebugContext &debugContext = {}) {
  return detail::random(graph, seed, seedModifier, reference, outType, detail::UNIFORM, minVal, maxVal, prog,
                        debugContext);
}

/// Normal with the given mean and standard deviation.
inline poplar::Tensor normal(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                             const poplar::Tensor &reference, const poplar::Type &outType, double mean,
                             double stdDev, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {}) {
  return detail::random(graph, seed, seedModifier, reference, outType, detail::NORMAL, mean, stdDev, prog,
                        debugContext);
}

/// 1 with probability `prob`, else 0.
inline poplar::Tensor bernoulli(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                                const poplar::Tensor &reference, const poplar::Type &outType, double prob,
                                poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}) {
  return detail::random(graph, seed, seedModifier, reference, outType, detail::BERNOULLI, prob, 0.0, prog,
                        debugContext);
}

} // namespace poprand

#endif

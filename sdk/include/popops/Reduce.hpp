// popops::reduce and reduceWithOutput: combine a tensor's elements along
// some dimensions.
//
// Each reduction is one prs_op_reduce call, appended to a Sequence or, in
// the forms taking `std::vector<ComputeSet> &`, made into a compute set the
// caller executes. A constant scale and `update` (add to the output) are the
// library's; a tensor scale is applied with an element-wise map afterwards
// (Sequence forms only).
#ifndef PRS_POPOPS_REDUCE_HPP
#define PRS_POPOPS_REDUCE_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/Operation.hpp>
#include <popops/detail/ScalarOperand.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace popops {

struct ReduceParams {
  ReduceParams() = default;
  ReduceParams(Operation operation, bool updateOutput = false)
      : op(operation), update(updateOutput), useScale(false) {}
  /// The result multiplied by a one-element tensor.
  ReduceParams(Operation operation, bool updateOutput, poplar::Tensor scaleTensor)
      : op(operation), update(updateOutput), useScale(true), scale(std::move(scaleTensor)) {}
  ReduceParams(Operation operation, float constantScale, bool updateOutput = false) = delete;

  Operation op = Operation::ADD;
  /// Add the result to the output instead of overwriting it.
  bool update = false;
  bool useScale = false;
  poplar::Tensor scale;
};

namespace detail {

inline int32_t reduceCode(Operation op) {
  switch (op) {
  case Operation::ADD:
    return PRS_R_ADD;
  case Operation::MUL:
    return PRS_R_MUL;
  case Operation::MIN:
    return PRS_R_MIN;
  case Operation::MAX:
    return PRS_R_MAX;
  case Operation::LOGICAL_AND:
    return PRS_R_AND;
  case Operation::LOGICAL_OR:
    return PRS_R_OR;
  case Operation::SQUARE_ADD:
    return PRS_R_SQUARE_ADD;
  default:
    throw poplar::poplar_error("popops::reduce: Operation::LOG_ADD is not implemented (see docs/host-api.md)");
  }
}

/// One reduction: into a new tensor (`out` null) or into *out. With `seq`
/// null it becomes a compute set, whose id goes to *cs.
inline poplar::Tensor runReduce(poplar::Graph &graph, prs_program *seq, const poplar::Tensor &in,
                                const poplar::Tensor *out, const std::vector<std::size_t> &dims, Operation op,
                                const poplar::Type &outType, bool update, const poplar::DebugContext &debugContext,
                                uint32_t *cs) {
  prs_tensor *result = nullptr;
  uint32_t csId = 0;
  poplar::detail::check(prs_op_reduce(graph.handle(), seq, in.handle(), out != nullptr ? out->handle() : nullptr,
                                      dims.data(), dims.size(), reduceCode(op), outType.abiTag(), 1.0f,
                                      update ? 1 : 0, debugContext.getPathName().c_str(), &csId, &result));
  if (cs != nullptr)
    *cs = csId;
  return result != nullptr ? poplar::Tensor(result) : poplar::Tensor();
}

[[noreturn]] inline void tensorScaleInComputeSets() {
  throw poplar::poplar_error("popops::reduce into compute sets with a tensor scale is not implemented "
                             "(see docs/host-api.md); use the Sequence form");
}

} // namespace detail

inline poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Type &outType,
                             const std::vector<std::size_t> &dims, ReduceParams params,
                             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {}) {
  (void)options;
  poplar::Tensor r =
      detail::runReduce(graph, prog.handle(), in, nullptr, dims, params.op, outType, false, debugContext, nullptr);
  if (!params.useScale)
    return r;
  poplar::Tensor s = detail::broadcastScalar(params.scale, r.shape(), "popops::reduce");
  return map(graph, expr::_1 * expr::Cast(expr::_2, r.elementType()), {r, s}, prog, debugContext);
}

inline poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const std::vector<std::size_t> &dims,
                             ReduceParams params, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  return reduce(graph, in, in.elementType(), dims, params, prog, debugContext, options);
}

inline void reduceWithOutput(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &out,
                             const std::vector<std::size_t> &dims, ReduceParams params,
                             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {}) {
  (void)options;
  if (!params.useScale) {
    detail::runReduce(graph, prog.handle(), in, &out, dims, params.op, out.elementType(), params.update,
                      debugContext, nullptr);
    return;
  }
  poplar::Tensor r = detail::runReduce(graph, prog.handle(), in, nullptr, dims, params.op, out.elementType(), false,
                                       debugContext, nullptr);
  poplar::Tensor s = detail::broadcastScalar(params.scale, r.shape(), "popops::reduceWithOutput");
  poplar::Type type = out.elementType();
  if (params.update)
    mapInPlace(graph, expr::_1 + expr::_2 * expr::Cast(expr::_3, type), {out, r, s}, prog, debugContext);
  else
    mapWithOutput(graph, expr::_1 * expr::Cast(expr::_2, type), {r, s}, out, prog, debugContext);
}

inline poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Type &outType,
                             const std::vector<std::size_t> &dims, ReduceParams params,
                             std::vector<poplar::ComputeSet> &css, const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {}) {
  (void)options;
  if (params.useScale)
    detail::tensorScaleInComputeSets();
  uint32_t cs = 0;
  poplar::Tensor r =
      detail::runReduce(graph, nullptr, in, nullptr, dims, params.op, outType, false, debugContext, &cs);
  css.push_back(poplar::ComputeSet(graph.handle(), cs));
  return r;
}

inline poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const std::vector<std::size_t> &dims,
                             ReduceParams params, std::vector<poplar::ComputeSet> &css,
                             const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  return reduce(graph, in, in.elementType(), dims, params, css, debugContext, options);
}

inline void reduceWithOutput(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &out,
                             const std::vector<std::size_t> &dims, ReduceParams params,
                             std::vector<poplar::ComputeSet> &css, const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {}) {
  (void)options;
  if (params.useScale)
    detail::tensorScaleInComputeSets();
  uint32_t cs = 0;
  detail::runReduce(graph, nullptr, in, &out, dims, params.op, out.elementType(), params.update, debugContext, &cs);
  css.push_back(poplar::ComputeSet(graph.handle(), cs));
}

/// One reduction of a reduceMany batch.
struct SingleReduceOp {
  poplar::Tensor in;
  std::vector<std::size_t> dims;
  ReduceParams params;
  bool useOutType;
  poplar::Type outType;
  std::string debugName;

  SingleReduceOp(poplar::Tensor input, std::vector<std::size_t> reduceDims, ReduceParams reduceParams,
                 poplar::Type resultType, std::string name = "")
      : in(std::move(input)), dims(std::move(reduceDims)), params(std::move(reduceParams)), useOutType(true),
        outType(resultType), debugName(std::move(name)) {}
  SingleReduceOp(poplar::Tensor input, std::vector<std::size_t> reduceDims, ReduceParams reduceParams,
                 std::string name = "")
      : in(std::move(input)), dims(std::move(reduceDims)), params(std::move(reduceParams)), useOutType(false),
        outType(poplar::BOOL), debugName(std::move(name)) {}
};

/// The reductions one after another; `outputs` receives their results (or,
/// when it already holds one tensor per reduction, they are written there).
inline void reduceMany(poplar::Graph &graph, const std::vector<SingleReduceOp> &reductions,
                       std::vector<poplar::Tensor> &outputs, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  bool intoGiven = !outputs.empty();
  if (intoGiven && outputs.size() != reductions.size())
    throw poplar::poplar_error("popops::reduceMany: " + std::to_string(outputs.size()) + " outputs for " +
                               std::to_string(reductions.size()) + " reductions");
  for (std::size_t i = 0; i < reductions.size(); ++i) {
    const SingleReduceOp &r = reductions[i];
    poplar::DebugContext name(poplar::DebugNameAndId(debugContext.getPathName()), r.debugName);
    if (intoGiven) {
      reduceWithOutput(graph, r.in, outputs[i], r.dims, r.params, prog, name, options);
    } else {
      poplar::Type type = r.useOutType ? r.outType : r.in.elementType();
      outputs.push_back(reduce(graph, r.in, type, r.dims, r.params, prog, name, options));
    }
  }
}

} // namespace popops

#endif

// gcl: cross-replica collectives of a replicated graph.
//
// Each call appends one collective to `prog` (prs_op_collective); the
// reduction order is fixed (group order, left to right: docs/scale-out.md).
// Options are accepted and ignored.
#ifndef PRS_GCL_COLLECTIVES_HPP
#define PRS_GCL_COLLECTIVES_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>

#include <cstdint>
#include <vector>

namespace gcl {

/// How a reducing collective combines the replicas' elements.
enum class CollectiveOperator { ADD, MEAN, MUL, MIN, MAX, LOGICAL_AND, LOGICAL_OR, SQUARE_ADD, LOCAL };

/// Which replicas a collective combines.
enum class CommGroupType { ALL, CONSECUTIVE, ORTHOGONAL };

class CommGroup {
public:
  CommGroup() : type_(CommGroupType::ALL), size_(0) {}
  CommGroup(CommGroupType type, unsigned replicaGroupSize) : type_(type), size_(replicaGroupSize) {}
  CommGroupType type() const { return type_; }
  unsigned replicaGroupSize() const { return size_; }

private:
  CommGroupType type_;
  unsigned size_;
};

namespace detail {

inline poplar::Tensor collective(poplar::Graph &graph, int kind, const poplar::Tensor &data, CollectiveOperator op,
                                 poplar::program::Sequence &prog, const CommGroup &group, unsigned root,
                                 const poplar::DebugContext &debugContext) {
  if (op == CollectiveOperator::LOCAL)
    throw poplar::poplar_error("gcl: CollectiveOperator::LOCAL is not supported");
  prs_tensor *out = nullptr;
  poplar::detail::check(prs_op_collective(graph.handle(), prog.handle(), kind, data.handle(), static_cast<int32_t>(op),
                                          static_cast<int32_t>(group.type()), group.replicaGroupSize(), root,
                                          debugContext.getPathName().c_str(), &out));
  return poplar::Tensor(out);
}

} // namespace detail

/// Every replica of the group gets the reduction of all members' `data`.
inline poplar::Tensor allReduceCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, CollectiveOperator op,
                                            poplar::program::Sequence &prog, const CommGroup &group,
                                            const poplar::DebugContext &debugContext = {},
                                            const poplar::OptionFlags &options = {}) {
  (void)options;
  return detail::collective(graph, 0, data, op, prog, group, 0, debugContext);
}

inline poplar::Tensor allReduceCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, CollectiveOperator op,
                                            poplar::program::Sequence &prog,
                                            const poplar::DebugContext &debugContext = {},
                                            const poplar::OptionFlags &options = {}) {
  return allReduceCrossReplica(graph, data, op, prog, CommGroup(), debugContext, options);
}

/// The all-reduce written back over `data`.
inline void allReduceInPlaceCrossReplica(poplar::Graph &graph, poplar::Tensor &data, CollectiveOperator op,
                                         poplar::program::Sequence &prog, const CommGroup &group = CommGroup(),
                                         const poplar::DebugContext &debugContext = {},
                                         const poplar::OptionFlags &options = {}) {
  poplar::Tensor result = allReduceCrossReplica(graph, data, op, prog, group, debugContext, options);
  prog.add(poplar::program::Copy(result, data));
}

/// The all-reduce written to `destination`.
inline void allReduceToDestinationCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                               poplar::Tensor &destination, CollectiveOperator op,
                                               poplar::program::Sequence &prog, const CommGroup &group = CommGroup(),
                                               const poplar::DebugContext &debugContext = {},
                                               const poplar::OptionFlags &options = {}) {
  poplar::Tensor result = allReduceCrossReplica(graph, data, op, prog, group, debugContext, options);
  prog.add(poplar::program::Copy(result, destination));
}

/// Member i of the group gets part i of the reduction of the flattened
/// `data` (split into group-size parts, the last padded with zeros).
inline poplar::Tensor reduceScatterCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                                CollectiveOperator op, poplar::program::Sequence &prog,
                                                const CommGroup &group = CommGroup(),
                                                const poplar::DebugContext &debugContext = {},
                                                const poplar::OptionFlags &options = {}) {
  (void)options;
  return detail::collective(graph, 1, data, op, prog, group, 0, debugContext);
}

/// All members' `data`, stacked in group order (a new outer dimension).
inline poplar::Tensor allGatherCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                            poplar::program::Sequence &prog, const CommGroup &group = CommGroup(),
                                            const poplar::DebugContext &debugContext = {},
                                            const poplar::OptionFlags &options = {}) {
  (void)options;
  return detail::collective(graph, 2, data, CollectiveOperator::ADD, prog, group, 0, debugContext);
}

/// Slice j of member i's `data` becomes slice i of member j's.
inline poplar::Tensor allToAllCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                           poplar::program::Sequence &prog, const CommGroup &group = CommGroup(),
                                           const poplar::DebugContext &debugContext = {},
                                           const poplar::OptionFlags &options = {}) {
  (void)options;
  return detail::collective(graph, 3, data, CollectiveOperator::ADD, prog, group, 0, debugContext);
}

/// Every member gets the `data` of group member `rootReplica`.
inline poplar::Tensor broadcastCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                            poplar::program::Sequence &prog, const CommGroup &group = CommGroup(),
                                            unsigned rootReplica = 0, const poplar::DebugContext &debugContext = {},
                                            const poplar::OptionFlags &options = {}) {
  (void)options;
  return detail::collective(graph, 4, data, CollectiveOperator::ADD, prog, group, rootReplica, debugContext);
}

} // namespace gcl

#endif

// popops::allTrue: whether every element of a boolean tensor is true.
#ifndef PRS_POPOPS_ALLTRUE_HPP
#define PRS_POPOPS_ALLTRUE_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <popops/Reduce.hpp>

namespace popops {

/// A scalar BOOL tensor: the logical AND of A's elements.
inline poplar::Tensor allTrue(poplar::Graph &graph, poplar::Tensor A, poplar::program::Sequence &prog,
                              const poplar::DebugContext &debugContext = {}) {
  return reduce(graph, A.flatten(), poplar::BOOL, {0}, ReduceParams(Operation::LOGICAL_AND), prog, debugContext);
}

} // namespace popops

#endif

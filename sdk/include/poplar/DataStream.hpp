// Host <-> device streams and remote buffers, as the graph declares them.
//
// Copyable values naming a stream or buffer of a graph; program::Copy
// turns them into transfers, and an Engine binds host memory to them by
// handle.
#ifndef PRS_POPLAR_DATASTREAM_HPP
#define PRS_POPLAR_DATASTREAM_HPP

#include <poplar/GraphElements.hpp>
#include <poplar/Type.hpp>
#include <poplar/capi.h>

#include <cstddef>
#include <string>

namespace poplar {

/// How a host-to-device stream feeds the replicas of a replicated graph.
enum class ReplicatedStreamMode { REPLICATE, BROADCAST };

enum class DataStreamType { HostToDeviceFIFO, DeviceToHostFIFO };

class DataStream {
public:
  DataStream() : graph_(nullptr), index_(detail::kNoId), numElements_(0), type_(DataStreamType::HostToDeviceFIFO) {}
  /// Stream `index` of a graph (for the project's headers).
  DataStream(const prs_graph *graph, unsigned index, const std::string &handle, Type elementType,
             std::size_t numElements, DataStreamType type)
      : graph_(graph), index_(index), handle_(handle), elementType_(elementType), numElements_(numElements),
        type_(type) {}

  const std::string &handle() const { return handle_; }
  Type elementType() const { return elementType_; }
  std::size_t numElements() const { return numElements_; }
  DataStreamType type() const { return type_; }

  unsigned index() const { return index_; }
  const prs_graph *graphHandle() const { return detail::needGraph(graph_, "DataStream"); }

private:
  const prs_graph *graph_;
  unsigned index_;
  std::string handle_;
  Type elementType_;
  std::size_t numElements_;
  DataStreamType type_;
};

/// Memory outside the tiles: `repeats` slots of `numElements` elements.
class RemoteBuffer {
public:
  RemoteBuffer() : graph_(nullptr), index_(detail::kNoId), numElements_(0), repeats_(0) {}
  /// Remote buffer `index` of a graph (for the project's headers).
  RemoteBuffer(const prs_graph *graph, unsigned index, const std::string &handle, Type elementType,
               std::size_t numElements, std::size_t repeats)
      : graph_(graph), index_(index), handle_(handle), elementType_(elementType), numElements_(numElements),
        repeats_(repeats) {}

  const std::string &handle() const { return handle_; }
  Type elementType() const { return elementType_; }
  std::size_t numElements() const { return numElements_; }
  std::size_t getRepeats() const { return repeats_; }

  unsigned index() const { return index_; }
  const prs_graph *graphHandle() const { return detail::needGraph(graph_, "RemoteBuffer"); }

private:
  const prs_graph *graph_;
  unsigned index_;
  std::string handle_;
  Type elementType_;
  std::size_t numElements_;
  std::size_t repeats_;
};

} // namespace poplar

#endif

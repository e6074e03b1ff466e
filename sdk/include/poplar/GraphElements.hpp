// References to things a graph holds: compute sets, vertices, vertex
// fields and functions.
//
// Small copyable values: an id in their graph, plus the graph's C ABI
// handle, which stays put when the Graph object is moved. Programs built
// from them (Execute, Call) need no Graph argument.
#ifndef PRS_POPLAR_GRAPHELEMENTS_HPP
#define PRS_POPLAR_GRAPHELEMENTS_HPP

#include <poplar/StringRef.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>

#include <cstddef>
#include <string>
#include <utility>

namespace poplar {

namespace detail {
static constexpr unsigned kNoId = ~0u;

inline const prs_graph *needGraph(const prs_graph *g, const char *what) {
  if (g == nullptr)
    throw poplar_error(std::string("this ") + what + " does not refer to a graph (default-constructed)");
  return g;
}
} // namespace detail

class ComputeSet {
public:
  ComputeSet() : graph_(nullptr), id_(detail::kNoId) {}
  /// Compute set `id` of a graph (for the project's headers).
  ComputeSet(const prs_graph *graph, unsigned id) : graph_(graph), id_(id) {}

  unsigned getId() const { return id_; }
  const prs_graph *graphHandle() const { return detail::needGraph(graph_, "ComputeSet"); }

  bool operator==(const ComputeSet &other) const { return graph_ == other.graph_ && id_ == other.id_; }
  bool operator!=(const ComputeSet &other) const { return !(*this == other); }

private:
  const prs_graph *graph_;
  unsigned id_;
};

class FieldRef;

class VertexRef {
public:
  VertexRef() : graph_(nullptr), id_(detail::kNoId) {}
  /// Vertex `id` of a graph (for the project's headers).
  VertexRef(const prs_graph *graph, unsigned id) : graph_(graph), id_(id) {}

  /// A field of the vertex, by the name its codelet declares.
  FieldRef operator[](StringRef fieldName) const;

  unsigned getId() const { return id_; }
  const prs_graph *graphHandle() const { return detail::needGraph(graph_, "VertexRef"); }

  bool operator==(const VertexRef &other) const { return graph_ == other.graph_ && id_ == other.id_; }
  bool operator!=(const VertexRef &other) const { return !(*this == other); }

private:
  const prs_graph *graph_;
  unsigned id_;
};

class FieldRef {
public:
  FieldRef() {}
  FieldRef(const VertexRef &vertex, std::string name) : vertex_(vertex), name_(std::move(name)) {}

  /// Element `index` of a vector-list field (`Vector<Input<...>>`): the
  /// library receives the name as "field[index]".
  FieldRef operator[](std::size_t index) const {
    return FieldRef(vertex_, name_ + "[" + std::to_string(index) + "]");
  }

  const VertexRef &getVertex() const { return vertex_; }
  const std::string &name() const { return name_; }

private:
  VertexRef vertex_;
  std::string name_;
};

inline FieldRef VertexRef::operator[](StringRef fieldName) const {
  return FieldRef(*this, fieldName.cloneAsString());
}

/// A program added to the graph once and called from several places.
class Function {
public:
  Function() : graph_(nullptr), id_(detail::kNoId) {}
  /// Function `id` of a graph (for the project's headers).
  Function(const prs_graph *graph, unsigned id) : graph_(graph), id_(id) {}

  unsigned getId() const { return id_; }
  const prs_graph *graphHandle() const { return detail::needGraph(graph_, "Function"); }

private:
  const prs_graph *graph_;
  unsigned id_;
};

} // namespace poplar

#endif

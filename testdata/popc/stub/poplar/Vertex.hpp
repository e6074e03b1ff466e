// Stub Poplar vertex header for building codelets with g++ on the host
// (popc's differential tests and benchmarks). Edges wrap plain pointers.
#pragma once
#include <cstddef>
#include <cstdio>
#include <cmath>
// libstdc++'s <math.h> also brings std's float overloads into the global
// namespace, as the IPU's libc++ does: unqualified `exp(x)` on a float is
// `expf`, not `exp` in double.
#include <math.h>
#include <cstring>
#include <cassert>
#include <algorithm>
#include <limits>
#include <type_traits>
#include "HalfFloat.hpp"
#include "QuarterFloat.hpp"
// Code written for the IPU Model brings its own vector types (Poplar's
// host headers have none): the differential runner defines
// POPC_STUB_IPU_MODEL for a file whose definitions clash with these.
#ifndef POPC_STUB_IPU_MODEL
#include "VectorTypes.hpp"
#endif
// A clang built-in (the IPU's compiler is clang): a hint, never evaluated.
#ifndef __clang__
#define __builtin_assume(cond) ((void)0)
#endif

namespace poplar {
// Scoped, as in Poplar: codelets name `VectorLayout::ONE_PTR` (PopLibs also
// defines its own unqualified aliases, which an unscoped enum would clash with).
enum class VectorLayout { SPAN, ONE_PTR, SHORT_SPAN, COMPACT_PTR, SCALED_PTR32, SCALED_PTR64, SCALED_PTR128, DELTAN, DELTANELEMENTS, COMPACT_DELTAN };
template <typename T, VectorLayout L = VectorLayout::SPAN, unsigned A = 1, bool I = false> struct Vector {
  T *p = nullptr;
  unsigned n = 0;
  // A quarter edge's metadata byte (popc's state holds its address).
  const MetadataType *md = nullptr;
  const MetadataType *getMetadata() const { return md; }
  T &operator[](unsigned i) const { return p[i]; }
  unsigned size() const { return n; }
  T *begin() const { return p; }
  T *end() const { return p + n; }
  T *data() const { return p; }
  const Vector *operator->() const { return this; }
};
template <typename T> struct Edge {
  T *p = nullptr;
  const MetadataType *md = nullptr;
  const MetadataType *getMetadata() const { return md; }
  T &operator*() const { return *p; }
  T &operator[](unsigned i) const { return p[i]; }
  operator T &() const { return *p; }
  T *get() const { return p; }
  // Writing a value through a one-element edge (`outs[i] = x` of a
  // `Vector<Output<T>>`) writes the element.
  template <class U, class = typename std::enable_if<std::is_convertible<U, T>::value>::type>
  const Edge &operator=(const U &v) const { *p = v; return *this; }
};
template <typename T, VectorLayout L, unsigned A, bool I> struct Edge<Vector<T, L, A, I>> : Vector<T, L, A, I> {};
enum class VectorListLayout { DELTAN, DELTANELEMENTS, COMPACT_DELTAN };
template <typename T, VectorListLayout L = VectorListLayout::DELTAN, unsigned A = 1, bool I = false> struct VectorList {
  Vector<T> *p = nullptr;
  unsigned n = 0;
  const MetadataType *md = nullptr;
  const MetadataType *getMetadata() const { return md; }
  Vector<T> &operator[](unsigned i) const { return p[i]; }
  unsigned size() const { return n; }
};
template <typename T, VectorListLayout L, unsigned A, bool I> struct Edge<VectorList<T, L, A, I>> : VectorList<T, L, A, I> {};
template <typename T> using Input = Edge<T>;
template <typename T> using Output = Edge<T>;
template <typename T> using InOut = Edge<T>;
class Vertex {};
class MultiVertex { public: static constexpr unsigned numWorkers() { return 6; } };
class SupervisorVertex {};
template <bool B> using SupervisorVertexIf = typename std::conditional<B, SupervisorVertex, Vertex>::type;
} // namespace poplar
#define IS_EXTERNAL_CODELET(x) static const bool isExternalCodelet = (x)
// Worker vertex state alignment, as popc's built-in header has it.
#define WORKER_ALIGN alignas(8)

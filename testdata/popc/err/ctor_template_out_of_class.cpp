// A constructor template declared in its class and defined after it, as
// GLM's vectors are: refused at the declaration, naming the construct.
#include <poplar/Vertex.hpp>
template <typename T> struct Vec {
  T x;
  template <typename U> Vec(const Vec<U> &o);
};
template <typename T> template <typename U> Vec<T>::Vec(const Vec<U> &o) : x(static_cast<T>(o.x)) {}
class V : public poplar::Vertex {
public:
  poplar::Output<float> out;
  bool compute() { *out = 1; return true; }
};

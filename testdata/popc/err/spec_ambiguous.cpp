// Two partial specialisations match and neither is more specialised.
#include <poplar/Vertex.hpp>
using namespace poplar;
template <class A, class B> struct P : public Vertex {
  Output<int> out;
  void compute() { *out = 0; }
};
template <class T> struct P<T, int> : public Vertex {
  Output<int> out;
  void compute() { *out = 1; }
};
template <class T> struct P<int, T> : public Vertex {
  Output<int> out;
  void compute() { *out = 2; }
};
template class P<float, int>;
template class P<int, int>;

// `vector_size` counts bytes: 6 bytes of float is no whole element count.
#include <poplar/Vertex.hpp>
using namespace poplar;
template <typename T> class V : public Vertex {
public:
  Output<T> out;
  void compute() {
    typedef T odd __attribute__((vector_size(sizeof(T) + 2)));
    odd a = {};
    *out = a[0];
  }
};
template class V<float>;

// A class template's static_assert is checked when the template is
// instantiated, for that instantiation's arguments.
#include <poplar/Vertex.hpp>
using namespace poplar;

template <typename T, unsigned Width> class Pack : public Vertex {
public:
  static_assert(Width * sizeof(T) <= 8, "a pack fits in 64 bits");
  Input<Vector<T>> in;
  Output<Vector<T>> out;
  bool compute() {
    for (unsigned i = 0; i < out.size(); ++i) out[i] = in[i];
    return true;
  }
};

template class Pack<float, 2>;
template class Pack<float, 4>;

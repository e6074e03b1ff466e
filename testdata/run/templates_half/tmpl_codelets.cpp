// A class template instantiated for float, half and int.
#include <poplar/Vertex.hpp>
#include <poplar/HalfFloat.hpp>
using namespace poplar;

template <typename T> class Scale : public Vertex {
public:
  InOut<Vector<T>> data;
  T k;
  void compute() {
    for (unsigned i = 0; i < data.size(); ++i) {
      data[i] *= k;
    }
  }
};
template class Scale<float>;
template class Scale<half>;
template class Scale<int>;

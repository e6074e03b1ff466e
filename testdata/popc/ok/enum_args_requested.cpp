// Vertex names with enum template arguments requested from outside the
// enum's namespace: by the qualified enumerator, as Poplar spells them, and
// by the enumerator's value; both name the vertex by its enumerator. A
// default argument and the parameter's type are looked up where the
// template is declared.
#include <poplar/Vertex.hpp>
using namespace poplar;
namespace ops {
enum class Kind { DOUBLE, SQUARE };
constexpr Kind fallback = Kind::SQUARE;
template <typename T, Kind K = fallback> class Apply : public Vertex {
public:
  InOut<Vector<T>> data;
  void compute() {
    for (unsigned i = 0; i < data.size(); ++i)
      data[i] = K == Kind::DOUBLE ? data[i] + data[i] : data[i] * data[i];
  }
};
} // namespace ops

// INSTANTIATE ops::Apply<float, ops::Kind::DOUBLE>
// INSTANTIATE ops::Apply<int, 1>
// INSTANTIATE ops::Apply<unsigned>
// RUN ops::Apply<float,ops::Kind::DOUBLE>
//   data = [1.5, -2]
// RUN ops::Apply<int,ops::Kind::SQUARE>
//   data = [3, -4]
// RUN ops::Apply<unsigned int,ops::Kind::SQUARE>
//   data = [5]

// Codelets shared by the compiler's golden cases.
#include <poplar/Vertex.hpp>
using namespace poplar;

class SumVertex : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  bool compute() {
    *out = 0;
    for (const auto &v : in) {
      *out += v;
    }
    return true;
  }
};

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
template class Scale<int>;

class Cat : public Vertex {
public:
  Vector<Input<Vector<float>>> ins;
  Output<Vector<float, ONE_PTR>> out;
  void compute() {
    unsigned n = 0;
    for (unsigned j = 0; j < ins.size(); ++j) {
      for (unsigned i = 0; i < ins[j].size(); ++i) {
        out[n++] = ins[j][i];
      }
    }
  }
};

class Count : public Vertex {
public:
  InOut<int> n;
  unsigned step;
  void compute() { *n += step; }
};

// A sum of 300 terms is a left-deep tree 299 levels high: past the limit.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<int> in;
  Output<int> out;
  void compute() {
    int x = *in;
    *out =
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
      x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x;
  }
};

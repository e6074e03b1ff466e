// std::tie names one variable per element of the pair or tuple.
#include <poplar/Vertex.hpp>
#include <tuple>
using namespace poplar;
inline std::pair<int, int> two(int x) { return {x, x + 1}; }
class V : public Vertex {
public:
  Output<int> out;
  void compute() {
    int a, b, c;
    std::tie(a, b, c) = two(3);
    *out = a + b + c;
  }
};

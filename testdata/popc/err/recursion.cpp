#include <poplar/Vertex.hpp>
using namespace poplar;
int f(int n) { return n <= 0 ? 0 : 1 + f(n - 1); }
class V : public Vertex {
public:
  Output<int> out;
  bool compute() { *out = f(3); return true; }
};

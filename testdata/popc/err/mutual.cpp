#include <poplar/Vertex.hpp>
using namespace poplar;
int g(int n);
int f(int n) { return n <= 0 ? 0 : g(n - 1); }
int g(int n) { return f(n); }
class V : public Vertex {
public:
  Output<int> out;
  bool compute() { *out = f(3); return true; }
};

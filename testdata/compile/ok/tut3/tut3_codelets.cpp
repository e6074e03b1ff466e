// tut3_codelets.cpp, as in the Poplar tutorial 3.
#include <poplar/Vertex.hpp>
using namespace poplar;
class SumVertex : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  bool compute() { *out = 0; for (const auto &v : in) { *out += v; } return true; }
};

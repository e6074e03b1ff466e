// A constructor template whose parameter no argument gives: nothing to
// deduce it from, as in C++ (which has no syntax to name it either).
#include <poplar/Vertex.hpp>
struct Scaled {
  float v;
  template <typename T> explicit Scaled(int n) : v(static_cast<float>(T(n))) {}
};
class V : public poplar::Vertex {
public:
  poplar::Output<float> out;
  bool compute() {
    Scaled s(3);
    *out = s.v;
    return true;
  }
};

// Two constructors that fit the arguments equally well: ambiguous, as in
// C++ (an int converts to float and to double alike).
#include <poplar/Vertex.hpp>
struct Scale {
  float k;
  Scale(float f) : k(f) {}
  Scale(double d) : k(static_cast<float>(d) * 2) {}
};
class V : public poplar::Vertex {
public:
  poplar::Output<float> out;
  bool compute() {
    Scale s(3);
    *out = s.k;
    return true;
  }
};

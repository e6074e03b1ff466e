#include <poplar/Vertex.hpp>
using namespace poplar;
struct Shape {
  virtual float area() const { return 0.0f; }
};
struct Square : Shape {
  float side;
  float area() override { return side * side; }
};
class V : public Vertex {
public:
  Output<float> out;
  bool compute() {
    Square s;
    *out = s.area();
    return true;
  }
};

#include <poplar/Vertex.hpp>
using namespace poplar;
struct Shape {
  virtual float area() const = 0;
};
struct Square : Shape {
  float side;
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

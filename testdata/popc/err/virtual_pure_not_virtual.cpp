#include <poplar/Vertex.hpp>
using namespace poplar;
struct Shape {
  float area() const = 0;
};

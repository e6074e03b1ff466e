#include <poplar/Vertex.hpp>
using namespace poplar;
struct Shape {
  virtual static float unit() { return 1.0f; }
};

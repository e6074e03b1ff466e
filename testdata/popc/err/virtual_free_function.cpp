#include <poplar/Vertex.hpp>
using namespace poplar;
virtual float f() { return 1.0f; }

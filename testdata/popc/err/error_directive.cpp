#include <poplar/Vertex.hpp>
using namespace poplar;
#error custom failure

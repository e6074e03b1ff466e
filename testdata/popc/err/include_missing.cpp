#include <poplar/Vertex.hpp>
using namespace poplar;
#include "nope.hpp"

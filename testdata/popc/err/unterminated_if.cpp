#include <poplar/Vertex.hpp>
using namespace poplar;
#if 1
class V : public Vertex {};

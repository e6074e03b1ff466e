// A qualified type popc does not model is named in full.
#include <poplar/Vertex.hpp>
#include <poplar/IeeeHalf.hpp>
unsigned short bitsOf(float x) {
  poplar::IeeeHalf h(x);
  return h.bit16();
}

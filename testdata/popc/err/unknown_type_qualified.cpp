// A qualified type popc does not model (Poplar's 8-bit float) is named in full.
#include <poplar/Vertex.hpp>
#include <poplar/QuarterFloat.hpp>
float roundTrip(float x) {
  poplar::quarter q(x);
  return float(q);
}

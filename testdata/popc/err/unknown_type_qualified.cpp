// A qualified type popc does not know is named in full.
#include <poplar/Vertex.hpp>
#include <poplar/QuarterFloat.hpp>
float roundTrip(float x) {
  poplar::octave q(x);
  return float(q);
}

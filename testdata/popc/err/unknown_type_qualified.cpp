// A qualified type popc does not model (Poplar's host-side metadata class)
// is named in full.
#include <poplar/Vertex.hpp>
#include <poplar/QuarterFloat.hpp>
float roundTrip(float x) {
  poplar::QuarterMetadata md(x);
  return float(md.getScale());
}

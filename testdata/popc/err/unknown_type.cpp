// A declaration whose type popc does not know (here Poplar's 8-bit float
// metadata) is an error naming the type, not a confusing "expected ';'".
#include <poplar/Vertex.hpp>
#include <poplar/QuarterFloat.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<int> out;
  bool compute() {
    quarter_metadata meta;
    *out = 1;
    return true;
  }
};

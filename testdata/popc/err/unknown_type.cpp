// A declaration whose type popc does not know (here a Poplar host-side
// class no codelet header declares) is an error naming the type, not a
// confusing "expected ';'".
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<int> out;
  bool compute() {
    QuarterMetadata meta;
    *out = 1;
    return true;
  }
};

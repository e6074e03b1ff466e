// Indexes a four-element local array with a number from its state: 4 is
// one past the end, a trap (status 11) reported with the index.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Pick : public Vertex {
public:
  Output<float> out;
  unsigned index;
  bool compute() {
    float table[4] = {1.0f, 2.0f, 4.0f, 8.0f};
    *out = table[index];
    return true;
  }
};

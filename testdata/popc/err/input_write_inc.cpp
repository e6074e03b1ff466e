// ++ on a scalar Input edge.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<unsigned> n;
  void compute() { ++n; }
};

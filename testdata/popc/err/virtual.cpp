#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  virtual bool compute() { return true; }
};

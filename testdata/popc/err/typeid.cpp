#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  bool compute() { return typeid(int) == typeid(int); }
};

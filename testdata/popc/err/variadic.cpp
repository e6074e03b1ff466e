#include <poplar/Vertex.hpp>
using namespace poplar;
template <typename... Ts> class V : public Vertex {
public:
  bool compute() { return true; }
};

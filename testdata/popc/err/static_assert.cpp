#include <poplar/Vertex.hpp>
using namespace poplar;
template <typename T> class V : public Vertex {
public:
  bool compute() { static_assert(sizeof(T) == 4, "only 4-byte types"); return true; }
};
template class V<short>;

#include <poplar/Vertex.hpp>
using namespace poplar;
template <int N> struct Deep { static const int value = Deep<N + 1>::value; };
class V : public Vertex {
public:
  Output<int> out;
  bool compute() { *out = Deep<0>::value; return true; }
};

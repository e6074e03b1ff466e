// A static data member of a class template has one copy per instance;
// popc gives static storage only to plain vertex classes' members.
#include <poplar/Vertex.hpp>
using namespace poplar;
template <typename T> class Partials : public MultiVertex {
public:
  static T shared[6];
  Output<Vector<T>> out;
  void compute(unsigned wid) { out[wid] = shared[wid]; }
};
template <typename T> T Partials<T>::shared[6] = {};
template class Partials<float>;

// A class template's static data member is defined for all its instances
// at once; an explicit specialisation of one is refused by name.
#include <poplar/Vertex.hpp>
using namespace poplar;
template <typename T> struct Partials {
  static T shared[6];
};
template <typename T> T Partials<T>::shared[6] = {};
template <> float Partials<float>::shared[6] = {1};
class Reads : public Vertex {
public:
  Output<float> out;
  void compute() { *out = Partials<float>::shared[0]; }
};

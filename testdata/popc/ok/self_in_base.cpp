// A vertex names itself in its base clause (as a template argument of a
// constexpr function deciding the base): there it is an incomplete class,
// as in C++, rather than an endless instantiation.
#include <poplar/Vertex.hpp>
using namespace poplar;
template <typename V> constexpr bool hasAsmVersion() { return false; }
template <typename T>
class Tick : public SupervisorVertexIf<hasAsmVersion<Tick<T>>()> {
public:
  InOut<T> n;
  void compute() { *n += T(1); }
};
template class Tick<unsigned>;
// RUN Tick<unsigned int>
//   n = [41]

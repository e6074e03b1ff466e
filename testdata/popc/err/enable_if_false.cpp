// A template whose enable_if condition fails for every call is no
// candidate; with no other, the call names the reason.
#include <poplar/Vertex.hpp>
#include <type_traits>
using namespace poplar;
template <typename T, std::enable_if_t<std::is_floating_point<T>::value, bool> = true>
T halve(T x) { return x / 2; }
class Halve : public Vertex {
public:
  Input<int> in;
  Output<int> out;
  void compute() { *out = halve(*in); }
};

// A vertex template with an enum parameter, in a namespace: the graph names
// its instances by enumerator and by value.
#include <poplar/Vertex.hpp>
using namespace poplar;
namespace lib {
enum class Kind { TWICE, SQUARE };
template <Kind K, typename T> class Apply : public Vertex {
public:
  Input<Vector<T>> in;
  Output<Vector<T>> out;
  void compute() {
    for (unsigned i = 0; i < in.size(); ++i)
      out[i] = K == Kind::TWICE ? in[i] + in[i] : in[i] * in[i];
  }
};
} // namespace lib

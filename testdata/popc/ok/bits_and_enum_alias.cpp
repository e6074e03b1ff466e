// Bit builtins (__builtin_clz/ctz/popcount on unsigned int), and enum
// values named through an alias of the enum type, as template arguments
// and in expressions.
#include <poplar/Vertex.hpp>
using namespace poplar;
namespace lib {
namespace expr {
enum class Kind { A = 3, B = 5 };
}
} // namespace lib
using Kind = lib::expr::Kind;

template <Kind K> class Bits : public Vertex {
public:
  Input<Vector<unsigned>> in;
  Output<Vector<int>> out;
  void compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      unsigned x = in[i] | 1u;
      out[i] = __builtin_clz(x) * 100 + __builtin_ctz(in[i] | 0x80000000u) + __builtin_popcount(x) * int(K);
    }
  }
};
template class Bits<Kind::B>;

// RUN Bits<lib::expr::Kind::B>
//   in = [1, 6, 4294967295, 65536]
//   out = [0, 0, 0, 0]

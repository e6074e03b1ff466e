// A function template's value parameters' types and its defaults are
// looked up in the template's own namespace, its explicit arguments in
// the caller's: lib::pick<lib::Kind::B> called from outside lib, where
// the parameter's type is lib's Kind and the default's type lib's Count.
#include <poplar/Vertex.hpp>
using namespace poplar;

namespace lib {
enum class Kind { A, B };
typedef unsigned Count;
template <Kind K, Count N = 2> float pick(float x) { return K == Kind::A ? x * N : -x * N; }
} // namespace lib

// The caller's own Kind, whose enumerators are in another order.
namespace user {
enum class Kind { B, A };
float run(float x) { return lib::pick<lib::Kind::A>(x) + float(int(Kind::A)); }
} // namespace user

class V : public Vertex {
public:
  Output<Vector<float>> out;
  void compute() {
    out[0] = lib::pick<lib::Kind::B>(2.0f);
    out[1] = lib::pick<lib::Kind::A, 3>(1.0f);
    out[2] = user::run(5.0f);
  }
};

// RUN V
//   out = [0, 0, 0]

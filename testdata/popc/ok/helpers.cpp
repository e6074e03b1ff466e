// Templates and structs as helper code uses them: an explicit function
// template specialisation, reinterpret_cast of tile memory to a struct
// pointer with member access, a pointer member in a helper struct, a
// struct nested in a class template (seeing its parameters), and a
// std::conditional member alias.
#include <poplar/Vertex.hpp>
#include <type_traits>
using namespace poplar;
template <typename T> T sq(T x) { return x * x; }
template <> float sq<float>(float x) { return x * x + 1.0f; }
struct Hdr { unsigned short a; unsigned short b; };
struct Walk { const float *p; unsigned n; float next() { return p[n++]; } };
template <typename T> struct Outer {
  struct Inner { T v; T get() const { return v + T(1); } };
  static T make(T x) { Inner i{x}; return i.get(); }
};
template <typename T> class W : public Vertex {
public:
  Input<Vector<T>> in;
  Input<Vector<unsigned>> raw;
  Output<Vector<T>> out;
  using OutT = typename std::conditional<std::is_same<T, float>::value, float, int>::type;
  void compute() {
    out[0] = sq(in[0]);
    const Hdr *h = reinterpret_cast<const Hdr *>(&raw[0]);
    out[1] = h->a + h[0].b;
    Walk w{&in[0], 1};
    out[2] = w.next() + w.next();
    out[3] = Outer<T>::make(in[0]);
    OutT z = 3;
    out[4] = z;
  }
};
template class W<float>;

// RUN W<float>
//   in = [2, 3, 4]
//   raw = [327687]
//   out = [0, 0, 0, 0, 0]

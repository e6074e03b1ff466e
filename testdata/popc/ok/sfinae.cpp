// Overloads chosen by std::enable_if: a false condition, or one naming a
// member its argument lacks, takes the template out of overload
// resolution, in a template parameter (named or not), a parameter or the
// return type. The hardware overloads hold inline assembly, which is an
// error only where code that runs reaches it.
#include <poplar/Vertex.hpp>
#include <type_traits>
using namespace poplar;

struct Hardware { static constexpr bool hardware = true; };
struct Model { static constexpr bool model = true; };

template <class Tag, std::enable_if_t<Tag::hardware, bool> = true>
int scale(int x) {
  asm volatile("nop" ::: "memory");
  return x;
}
template <class Tag, std::enable_if_t<Tag::model, bool> = true>
int scale(int x) { return 3 * x; }

template <typename T, typename = std::enable_if_t<std::is_floating_point<T>::value>>
T half_of(T x) { return x / 2; }
template <typename T, std::enable_if_t<std::is_integral<T>::value, int> = 0>
T half_of(T x) { return x >> 1; }

template <typename T>
typename std::enable_if<sizeof(T) == 4, T>::type widen(T x) { return x * 4; }
template <typename T>
typename std::enable_if<sizeof(T) == 2, T>::type widen(T x) { return x * 2; }

template <typename T>
T clampNeg(T x, typename std::enable_if<std::is_signed<T>::value>::type * = nullptr) { return x < 0 ? 0 : x; }

class Dispatch : public Vertex {
public:
  Input<Vector<int>> a;
  Output<Vector<float>> out;
  void compute() {
    out[0] = scale<Model>(a[0]);
    out[1] = half_of(a[1]) + half_of(5.0f);
    out[2] = widen(a[2]) + widen((short)a[2]);
    out[3] = clampNeg(a[3]);
  }
};

// RUN Dispatch
//   a = [7, 9, 10, -4]
//   out = [0, 0, 0, 0]

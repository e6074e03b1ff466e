// std::pair and std::tuple values: returned from helpers as braced lists,
// unpacked with std::tie (std::ignore skips an element), read as
// `.first`/`.second`, built by std::make_pair.
#include <poplar/Vertex.hpp>
#include <tuple>
#include <utility>
using namespace poplar;

// Follows one link of a chain: the value there, and where the link leads.
template <typename T>
inline std::tuple<T, unsigned> follow(const T *values, const unsigned *next, unsigned at) {
  T v = values[at];
  at = next[at];
  return {v, at};
}

inline std::tuple<int, bool, short> split(int x) { return {x / 10, x < 0, short(x % 10)}; }

template <typename T> class Chain : public Vertex {
public:
  Input<Vector<T>> values;
  Input<Vector<unsigned>> next;
  Input<unsigned> steps;
  Output<Vector<T>> visited;
  void compute() {
    unsigned at = 0;
    T v;
    for (unsigned i = 0; i < *steps; ++i) {
      std::tie(v, at) = follow(&values[0], &next[0], at);
      visited[i] = v;
    }
    std::pair<T, unsigned> last = std::make_pair(v, at);
    visited[*steps] = last.first + T(last.second);
  }
};
template class Chain<float>;
template class Chain<int>;

class Digits : public Vertex {
public:
  InOut<Vector<int>> xs;
  void compute() {
    for (unsigned i = 0; i < xs.size(); ++i) {
      int tens;
      short units;
      std::tie(tens, std::ignore, units) = split(xs[i]);
      xs[i] = tens * 1000 + units;
    }
  }
};
// RUN Chain<float>
//   values = [0.5, 1.5, 2.5, 3.5]
//   next = [3, 0, 1, 2]
//   steps = [5]
//   visited = [0, 0, 0, 0, 0, 0]
// RUN Chain<int>
//   values = [7, 8]
//   next = [1, 1]
//   steps = [2]
//   visited = [0, 0, 0]
// RUN Digits
//   xs = [123, -45, 9]

// Member types named through an instantiated class: an alias chosen by
// specialisation (`typename OutType<Op, T>::type` as an edge's element
// type) and a struct nested in a class template (`Info<T>::Entry`).
#include <poplar/Vertex.hpp>
using namespace poplar;

enum class Op { ADD, LESS };
template <Op op, typename T> struct OutType { using type = T; };
template <typename T> struct OutType<Op::LESS, T> { typedef bool type; };

template <typename T> struct Info {
  struct Entry {
    T key;
    unsigned short count;
  };
};

template <Op op, typename T> class Bin : public Vertex {
public:
  Input<Vector<T>> a;
  Input<Vector<T>> b;
  Output<Vector<typename OutType<op, T>::type>> out;
  void compute() {
    for (unsigned i = 0; i < out.size(); ++i) {
      if constexpr (op == Op::ADD) {
        out[i] = a[i] + b[i];
      } else {
        out[i] = a[i] < b[i];
      }
    }
  }
};
template class Bin<Op::ADD, float>;
template class Bin<Op::LESS, float>;

template <typename T> class Walk : public Vertex {
public:
  Input<Vector<unsigned char>> table;
  Output<T> out;
  void compute() {
    using Entry = typename Info<T>::Entry;
    const Entry *e = reinterpret_cast<const Entry *>(&table[0]);
    *out = e[0].key + e[1].key * T(e[1].count);
  }
};
template class Walk<int>;

// RUN Bin<Op::ADD,float>
//   a = [1, 5]
//   b = [2, 3]
//   out = [0, 0]
// RUN Bin<Op::LESS,float>
//   a = [1, 5]
//   b = [2, 3]
//   out = [0, 0]
// RUN Walk<int>
//   table = [3, 0, 0, 0, 9, 0, 0, 0, 10, 0, 0, 0, 2, 0, 0, 0]
//   out = [0]

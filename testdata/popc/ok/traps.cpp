// Traps: out-of-bounds tile access, division by zero, INT_MIN / -1,
// assert, compute returning false, local array index, printf output.
#include <poplar/Vertex.hpp>
#include <cassert>
#include <print.h>
using namespace poplar;

class Oob : public Vertex {
public:
  Input<Vector<int>> in;
  Output<int> out;
  unsigned idx;
  void compute() { *out = in[idx]; }
};
class Div : public Vertex {
public:
  Input<int> a;
  Input<int> b;
  Output<int> out;
  void compute() { *out = *a / *b + *a % 7; }
};
class Asserts : public Vertex {
public:
  Input<int> a;
  void compute() { assert(*a > 0); }
};
class Fails : public Vertex {
public:
  Input<int> a;
  bool compute() { return *a == 42; }
};
class Local : public Vertex {
public:
  Input<unsigned> i;
  Output<int> out;
  void compute() { int arr[3] = {1, 2, 3}; *out = arr[*i]; }
};
class Print : public Vertex {
public:
  Input<Vector<float>> in;
  void compute() {
    for (unsigned i = 0; i < in.size(); ++i)
      printf("in[%u] = %f (%5.2e) %d %x %-4d| %g %c%%\n", i, in[i], in[i], int(in[i]), 255u + i, -3, in[i] * 1000, 'A' + i);
  }
};
// RUN Oob
//   in = [1, 2]
//   out = [0]
//   idx = 1
// RUN Oob
//   in = [1, 2]
//   out = [0]
//   idx = 100000
// RUN Div
//   a = [17]
//   b = [5]
//   out = [0]
// RUN Div
//   a = [17]
//   b = [0]
//   out = [0]
// RUN Div
//   a = [-2147483648]
//   b = [-1]
//   out = [0]
// RUN Asserts
//   a = [1]
// RUN Asserts
//   a = [0]
// RUN Fails
//   a = [41]
// RUN Local
//   i = [2]
//   out = [0]
// RUN Local
//   i = [3]
//   out = [0]
// RUN Print
//   in = [1.5, -2.25]

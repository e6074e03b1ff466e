// Scalar accesses of 2, 4 and 8 bytes must be aligned to their size, as on
// the IPU: a misaligned load or store traps with the misaligned status and
// the tile address (issue 25); one both outside the tile and misaligned is
// reported as outside. Bytes may be anywhere; memcpy copies bytes.
#include <poplar/Vertex.hpp>
#include <cstring>
using namespace poplar;

// A float read through `char* + off`.
class ReadFloat : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  unsigned off;
  void compute() {
    const char *p = reinterpret_cast<const char *>(&in[0]) + off;
    *out = *reinterpret_cast<const float *>(p);
  }
};
// A float written through `char* + off`.
class WriteFloat : public Vertex {
public:
  Output<Vector<float>> out;
  unsigned off;
  void compute() {
    char *p = reinterpret_cast<char *>(&out[0]) + off;
    *reinterpret_cast<float *>(p) = 2.5f;
  }
};
// Halves, unsigned shorts and 64-bit integers through `char* + off`.
class Narrow : public Vertex {
public:
  InOut<Vector<half>> h;
  InOut<Vector<unsigned short>> s;
  unsigned off;
  void compute() {
    char *ph = reinterpret_cast<char *>(&h[0]) + off;
    *reinterpret_cast<half *>(ph) += half(1.0f);
    char *ps = reinterpret_cast<char *>(&s[0]) + off;
    *reinterpret_cast<unsigned short *>(ps) += 1;
  }
};
class Wide : public Vertex {
public:
  InOut<Vector<unsigned long long>> v;
  unsigned off;
  void compute() {
    char *p = reinterpret_cast<char *>(&v[0]) + off;
    *reinterpret_cast<unsigned long long *>(p) += 1;
  }
};
// Bytes at any offset, and memcpy of a float from an odd address.
class Bytes : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<unsigned char>> b;
  Output<float> out;
  void compute() {
    const char *p = reinterpret_cast<const char *>(&in[0]);
    for (unsigned i = 0; i < b.size(); ++i)
      b[i] = p[i + 1];
    float f;
    memcpy(&f, p + 4, 4);
    *out = f;
  }
};
// An elementwise loop over a pointer to misaligned floats: the SIMD copy
// must not run, and the scalar loop traps at its first element.
class Loop : public Vertex {
public:
  InOut<Vector<float>> v;
  unsigned off;
  void compute() {
    float *p = reinterpret_cast<float *>(reinterpret_cast<char *>(&v[0]) + off);
    for (unsigned i = 0; i < 8; ++i)
      p[i] = p[i] * 2.0f;
  }
};
// RUN ReadFloat
//   in = [1.5, 2.5]
//   out = [0]
//   off = 4
// RUN ReadFloat
//   in = [1.5, 2.5]
//   out = [0]
//   off = 1
// RUN ReadFloat
//   in = [1.5, 2.5]
//   out = [0]
//   off = 2
// RUN ReadFloat
//   in = [1.5, 2.5]
//   out = [0]
//   off = 1048577
// RUN WriteFloat
//   out = [0, 0]
//   off = 4
// RUN WriteFloat
//   out = [0, 0]
//   off = 3
// RUN Narrow
//   h = [1, 2]
//   s = [10, 20]
//   off = 2
// RUN Narrow
//   h = [1, 2]
//   s = [10, 20]
//   off = 1
// RUN Wide
//   v = [1, 2]
//   off = 8
// RUN Wide
//   v = [1, 2]
//   off = 4
// RUN Bytes
//   in = [1, 2, 3]
//   b = [0, 0, 0]
//   out = [0]
// RUN Loop
//   v = [1, 2, 3, 4, 5, 6, 7, 8, 9]
//   off = 4
// RUN Loop
//   v = [1, 2, 3, 4, 5, 6, 7, 8, 9]
//   off = 2

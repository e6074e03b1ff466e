// Unions: every member at offset 0, the size of the largest, the
// alignment of the strictest; writing one member and reading another
// reinterprets the bytes (as GCC defines). Anonymous unions and structs
// in a class: their members are the class's, laid out where the
// anonymous member is; a braced list initialises a union's first member
// and reaches an anonymous member's through brace elision.
#include <poplar/Vertex.hpp>
#include <cstdint>
using namespace poplar;

union Word {
  float f;
  std::uint32_t u;
  std::uint16_t halves[2];
};
static_assert(sizeof(Word) == 4 && alignof(Word) == 4, "");

union Mixed {
  char c;
  double d;
  std::uint8_t bytes[12];
};
static_assert(sizeof(Mixed) == 16 && alignof(Mixed) == 8, "");

struct Node {
  float lo;
  std::uint8_t flags;
  union {
    std::uint32_t child;
    std::uint32_t prim;
  };
  struct {
    std::uint16_t a, b;
  };
};
static_assert(sizeof(Node) == 16, "");

class Pun : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<unsigned>> out;
  bool compute() {
    Word w;
    w.f = in[0];
    out[0] = w.u;
    out[1] = w.halves[1];
    w.halves[0] = 0;
    out[2] = w.u;
    Word z{2.0f};
    out[3] = z.u;
    Node n{1.5f, 3, 77, 5, 6};
    out[4] = n.prim + n.a + n.b + n.flags;
    n.child = 9;
    out[5] = n.prim;
    Mixed m{};
    m.bytes[11] = 1;
    out[6] = m.bytes[0] + sizeof(m);
    return true;
  }
};
// RUN Pun
//   in = [1.0]
//   out = [0, 0, 0, 0, 0, 0, 0]

// Statements: while, do-while, switch with fallthrough, break/continue,
// range-for, local arrays, structs, enums, lambdas, ?:, comma, casts.
#include <poplar/Vertex.hpp>
#include <cstdint>
using namespace poplar;

enum class Mode : unsigned char { Add = 1, Mul = 2, Max = 5 };
enum Colour { Red, Green = 4, Blue };
struct Pair { int a; float b; };

class Control : public Vertex {
public:
  Input<Vector<int>> in;
  Output<Vector<int>> out;
  unsigned mode;
  bool compute() {
    int acc[4] = {0};
    for (auto x : in) acc[x & 3] += x;
    unsigned i = 0;
    while (i < 4) { out[i] = acc[i]; ++i; }
    int n = 0;
    do { n += 3; } while (n < 10);
    out[4] = n;
    switch (static_cast<Mode>(mode)) {
    case Mode::Add: out[5] = 100; // fall through
    case Mode::Mul: out[5] += 1; break;
    default: out[5] = -1;
    }
    int s = 0;
    for (int j = 0; j < 10; ++j) { if (j % 2) continue; if (j > 6) break; s += j; }
    out[6] = s;
    Pair p = {3, 1.5f};
    p.a += 2;
    out[7] = p.a + int(p.b * 2);
    auto add = [](int a, int b) { return a + b; };
    int base = 7;
    auto addBase = [&](int v) { return v + base; };
    out[8] = add(2, 3) * 10 + addBase(1);
    out[9] = (mode > 1 ? Blue : Green) + (int)Red;
    int c = (n = 1, n + 1);
    out[10] = c;
    uint8_t w = 250; w += 10;
    out[11] = w;
    out[12] = -7 / 2 + (-7 % 3) * 100 + (7u >> 1) * 1000;
    return true;
  }
};
// RUN Control
//   in = [1, 2, 3, 4, 5, 6, 7]
//   out = [0,0,0,0,0,0,0,0,0,0,0,0,0]
//   mode = 1
// RUN Control
//   in = []
//   out = [0,0,0,0,0,0,0,0,0,0,0,0,0]
//   mode = 3

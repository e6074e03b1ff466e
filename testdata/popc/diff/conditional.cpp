// The conditional operator on class objects: a copy of the one picked,
// an lvalue that is written through or bound to a reference, a result
// returned by value and by reference, a temporary on one side, a derived
// object converted to its base, objects in tile memory, member calls on
// the result. Compiled by popc and by g++ -O2 against the stub headers,
// their outputs compared bit for bit (popc/tests/differential.rs).
#include <poplar/Vertex.hpp>
using namespace poplar;

struct Vec2 {
  float x, y;
  float dot(const Vec2 &o) const { return x * o.x + y * o.y; }
  Vec2 scaled(float k) const { return Vec2{x * k, y * k}; }
};

struct Vec3 : Vec2 {
  float z;
};

struct Box {
  Vec2 lo, hi;
  int id;
};

Vec2 pick(bool c, Vec2 a, Vec2 b) { return c ? a : b; }
const Vec2 &pickRef(bool c, const Vec2 &a, const Vec2 &b) { return c ? a : b; }
Vec2 &widest(Vec2 &a, Vec2 &b) { return a.dot(a) >= b.dot(b) ? a : b; }

class Conditional : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  void compute() {
    Vec2 a{in[0], in[1]}, b{in[2], in[3]};
    for (unsigned i = 0; i < 6; ++i) {
      bool c = in[4 + i] > 0.0f;
      Vec2 r = c ? a : b;
      const Vec2 &ref = c ? a : b;
      (c ? a : b).x += 1.0f;
      Vec2 s = pick(!c, a, b);
      const Vec2 &t = pickRef(c, a, b);
      out[4 * i] = r.x + ref.y;
      out[4 * i + 1] = s.x - s.y + t.x;
      out[4 * i + 2] = (c ? a : b).dot(c ? b : a);
      out[4 * i + 3] = ref.x;
    }
    widest(a, b).y = 100.0f;
    out[24] = a.y + b.y;
    // A temporary on one side: the result is a copy.
    Vec2 u = in[10] > 0.0f ? Vec2{1.0f, 2.0f} : a;
    Vec2 v = in[11] > 0.0f ? a.scaled(2.0f) : b.scaled(in[12]);
    out[25] = u.x + u.y + v.x + v.y;
    // A derived object where its base is wanted.
    Vec3 d{};
    d.x = in[13];
    d.y = in[14];
    d.z = in[15];
    const Vec2 &m = in[16] > 0.0f ? d : a;
    out[26] = m.x + m.y;
    (in[17] > 0.0f ? d : b).y = -5.0f;
    out[27] = d.y + b.y + d.z;
    // Aggregates holding objects.
    Box b1{a, b, 1}, b2{b, a, 2};
    Box &bb = in[18] > 0.0f ? b1 : b2;
    bb.id += 10;
    out[28] = float(b1.id + b2.id) + (in[19] > 0.0f ? b1.hi : b2.lo).x;
    // Objects in tile memory, read through a pointer to the edge's data.
    const Vec2 *pv = reinterpret_cast<const Vec2 *>(&in[20]);
    const Vec2 &w = in[24] > 0.0f ? pv[0] : pv[1];
    const Vec2 &mixed = in[25] > 0.0f ? pv[2] : a;
    out[29] = w.x * w.y + mixed.x;
  }
};

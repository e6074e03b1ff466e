// Virtual functions in helper classes (covariant return types too), and
// unions: compiled by popc and by g++ -O2 against the stub headers, their
// outputs compared bit for bit (popc/tests/differential.rs).
#include <poplar/Vertex.hpp>
#include <cstdint>
using namespace poplar;

// An abstract base: a pure virtual function, a virtual one with a body,
// a non-virtual one calling them, a virtual destructor that does nothing.
struct Shape {
  float scale;
  virtual float area() const = 0;
  virtual int sides() const { return 0; }
  float weighted() const { return scale * area() + sides(); }
  virtual ~Shape() = default;
};

struct Circle : Shape {
  float r;
  Circle(float s, float radius) : r(radius) { scale = s; }
  float area() const override { return 3.0f * r * r; }
};

struct Rect : public Shape {
  float w, h;
  Rect(float s, float a, float b) : w(a), h(b) { scale = s; }
  float area() const { return w * h; }
  int sides() const override { return 4; }
};

// Overrides again, calls the base's version by name (no dispatch), and
// ends the chain with `final`.
struct Square final : Rect {
  Square(float s, float a) : Rect(s, a, a) {}
  float area() const final { return Rect::area() + 1.0f; }
  int sides() const override { return Rect::sides() + 10; }
};

float measure(const Shape &s) { return s.weighted(); }
float areaOf(const Shape *s) { return s->area(); }

// Dispatch through references and pointers: objects whose class popc
// knows where the call is, and elements of arrays reached by a run-time
// index through a base reference (a run-time dispatch on the tag).
class Shapes : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  bool compute() {
    Circle c(2.0f, in[0]);
    Rect r(1.0f, in[1], in[2]);
    Square sq(0.5f, in[3]);
    out[0] = measure(c);
    out[1] = measure(r);
    out[2] = measure(sq);
    out[3] = areaOf(&sq);
    const Shape &ref = r;
    out[4] = ref.area() + float(ref.sides());
    Circle cs[3] = {Circle(1.0f, in[4]), Circle(2.0f, in[5]), Circle(3.0f, in[6])};
    Square ss[2] = {Square(1.0f, in[7]), Square(2.0f, in[8])};
    for (unsigned i = 0; i + 9 < in.size() && i < 20; ++i) {
      unsigned k = unsigned(in[9 + i] > 0.0f ? in[9 + i] : -in[9 + i]);
      float v = in[9 + i] > 0.0f ? measure(cs[k % 3]) : measure(ss[k % 2]);
      out[5 + i] = v + (k % 2 ? areaOf(&cs[k % 3]) : areaOf(&ss[k % 2]));
    }
    return true;
  }
};

// A class template hierarchy: the operation chosen per element by a
// run-time index into arrays of each derived class.
template <class T> struct Op {
  virtual T apply(T a, T b) const = 0;
  T twice(T a, T b) const { return apply(apply(a, b), b); }
};
template <class T> struct Add : Op<T> {
  T apply(T a, T b) const override { return a + b; }
};
template <class T> struct Mul : Op<T> {
  T bias;
  T apply(T a, T b) const override { return a * b + bias; }
};
template <class T> T run(const Op<T> &op, T a, T b) { return op.twice(a, b); }

template <class T> class Ops : public Vertex {
public:
  Input<Vector<T>> a;
  Input<Vector<T>> b;
  Output<Vector<T>> out;
  bool compute() {
    Add<T> adds[2];
    Mul<T> muls[2];
    muls[0].bias = T(1);
    muls[1].bias = T(3);
    for (unsigned i = 0; i < a.size(); ++i) {
      unsigned k = i % 4;
      out[i] = k < 2 ? run<T>(adds[k], a[i], b[i]) : run<T>(muls[k - 2], a[i], b[i]);
    }
    return true;
  }
};
template class Ops<int>;
template class Ops<float>;

// Copies slice (the copy is of the base's class), and assignment through
// a base reference keeps the object's dynamic class.
struct Counter {
  int n;
  virtual int step() const { return 1; }
  int next() { n += step(); return n; }
};
struct Fast : Counter {
  int by;
  int step() const override { return by; }
};
int advance(Counter c) { return c.next(); }
int advanceRef(Counter &c) { return c.next(); }

class Slicing : public Vertex {
public:
  Input<Vector<int>> in;
  Output<Vector<int>> out;
  bool compute() {
    Fast f;
    f.n = in[0];
    f.by = in[1];
    out[0] = advance(f);
    out[1] = advanceRef(f);
    Counter plain = f;
    out[2] = plain.next();
    Counter &view = f;
    view = plain;
    out[3] = f.next();
    out[4] = f.n + f.by;
    return true;
  }
};

// Unions: a named one punning a float's bits, one with an array member,
// and a class with an anonymous union and an anonymous struct, built by
// brace elision and by a constructor.
union Bits {
  float f;
  std::uint32_t u;
  unsigned char bytes[4];
};
static_assert(sizeof(Bits) == 4 && alignof(Bits) == 4, "union layout");

union Wide {
  std::uint8_t b;
  double d;
  std::uint16_t h[3];
};
static_assert(sizeof(Wide) == 8 && alignof(Wide) == 8, "union layout");

struct Tagged {
  float x;
  std::uint8_t c;
  union {
    std::uint16_t k;
    std::int16_t s;
  };
  std::int32_t i;
};
static_assert(sizeof(Tagged) == 12, "anonymous union layout");

// An anonymous struct aligned by GCC's attribute, as ray tracers lay out
// their primitives.
struct Ball {
  struct __attribute__((aligned(8))) {
    float cx, cy, cz;
  };
  float radius;
};
static_assert(sizeof(Ball) == 24 && alignof(Ball) == 8, "aligned anonymous struct");

struct Point {
  struct {
    float px, py;
  };
  union {
    float weight;
    std::uint32_t raw;
  };
  Point(float a, float b, float w) : px(a), py(b), weight(w) {}
  float dot() const { return px * py + weight; }
};

class Unions : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<unsigned>> bits;
  Output<Vector<float>> out;
  bool compute() {
    for (unsigned i = 0; i < 8; ++i) {
      Bits b;
      b.f = in[i];
      bits[i] = b.u ^ b.bytes[i % 4];
    }
    Wide w;
    w.d = double(in[8]) * 3.0;
    bits[8] = w.h[0] + w.h[1] + w.h[2] + w.b;
    Tagged t{in[9], 7, 40000, -5};
    bits[9] = unsigned(t.s) + t.k + unsigned(t.i) + t.c;
    t.s = -2;
    bits[10] = t.k;
    Point p(in[10], in[11], in[12]);
    out[0] = p.dot();
    p.raw ^= 0x80000000u;
    out[1] = p.weight + p.px;
    Bits c;
    c.u = 0x3f800000u + unsigned(in[13] > 0.0f);
    out[2] = c.f;
    return true;
  }
};

// Overriders returning a class by value, a reference and a pointer, and a
// virtual call operator, through run-time dispatch.
struct Pair {
  float a, b;
};
struct Source {
  float data[2];
  virtual Pair get(float k) const { return Pair{data[0] * k, data[1]}; }
  virtual float &slot() { return data[0]; }
  virtual const float *last() const { return &data[1]; }
  virtual float operator()(float x) const { return x + data[1]; }
};
struct Swapped : Source {
  Pair get(float k) const override { return Pair{data[1], data[0] * k}; }
  float &slot() override { return data[1]; }
  float operator()(float x) const override { return x * data[0]; }
};
float use(Source &s, float k) {
  Pair p = s.get(k);
  s.slot() += 1.0f;
  return p.a - p.b + s(k) + s.data[0] + s.data[1];
}

class Returns : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  bool compute() {
    Source plain[2];
    Swapped swapped[2];
    for (unsigned j = 0; j < 2; ++j) {
      plain[j].data[0] = in[j];
      plain[j].data[1] = in[j + 2];
      swapped[j].data[0] = in[j + 4];
      swapped[j].data[1] = in[j + 6];
    }
    for (unsigned i = 8; i < in.size(); ++i) {
      unsigned k = unsigned(in[i] > 0.0f ? in[i] : -in[i]);
      out[i] = k % 2 ? use(plain[k / 2 % 2], in[i]) : use(swapped[k / 2 % 2], in[i]);
    }
    return true;
  }
};

// Covariant return types: overriders return references and pointers to
// the derived class where the base returns the base; the call's result
// has the base's type, and a call through it dispatches again.
struct Node {
  float v;
  virtual Node &self() { return *this; }
  virtual float val() const { return v; }
  virtual Node &twin(Node &other) { return other; }
};
struct Leaf : Node {
  float w;
  Leaf &self() override {
    w += 1.0f;
    return *this;
  }
  float val() const override { return v + w; }
};
struct Twig final : Leaf {
  Twig &self() override {
    Leaf::self();
    v *= 2.0f;
    return *this;
  }
  float val() const override { return Leaf::val() * 3.0f; }
  Twig &twin(Node &) override { return *this; }
};
// Pointers: the derived reader's elements are points with a third
// coordinate, read from tile memory.
struct P2 {
  float x, y;
};
struct P3 : P2 {
  float z;
};
struct Reader {
  const float *data;
  virtual const P2 *at(unsigned i) const { return reinterpret_cast<const P2 *>(data + 2 * i); }
};
struct Reader3 : Reader {
  const P3 *at(unsigned i) const override { return reinterpret_cast<const P3 *>(data + 3 * i); }
};

class Covariant : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  void compute() {
    Node ns[2];
    Leaf ls[2];
    Twig ts[2];
    for (unsigned i = 0; i < 2; ++i) {
      ns[i].v = in[i];
      ls[i].v = in[2 + i];
      ls[i].w = in[4 + i];
      ts[i].v = in[6 + i];
      ts[i].w = in[8 + i];
    }
    for (unsigned i = 0; i < 12; ++i) {
      unsigned k = unsigned(in[10 + i] > 0.0f ? in[10 + i] : -in[10 + i]);
      Node &a = k % 3 == 0 ? ns[k % 2] : k % 3 == 1 ? static_cast<Node &>(ls[k % 2]) : ts[k % 2];
      out[i] = a.self().val();
      out[12 + i] = a.twin(ns[(k + 1) % 2]).self().val();
    }
    Leaf &l = ls[0].self();
    Twig &t = ts[1].self();
    out[24] = l.w + t.w + t.v;
    Reader r2;
    Reader3 r3;
    r2.data = &in[0];
    r3.data = &in[0];
    for (unsigned i = 0; i < 6; ++i) {
      const Reader &r = in[10 + i] > 0.0f ? r2 : static_cast<const Reader &>(r3);
      const P2 *p = r.at(i);
      out[25 + i] = p->x - p->y;
    }
    out[31] = r3.at(2)->z;
  }
};

// Virtual functions in helper classes: overriding with and without
// `override`/`final`, a pure virtual function in an abstract base, a
// virtual destructor that does nothing, calls through base references and
// pointers dispatched on the object's class (known here for locals, read
// from the object's tag for array elements reached by a run-time index),
// a virtual called from a non-virtual base method, a qualified call that
// does not dispatch, a base class's constructor run from the derived
// one's initialiser list (a virtual call inside it sees the base's
// class), and copies that slice.
#include <poplar/Vertex.hpp>
using namespace poplar;

struct Animal {
  int legs;
  int born;
  Animal(int n) : legs(n) { born = kind(); }
  virtual int kind() const { return 1; }
  virtual int sound() const = 0;
  int describe() const { return 100 * kind() + sound(); }
  virtual ~Animal() {}
};

struct Dog : Animal {
  Dog() : Animal(4) {}
  int kind() const override { return 2; }
  int sound() const override { return 7; }
};

struct Puppy final : Dog {
  int sound() const final { return Dog::sound() + 1; }
};

struct Bird : public Animal {
  Bird() : Animal(2) {}
  int sound() const { return 3; }
};

int describe(const Animal &a) { return a.describe(); }
int soundOf(const Animal *a) { return a->sound(); }

class Zoo : public Vertex {
public:
  Input<Vector<int>> pick;
  Output<Vector<int>> out;
  bool compute() {
    Dog d;
    Puppy p;
    Bird b;
    out[0] = describe(d);
    out[1] = describe(p);
    out[2] = describe(b);
    out[3] = soundOf(&p);
    out[4] = d.born + p.born + b.born;
    out[5] = p.legs + b.legs;
    const Animal &a = p;
    out[6] = a.Animal::kind();
    Dog dogs[2];
    Bird birds[2];
    for (unsigned i = 0; i < pick.size(); ++i) {
      unsigned k = unsigned(pick[i]);
      out[7 + i] = k % 2 ? describe(dogs[k / 2 % 2]) : describe(birds[k / 2 % 2]);
    }
    return true;
  }
};
// RUN Zoo
//   pick = [0, 1, 2, 3]
//   out = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]

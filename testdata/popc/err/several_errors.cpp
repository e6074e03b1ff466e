// Independent errors in three vertices are all reported, in source order,
// each with the closest declared name as a suggestion.
#include <poplar/Vertex.hpp>
using namespace poplar;
struct Pair { float first; float second; };
float twice(float x) { return 2 * x; }
class A : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  bool compute() {
    float total = 0;
    for (unsigned i = 0; i < in.size(); ++i) total += in[i];
    *out = totl;
    return true;
  }
};
class B : public Vertex {
public:
  Output<Flot> out;
  bool compute() { return true; }
};
class C : public Vertex {
public:
  Output<float> out;
  bool compute() {
    Pair p{1, 2};
    *out = p.secnd + twise(1.0f);
    return true;
  }
};

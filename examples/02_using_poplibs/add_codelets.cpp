// Element-wise addition of two float vectors, the work popops::add does for
// tutorial 2 (PopLibs' own codelets are not part of this toolchain).
#include <poplar/Vertex.hpp>

using namespace poplar;

class ElementwiseAdd : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<Vector<float>> out;

  bool compute() {
    for (unsigned i = 0; i < out.size(); ++i)
      out[i] = a[i] + b[i];
    return true;
  }
};

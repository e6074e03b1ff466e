// A call whose function exists but takes another number of arguments names
// the count (was: "use of undeclared function" for a method, "declared but
// not defined" for a function, "not included" for an ipu:: helper).
#include <poplar/Vertex.hpp>
#include <ipu_vector_math>

int twice(int x) { return 2 * x; }

class Method : public poplar::Vertex {
public:
  poplar::Output<float> out;
  int half_of(int x) { return x / 2; }
  bool compute() { *out = half_of(1, 2); return true; }
};

class Function : public poplar::Vertex {
public:
  poplar::Output<float> out;
  bool compute() { *out = twice(1, 2); return true; }
};

class Helper : public poplar::Vertex {
public:
  poplar::Output<float> out;
  bool compute() { *out = ipu::exp(1.0f, 2.0f); return true; }
};

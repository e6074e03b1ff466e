// decltype of a local name as the type of a functional cast, in both
// spellings (`decltype(x){0}` and `decltype(x)(0)`).
#include <poplar/Vertex.hpp>
using namespace poplar;
float relu(float x) { return (x > decltype(x){0}) ? x : decltype(x)(0); }
class V : public Vertex { public: InOut<Vector<float>> a; void compute() { for (unsigned i = 0; i < a.size(); ++i) a[i] = relu(a[i]); } };
// RUN V
//   a = [-1.5, 2, 0]

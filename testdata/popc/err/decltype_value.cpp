// decltype parses as a type anywhere (here in functional casts); popc does
// not resolve it yet, so a use is an error naming it.
#include <poplar/Vertex.hpp>
using namespace poplar;
float relu(float x) { return (x > decltype(x){0}) ? x : decltype(x)(0); }
class V : public Vertex { public: InOut<float> a; void compute() { *a = relu(*a); } };

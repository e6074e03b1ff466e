// An ipu:: name popc does not have suggests the closest helper it has.
#include <poplar/Vertex.hpp>
#include <ipu_vector_math>

class Sig : public poplar::Vertex {
public:
  poplar::Output<float> out;
  bool compute() { *out = ipu::sigmod(1.0f); return true; }
};

// A constructor that does work is refused by name, not silently skipped
// (declared-only, defaulted and empty ones are accepted and mean nothing).
#include <poplar/Vertex.hpp>
struct Scaled {
  Scaled() = default;
  ~Scaled() {}
  Scaled(int k) : factor(k) {}
  int factor;
};

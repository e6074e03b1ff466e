// A destructor that does work is refused by name, not silently skipped.
#include <poplar/Vertex.hpp>
struct Counter {
  Counter(unsigned *p) : hits(p) {}
  ~Counter() { *hits += 1; }
  unsigned *hits;
};

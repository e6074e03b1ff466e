// Counters for the control-flow case.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Add : public Vertex {
public:
  InOut<int> n;
  int step;
  void compute() { *n += step; }
};

// k -= 1; flag = (k != 0)
class Dec : public Vertex {
public:
  InOut<int> k;
  Output<int> flag;
  void compute() {
    *k -= 1;
    *flag = *k != 0;
  }
};

// k -= 1; done = (k == 0)
class Countdown : public Vertex {
public:
  InOut<int> k;
  Output<int> done;
  void compute() {
    *k -= 1;
    *done = *k == 0;
  }
};

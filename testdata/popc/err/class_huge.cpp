// Each struct doubles the last: S39 would be 8 TiB.
struct S0 { long a; };
struct S1 { S0 a; S0 b; };
struct S2 { S1 a; S1 b; };
struct S3 { S2 a; S2 b; };
struct S4 { S3 a; S3 b; };
struct S5 { S4 a; S4 b; };
struct S6 { S5 a; S5 b; };
struct S7 { S6 a; S6 b; };
struct S8 { S7 a; S7 b; };
struct S9 { S8 a; S8 b; };
struct S10 { S9 a; S9 b; };
struct S11 { S10 a; S10 b; };
struct S12 { S11 a; S11 b; };
struct S13 { S12 a; S12 b; };
struct S14 { S13 a; S13 b; };
struct S15 { S14 a; S14 b; };
struct S16 { S15 a; S15 b; };
struct S17 { S16 a; S16 b; };
struct S18 { S17 a; S17 b; };
struct S19 { S18 a; S18 b; };
struct S20 { S19 a; S19 b; };
struct S21 { S20 a; S20 b; };
struct S22 { S21 a; S21 b; };
struct S23 { S22 a; S22 b; };
struct S24 { S23 a; S23 b; };
struct S25 { S24 a; S24 b; };
struct S26 { S25 a; S25 b; };
struct S27 { S26 a; S26 b; };
struct S28 { S27 a; S27 b; };
struct S29 { S28 a; S28 b; };
struct S30 { S29 a; S29 b; };
struct S31 { S30 a; S30 b; };
struct S32 { S31 a; S31 b; };
struct S33 { S32 a; S32 b; };
struct S34 { S33 a; S33 b; };
struct S35 { S34 a; S34 b; };
struct S36 { S35 a; S35 b; };
struct S37 { S36 a; S36 b; };
struct S38 { S37 a; S37 b; };
struct S39 { S38 a; S38 b; };
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<int> in;
  Output<int> out;
  void compute() {
    S39 s;
    *out = *in;
  }
};

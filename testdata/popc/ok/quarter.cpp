/* quarter, Poplar's 8-bit float: edges of quarter carry a metadata byte
   (format bit 7, scale in bits 0-5), read with getMetadata() and
   unpackMetadata(); toFloat/toHalf/toQuarter convert (docs/codelets.md). */
#include <poplar/Vertex.hpp>
using namespace poplar;

class ToFloat : public Vertex {
public:
  Input<Vector<quarter>> in;
  Output<Vector<float, ONE_PTR>> out;
  Output<Vector<half, ONE_PTR>> outHalf;
  void compute() {
    const quarter_metadata md = unpackMetadata(in.getMetadata());
    for (unsigned i = 0; i < in.size(); ++i) {
      out[i] = toFloat(in[i], md);
      outHalf[i] = poplar::toHalf(in[i], md);
    }
  }
};

class FromFloat : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<quarter, ONE_PTR>> nanOnOverflow;
  Output<Vector<quarter, ONE_PTR>> saturate;
  void compute() {
    const auto md = unpackMetadata(nanOnOverflow.getMetadata());
    for (unsigned i = 0; i < in.size(); ++i) {
      nanOnOverflow[i] = toQuarter(in[i], md);
      saturate[i] = toQuarter(in[i], unpackMetadata(saturate.getMetadata()), false);
    }
  }
};

// Re-encodes rows of quarters with another format and scale.
class Recode : public Vertex {
public:
  Vector<Input<Vector<quarter>>> in;
  Vector<Output<Vector<quarter, ONE_PTR>>, ONE_PTR> out;
  void compute() {
    const auto from = unpackMetadata(in.getMetadata());
    const auto to = unpackMetadata(out.getMetadata());
    unsigned r = 0;
    for (auto &row : in) {
      for (unsigned i = 0; i < row.size(); ++i) out[r][i] = toQuarter(toFloat(row[i], from), to, true);
      ++r;
    }
  }
};
// RUN ToFloat
//   in = [0x00, 0x01, 0x08, 0x40, 0x44, 0x7f, 0x80, 0xc0, 0xff]
//   in.metadata = 0x80
//   out = [0, 0, 0, 0, 0, 0, 0, 0, 0]
//   outHalf = [0, 0, 0, 0, 0, 0, 0, 0, 0]
// RUN ToFloat
//   in = [0x01, 0x04, 0x40, 0x42, 0x7f, 0x80, 0xc0]
//   in.metadata = 0x00
//   out = [0, 0, 0, 0, 0, 0, 0]
//   outHalf = [0, 0, 0, 0, 0, 0, 0]
// RUN ToFloat
//   in = [0x40, 0x7f, 0x01]
//   in.metadata = 0x83
//   out = [0, 0, 0]
//   outHalf = [0, 0, 0]
// RUN ToFloat
//   in = [0x40, 0x7f, 0x01]
//   in.metadata = 0x3e
//   out = [0, 0, 0]
//   outHalf = [0, 0, 0]
// RUN FromFloat
//   in = [0, -0.0, 1, 1.0625, 1.1875, 247, 248, -1000, 0.0004, 0.00048828125, 0.0009765625, 1e-30, -1e-30]
//   nanOnOverflow.metadata = 0x80
//   saturate.metadata = 0x80
//   nanOnOverflow = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
//   saturate = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// RUN FromFloat
//   in = [1, 57344, 61439, 61440, 3.0517578125e-05, 7.62939453125e-06, -1e9]
//   nanOnOverflow.metadata = 0x00
//   saturate.metadata = 0x00
//   nanOnOverflow = [0, 0, 0, 0, 0, 0, 0]
//   saturate = [0, 0, 0, 0, 0, 0, 0]
// RUN FromFloat
//   in = [8, 1920, 1921, 0.125]
//   nanOnOverflow.metadata = 0x83
//   saturate.metadata = 0x3d
//   nanOnOverflow = [0, 0, 0, 0]
//   saturate = [0, 0, 0, 0]
// RUN Recode
//   in = [[0x40, 0x7f, 0x01], [0x80, 0xc4]]
//   in.metadata = 0x80
//   out = [[0, 0, 0], [0, 0]]
//   out.metadata = 0x01

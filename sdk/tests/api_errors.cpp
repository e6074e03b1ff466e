// Misuses of the host API and the exception class each must raise.
//
// Built against the SDK headers and linked with libpoplar; run from any
// directory (it writes its codelet files to a temporary directory). Prints
// one line per check ("ok" or "FAIL" with what happened instead) and exits
// non-zero if any check fails. Where Poplar's documentation leaves the
// class open, the choice made here is the contract (see docs/host-api.md):
//   - an unknown handle in any engine call (readTensor, writeTensor,
//     connectStream): symbol_error;
//   - a stream bound to a buffer that is not a whole number of transfers:
//     stream_connection_error;
//   - two vertices of one compute set each reading what the other writes:
//     graph_program_compilation_error when the engine compiles, naming both
//     (the race check);
//   - a codelet calling a function no source defines:
//     graph_program_compilation_error at addCodelets (popc links a codelet
//     file when it compiles it);
//   - a vector-list entry connected before setFieldSize: no_size_specified;
//   - a known engine option with a bad value, or a key Poplar does not
//     document: invalid_option (every key Poplar documents is accepted, even
//     one with no effect here).
#include <poplar/DeviceManager.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>
#include <popops/ElementWise.hpp>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;

namespace {

int failures = 0;

void pass(const std::string &check) { std::cout << "ok    " << check << "\n"; }

void fail(const std::string &check, const std::string &why) {
  ++failures;
  std::cout << "FAIL  " << check << ": " << why << "\n";
}

/// Runs `body` and checks that it throws `Expected`. For Poplar's classes
/// `type` must also name the class; `messageCheck`, if given, must accept
/// the message.
template <class Expected, class Body>
void expectThrow(const std::string &check, const char *type, Body body,
                 bool (*messageCheck)(const std::string &) = nullptr) {
  try {
    body();
  } catch (const std::exception &e) {
    const poplar_error *pe = dynamic_cast<const poplar_error *>(&e);
    std::string message = e.what();
    if (dynamic_cast<const Expected *>(&e) == nullptr)
      fail(check, (pe != nullptr ? "threw " + pe->type : std::string("threw another std::exception")) + ": " +
                      message);
    else if (message.empty())
      fail(check, "empty message");
    else if (type != nullptr && (pe == nullptr || pe->type != type))
      fail(check, std::string("`type` is '") + (pe != nullptr ? pe->type : "<none>") + "', expected '" + type + "'");
    else if (messageCheck != nullptr && !messageCheck(message))
      fail(check, "unexpected message: " + message);
    else
      pass(check);
    return;
  }
  fail(check, "nothing was thrown");
}

template <class Body> void expectNoThrow(const std::string &check, Body body) {
  try {
    body();
    pass(check);
  } catch (const std::exception &e) {
    fail(check, std::string("threw: ") + e.what());
  }
}

const char *kCodelets = R"(
#include <poplar/Vertex.hpp>
using namespace poplar;

class CopyScalar : public Vertex {
public:
  Input<float> in;
  Output<float> out;
  bool compute() {
    *out = *in;
    return true;
  }
};

class Fails : public Vertex {
public:
  Output<float> out;
  bool compute() {
    *out = 1.0f;
    return false;
  }
};

class SumList : public Vertex {
public:
  Vector<Input<float>> ins;
  Output<float> out;
  bool compute() {
    float s = 0;
    for (unsigned i = 0; i < ins.size(); ++i)
      s += *ins[i];
    *out = s;
    return true;
  }
};
)";

const char *kMissingSymbol = R"(
#include <poplar/Vertex.hpp>
using namespace poplar;

float helperThatIsNeverDefined(float x);

class CallsMissing : public Vertex {
public:
  Output<float> out;
  bool compute() {
    *out = helperThatIsNeverDefined(1.0f);
    return true;
  }
};
)";

// Line 4 uses an undeclared name.
const char *kBroken = "#include <poplar/Vertex.hpp>\n"
                      "class Broken : public poplar::Vertex {\n"
                      "public:\n"
                      "  bool compute() { return undeclaredName; }\n"
                      "};\n";

std::string brokenPath;

/// The message names the broken file with a line and a column: "path:4:N".
bool namesLineAndColumn(const std::string &message) {
  std::string prefix = brokenPath + ":4:";
  std::size_t at = message.find(prefix);
  return at != std::string::npos && at + prefix.size() < message.size() &&
         std::isdigit(static_cast<unsigned char>(message[at + prefix.size()]));
}

std::string writeTempFile(const std::string &name, const char *text) {
  char dir[] = "/tmp/poplar-api-errors-XXXXXX";
  if (mkdtemp(dir) == nullptr)
    throw std::runtime_error("cannot make a temporary directory");
  std::string path = std::string(dir) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

/// A graph on `device` with the test codelets loaded.
Graph graphWithCodelets(const Device &device) {
  Graph graph(device.getTarget());
  std::istringstream source(kCodelets);
  graph.addCodelets(source);
  return graph;
}

} // namespace

int main() {
  if (prs_abi_version() == PRS_ABI_VERSION)
    pass("libpoplar's ABI version matches capi.h");
  else
    fail("libpoplar's ABI version matches capi.h", "library " + std::to_string(prs_abi_version()) +
                                                       ", header " + std::to_string(PRS_ABI_VERSION));

  IPUModel model;
  Device device = model.createDevice();
  unsigned numTiles = device.getTarget().getNumTiles();

  expectThrow<poplar_error>("target of a Device that holds none", "poplar_error",
                            [] { Device none; none.getTarget(); });

  expectThrow<index_error>("Tensor::operator[] past the end", "index_error", [&] {
    Graph graph(device.getTarget());
    Tensor t = graph.addVariable(FLOAT, {4}, "t");
    t[4];
  });

  expectThrow<index_error>("Tensor::dim past the rank", "index_error", [&] {
    Graph graph(device.getTarget());
    graph.addVariable(FLOAT, {4}, "t").dim(1);
  });

  expectThrow<tensor_creation_error>("addConstant with fewer values than elements", "tensor_creation_error", [&] {
    Graph graph(device.getTarget());
    graph.addConstant<float>(FLOAT, {4}, {1.0, 2.0});
  });

  expectThrow<tensor_creation_error>("addVariable whose size overflows", "tensor_creation_error", [&] {
    Graph graph(device.getTarget());
    std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
    graph.addVariable(FLOAT, {huge, 4}, "huge");
  });

  expectThrow<invalid_tile_mapping>("setTileMapping past the last tile", "invalid_tile_mapping", [&] {
    Graph graph(device.getTarget());
    Tensor t = graph.addVariable(FLOAT, {4}, "t");
    graph.setTileMapping(t, numTiles);
  });

  brokenPath = writeTempFile("broken_codelet.cpp", kBroken);
  expectThrow<graph_program_compilation_error>(
      "codelet that does not compile (file:line:col in what())", "graph_program_compilation_error",
      [&] {
        Graph graph(device.getTarget());
        graph.addCodelets(brokenPath);
      },
      namesLineAndColumn);

  expectThrow<unknown_vertex_type>("addVertex of an unknown vertex type", "unknown_vertex_type", [&] {
    Graph graph = graphWithCodelets(device);
    graph.addVertex(graph.addComputeSet("cs"), "NoSuchVertex");
  });

  expectThrow<unknown_field>("connect to an unknown field", "unknown_field", [&] {
    Graph graph = graphWithCodelets(device);
    Tensor t = graph.addVariable(FLOAT, {}, "t");
    VertexRef v = graph.addVertex(graph.addComputeSet("cs"), "CopyScalar");
    graph.connect(v["noSuchField"], t);
  });

  expectThrow<graph_connection_error>("four elements on a scalar edge", "graph_connection_error", [&] {
    Graph graph = graphWithCodelets(device);
    Tensor t = graph.addVariable(FLOAT, {4}, "t");
    VertexRef v = graph.addVertex(graph.addComputeSet("cs"), "CopyScalar");
    graph.connect(v["in"], t);
  });

  expectThrow<type_error>("int tensor on a float edge", "type_error", [&] {
    Graph graph = graphWithCodelets(device);
    Tensor t = graph.addVariable(INT, {}, "t");
    VertexRef v = graph.addVertex(graph.addComputeSet("cs"), "CopyScalar");
    graph.connect(v["in"], t);
  });

  expectThrow<no_size_specified>("vector-list entry connected before setFieldSize", "no_size_specified", [&] {
    Graph graph = graphWithCodelets(device);
    Tensor t = graph.addVariable(FLOAT, {}, "t");
    VertexRef v = graph.addVertex(graph.addComputeSet("cs"), "SumList");
    graph.connect(v["ins"][0], t);
  });

  expectThrow<graph_program_compilation_error>("two vertices of a compute set reading each other's output",
                                              "graph_program_compilation_error",
                                 [&] {
                                   Graph graph = graphWithCodelets(device);
                                   Tensor x = graph.addVariable(FLOAT, {}, "x");
                                   Tensor y = graph.addVariable(FLOAT, {}, "y");
                                   graph.setTileMapping(x, 0);
                                   graph.setTileMapping(y, 0);
                                   ComputeSet cs = graph.addComputeSet("cs");
                                   VertexRef a = graph.addVertex(cs, "CopyScalar", {{"in", x}, {"out", y}});
                                   VertexRef b = graph.addVertex(cs, "CopyScalar", {{"in", y}, {"out", x}});
                                   graph.setTileMapping(a, 0);
                                   graph.setTileMapping(b, 0);
                                   Engine engine(graph, Execute(cs));
                                 });

  expectThrow<graph_program_compilation_error>("codelet calling a function that is never defined",
                                              "graph_program_compilation_error", [&] {
    Graph graph(device.getTarget());
    std::istringstream source(kMissingSymbol);
    graph.addCodelets(source);
    Tensor t = graph.addVariable(FLOAT, {}, "t");
    graph.setTileMapping(t, 0);
    ComputeSet cs = graph.addComputeSet("cs");
    VertexRef v = graph.addVertex(cs, "CallsMissing", {{"out", t}});
    graph.setTileMapping(v, 0);
    Engine engine(graph, Execute(cs));
  });

  // One small program for the engine checks: a stream in, a stream out.
  Graph graph = graphWithCodelets(device);
  Tensor data = graph.addVariable(FLOAT, {4}, "data");
  graph.setTileMapping(data, 0);
  graph.createHostRead("data-read", data);
  DataStream in = graph.addHostToDeviceFIFO("in", FLOAT, 4);
  DataStream out = graph.addDeviceToHostFIFO("out", FLOAT, 4);
  Sequence copyThrough({Copy(in, data), Copy(data, out)});

  expectThrow<invalid_option>("known engine option with a bad value", "invalid_option",
                              [&] { Engine engine(graph, copyThrough, {{"debug.instrument", "not-a-boolean"}}); });

  expectThrow<invalid_option>("engine option key Poplar does not know", "invalid_option",
                              [&] { Engine engine(graph, copyThrough, {{"debug.instrumnet", "true"}}); });
  expectNoThrow("engine option key Poplar documents, with no effect here, is accepted",
                [&] { Engine engine(graph, copyThrough, {{"debug.retainDebugInformation", "true"}}); });

  Engine engine(graph, copyThrough);
  engine.load(device);
  std::vector<float> buffer(4, 0.0f);

  expectThrow<stream_connection_error>("stream bound to 3 floats where a transfer is 4", "stream_connection_error",
                                       [&] { engine.connectStream("in", &buffer[0], &buffer[3]); });

  expectThrow<symbol_error>("connectStream to an unknown stream", "symbol_error",
                            [&] { engine.connectStream("no-such-stream", buffer.data()); });

  expectThrow<symbol_error>("readTensor of an unknown handle", "symbol_error",
                            [&] { engine.readTensor("no-such-handle", &buffer[0], &buffer[4]); });

  expectThrow<index_error>("callback for replica 1 of an unreplicated graph", "index_error", [&] {
    engine.connectStreamToCallback("in", 1, [](void *) {});
  });

  struct Throws : public LegacyStreamCallback {
    void fetch(void *) override { throw std::logic_error("thrown by the callback"); }
  };
  expectThrow<std::logic_error>("exception from a stream callback reaches run()", nullptr, [&] {
    engine.connectStreamToCallback("in", std::unique_ptr<StreamCallback>(new Throws()));
    engine.connectStream("out", buffer.data());
    engine.run(0);
  });

  expectThrow<runtime_error>("vertex whose compute returns false", "runtime_error", [&] {
    Graph g = graphWithCodelets(device);
    Tensor t = g.addVariable(FLOAT, {}, "t");
    g.setTileMapping(t, 0);
    ComputeSet cs = g.addComputeSet("cs");
    VertexRef v = g.addVertex(cs, "Fails", {{"out", t}});
    g.setTileMapping(v, 0);
    Engine e(g, Execute(cs));
    e.load(device);
    e.run();
  });

  expectThrow<stream_memory_allocation_error>(
      "stream too large for host memory", "stream_memory_allocation_error", [&] {
        Graph g(device.getTarget());
        Tensor t = g.addVariable(FLOAT, {1}, "t");
        g.setTileMapping(t, 0);
        std::size_t huge = std::numeric_limits<std::size_t>::max() / 8;
        DataStream s = g.addHostToDeviceFIFO("huge", FLOAT, huge);
        Engine e(g, Copy(s, t));
      });

  expectThrow<parse_error>("deserialize bytes that are not an executable", "parse_error", [] {
    std::istringstream notAnExecutable("certainly not an executable image");
    Executable::deserialize(notAnExecutable);
  });

  expectThrow<poplar_error>("popops::map of an operator number outside UnaryOpType", "poplar_error", [&] {
    Graph g(device.getTarget());
    Tensor t = g.addVariable(FLOAT, {4}, "t");
    g.setTileMapping(t, 0);
    Sequence prog;
    popops::map(g, popops::expr::UnaryOp(static_cast<popops::expr::UnaryOpType>(999), popops::expr::_1), {t}, prog);
  });

  std::cout << (failures == 0 ? "all checks passed" : std::to_string(failures) + " checks failed") << "\n";
  return failures == 0 ? 0 : 1;
}

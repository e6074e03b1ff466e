// Compile-only: the call shapes whose overload resolution must match the
// Poplar SDK's (docs/host-api.md). Public programs write these; each line
// compiles only if the headers' overload sets are Poplar's. Built by
// sdk/tests/syntax.sh with -fsyntax-only; never run.
#include <poplar/DeviceManager.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <poputil/VertexTemplates.hpp>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

using namespace poplar;
using namespace poplar::program;

// No implicit conversions that would hijack overloads.
static_assert(!std::is_convertible<const char *, Type>::value, "a string is not a Type (matMul's outType)");
static_assert(!std::is_convertible<int, Type>::value, "a number is not a Type");
static_assert(!std::is_convertible<Tensor, ArrayRef<Tensor>>::value, "no single-element ArrayRef");
static_assert(!std::is_convertible<Sequence, ArrayRef<Program>>::value, "a Sequence is one Program");
static_assert(!std::is_constructible<ArrayRef<std::size_t>, std::nullptr_t>::value, "ArrayRef(nullptr) is deleted");
static_assert(std::is_convertible<const char *, DebugContext>::value, "names from literals");
static_assert(std::is_convertible<std::string, DebugContext>::value, "names from strings");
static_assert(!std::is_copy_constructible<Device>::value && std::is_nothrow_move_constructible<Device>::value,
              "Device is move-only");
static_assert(!std::is_copy_constructible<Graph>::value, "Graph is move-only");
static_assert(std::is_copy_constructible<Tensor>::value && std::is_copy_assignable<Program>::value,
              "tensors and programs are values");

struct Fetch : public LegacyStreamCallback {
  void fetch(void *) override {}
};

void shapes(Graph &graph, Device &device, ComputeSet op) {
  std::vector<float> values(4);
  unsigned n = 4;
  // A list of doubles narrows to float for addConstant<float>.
  Tensor c = graph.addConstant<float>(FLOAT, {4}, {1.0, 1.5, 2.0, 2.5});
  // A scalar fills; a pointer reads host memory.
  Tensor z = graph.addConstant(UNSIGNED_INT, {n}, 0);
  Tensor p = graph.addConstant(FLOAT, {4}, values.data(), "from host");
  Tensor r0 = graph.addVariable(UNSIGNED_INT, {});
  graph.setInitialValue(r0, 1);
  // slice(begin, end) is the interval form; braces pick the multi-dimensional one.
  Tensor m = graph.addVariable(FLOAT, {4, 4}, "m");
  Tensor s1 = c.slice(0, 3);
  Tensor s2 = m.slice({1, 1}, {2, 4});
  Tensor cat = concat(c.reshape({4, 1}), p.reshape({4, 1}), {1});
  // Programs nest by value; a Sequence slices into a Program.
  Sequence seq{Copy(c, p), Repeat{4, Sequence{Copy(p, c), Execute(op)}}, Execute(op)};
  Repeat mainLoop{5, seq};
  Program prog = seq;
  std::vector<Program> progs(2);
  progs[0] = seq;
  progs[1] = Block(Sequence{Execute(op)}, std::string("stage"));
  Switch sw(z[0], {{0, seq}, {2, Execute(op)}}, Sequence());
  sw.add(3, prog);
  // Engines from one program, a list, braces, options in braces.
  Engine e1(graph, seq);
  Engine e2(graph, {seq, mainLoop}, {{"debug.instrument", "true"}});
  Engine e3{graph, prog, {{"autoReport.all", "true"}}};
  Engine e4(graph, progs, OptionFlags{}, [](int, int) {});
  Engine e5(compileGraph(graph, progs));
  e1.load(device);
  e1.run();
  e1.connectStream("in", values.data());
  e1.connectStream("in", &values[0], &values[4]);
  e1.connectStreamToCallback("in", std::unique_ptr<Fetch>(new Fetch()));
  e1.connectStreamToCallback("in", 0, std::unique_ptr<Fetch>(new Fetch()));
  e1.printProfileSummary(std::cout, {{"showExecutionSteps", "true"}});
  // Vertices with connections; scalars on fields.
  VertexRef v = graph.addVertex(op, "V", {{"a", m[0]}, {"b", {m[1], m[2]}}});
  graph.connect(v["k"], 2.5f);
  graph.connect(v["ins"], {m[1], m[2]});
  graph.setTileMapping(v, 0);
  graph.setPerfEstimate(v, 20);
  // popops: tensor-tensor and tensor-scalar forms; compute-set reductions.
  Sequence ops;
  popops::add(graph, m, m.transpose(), ops, "Add");
  popops::mulInPlace(graph, m, 2.0f, ops);
  std::vector<ComputeSet> css;
  popops::reduceWithOutput(graph, cat, c, {1}, popops::ReduceParams(popops::Operation::ADD), css, "reduction");
  std::string vertexName = poputil::templateVertex("popops::ScaledAdd2D", FLOAT, true);
  (void)s1, (void)s2, (void)r0, (void)vertexName;
}

int main() { return 0; }

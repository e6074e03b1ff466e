// The host API's entry points where an output can overlap an input, and
// names a user writes that reach the compiler's text: each must give
// numpy's answer (inputs read before the output is written) or a clear
// error, never a wrong number. Prints one line per check; exits non-zero
// if any fails. Run by `cargo test -p capi` (the re-audit of issue 26).
#include <gcl/Collectives.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>

#include <cmath>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "check.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

std::string show(const std::vector<float> &v) {
  std::string s;
  for (float x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return s;
}

/// Builds a graph with `t` = 0, 1, 2, ... (n elements), lets `build` add
/// programs that write it, runs them and reads `t` back.
std::vector<float> runOn(Device &device, const std::vector<std::size_t> &shape,
                         const std::function<void(Graph &, Tensor, Sequence &)> &build) {
  Graph graph(device.getTarget());
  Tensor t = graph.addVariable(FLOAT, shape, "t");
  graph.setTileMapping(t, 0);
  std::vector<float> init(t.numElements());
  for (std::size_t i = 0; i < init.size(); ++i) init[i] = static_cast<float>(i);
  Tensor c = graph.addConstant<float>(FLOAT, shape, init.data());
  graph.setTileMapping(c, 0);
  graph.createHostRead("t", t);
  Sequence prog;
  prog.add(Copy(c, t));
  build(graph, t, prog);
  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  std::vector<float> out(t.numElements());
  engine.readTensor("t", out.data(), out.data() + out.size());
  return out;
}

void expectValues(const std::string &check, const std::vector<float> &got, const std::vector<float> &want) {
  report(check, got == want, "got " + show(got) + ", want " + show(want));
}

} // namespace

int main() {
  IPUModel ipu;
  Device device = ipu.createDevice();

  // t[1:] += t[:-1], through mapInPlace on an overlapping operand (numpy:
  // every operand read before the output is written).
  expectValues("mapInPlace with a shifted operand",
               runOn(device, {5},
                     [](Graph &g, Tensor t, Sequence &p) {
                       popops::mapInPlace(g, popops::expr::BinaryOpType::ADD, t.slice(1, 5), t.slice(0, 4), p);
                     }),
               {0, 1, 3, 5, 7});
  // In place with a reversed view of itself: t = t + reverse(t).
  expectValues("addInPlace with a reversed view of itself",
               runOn(device, {4}, [](Graph &g, Tensor t, Sequence &p) { popops::addInPlace(g, t, t.reverse(0), p); }),
               {3, 3, 3, 3});
  // A copy between overlapping views: t[1:4] = t[0:3].
  expectValues("Copy between overlapping views",
               runOn(device, {4}, [](Graph &, Tensor t, Sequence &p) { p.add(Copy(t.slice(0, 3), t.slice(1, 4))); }),
               {0, 0, 1, 2});
  // A reduction written into a row of its own input.
  expectValues("reduceWithOutput into its own input",
               runOn(device, {2, 2},
                     [](Graph &g, Tensor t, Sequence &p) {
                       popops::reduceWithOutput(g, t, t[0], {0}, popops::ReduceParams(popops::Operation::ADD), p);
                     }),
               {2, 4, 2, 3});
  // A matrix product copied back over its own operand: m = m x m.
  expectValues("matMul result copied over its operand",
               runOn(device, {2, 2},
                     [](Graph &g, Tensor t, Sequence &p) {
                       Tensor r = poplin::matMul(g, t, t, p);
                       p.add(Copy(r, t));
                     }),
               {2, 3, 6, 11});
  // Writing one element twice is refused, not raced.
  try {
    runOn(device, {2}, [](Graph &g, Tensor t, Sequence &p) {
      popops::mapInPlace(g, popops::expr::UnaryOpType::NEGATE, t.broadcast(2, 0), p);
    });
    report("mapInPlace through a broadcast view is refused", false, "no error");
  } catch (const poplar_error &e) {
    report("mapInPlace through a broadcast view is refused", true);
  }

  // gcl collectives on a replicated graph, written over their own input:
  // t[1:6] = allReduce(t[0:5]) and the in-place all-reduce of a reversed
  // view, each replica starting from 10 r + (0, 1, ..., 5).
  {
    const unsigned replicas = 3;
    IPUModel model;
    model.numIPUs = replicas;
    model.tilesPerIPU = 4;
    Device rdevice = model.createDevice();
    Graph graph(rdevice.getTarget(), replication_factor(replicas));
    Tensor r = graph.addReplicationIndexConstant("r");
    graph.setTileMapping(r, 0);
    std::vector<float> ramp = {0, 1, 2, 3, 4, 5};
    Tensor c = graph.addConstant<float>(FLOAT, {6}, ramp.data());
    graph.setTileMapping(c, 0);
    Tensor t = graph.addVariable(FLOAT, {6}, "t");
    Tensor u = graph.addVariable(FLOAT, {6}, "u");
    graph.setTileMapping(t, 0);
    graph.setTileMapping(u, 1);
    Sequence prog;
    namespace pe = popops::expr;
    Tensor start = popops::map(graph, pe::Cast(pe::_1, FLOAT) * pe::Const(10.0f) + pe::_2, {r, c}, prog);
    prog.add(Copy(start, t));
    prog.add(Copy(start, u));
    Tensor dest = t.slice(1, 6);
    gcl::allReduceToDestinationCrossReplica(graph, t.slice(0, 5), dest, gcl::CollectiveOperator::ADD, prog);
    Tensor reversed = u.reverse(0);
    gcl::allReduceInPlaceCrossReplica(graph, reversed, gcl::CollectiveOperator::MAX, prog);
    graph.createHostRead("t", t);
    graph.createHostRead("u", u);
    Engine engine(graph, prog);
    engine.load(rdevice);
    engine.run(0);
    std::vector<float> got(replicas * 6), gotU(replicas * 6), want, wantU;
    engine.readTensor("t", got.data(), got.data() + got.size());
    engine.readTensor("u", gotU.data(), gotU.data() + gotU.size());
    for (unsigned i = 0; i < replicas; ++i) {
      want.push_back(10.0f * i);
      for (unsigned j = 0; j < 5; ++j) want.push_back(30.0f + 3.0f * j);
      for (unsigned j = 0; j < 6; ++j) wantU.push_back(20.0f + j);
    }
    expectValues("allReduceToDestinationCrossReplica into its own input", got, want);
    expectValues("allReduceInPlaceCrossReplica through a reversed view", gotU, wantU);
  }

  // Names with the characters that once broke text outputs.
  const char *names[] = {"{{SCRIPT}}", "a=b", "line\nbreak", "\"quoted\"", "", "op1", "op1"};
  try {
    Graph graph(device.getTarget());
    Sequence prog;
    for (const char *name : names) {
      Tensor t = graph.addVariable(FLOAT, {2}, name);
      graph.setTileMapping(t, 0);
      ComputeSet cs = graph.addComputeSet(name);
      prog.add(Execute(cs));
      prog.add(PrintTensor(name, t));
    }
    Engine engine(graph, prog);
    engine.load(device);
    engine.run(0);
    report("free-text names (repeated, empty, template markers, newlines)", true);
  } catch (const std::exception &e) {
    report("free-text names (repeated, empty, template markers, newlines)", false, e.what());
  }
  std::cout << (failures == 0 ? "all checks passed" : std::to_string(failures) + " checks failed") << "\n";
  return failures == 0 ? 0 : 1;
}

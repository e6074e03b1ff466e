// The data-dependent loops of the host API, `RepeatWhileTrue` and
// `RepeatWhileFalse`, with Poplar's meaning: the condition program runs
// first, then, while the predicate is true (or false), the body and the
// condition again. Counts how often each part runs on `sim` and `cpu`.
// Prints one line per check; exits non-zero if any fails. Run by
// `cargo test -p capi`.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>

#include <iostream>
#include <string>

#include "check.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

struct Counts {
  int condRuns;
  int bodyRuns;
};

/// A loop whose condition program counts its runs in `n` and sets the
/// predicate to `n < limit` (`whileFalse`: `n == limit`); the body counts
/// its runs in `b`.
Counts runLoop(Device &device, bool whileFalse, int limit) {
  Graph graph(device.getTarget());
  Tensor n = graph.addVariable(INT, {}, "n");
  Tensor b = graph.addVariable(INT, {}, "b");
  Tensor lim = graph.addConstant<int>(INT, {}, limit, "limit");
  Tensor one = graph.addConstant<int>(INT, {}, 1, "one");
  Tensor zero = graph.addConstant<int>(INT, {}, 0, "zero");
  for (const Tensor &t : {n, b, lim, one, zero}) graph.setTileMapping(t, 0);
  graph.createHostRead("n", n);
  graph.createHostRead("b", b);

  Sequence cond;
  popops::addInPlace(graph, n, one, cond);
  Tensor pred = whileFalse ? popops::eq(graph, n, lim, cond) : popops::lt(graph, n, lim, cond);
  Sequence body;
  popops::addInPlace(graph, b, one, body);

  Sequence prog{Copy(zero, n), Copy(zero, b)};
  if (whileFalse) {
    prog.add(RepeatWhileFalse(cond, pred, body));
  } else {
    prog.add(RepeatWhileTrue(cond, pred, body));
  }
  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  Counts c{0, 0};
  engine.readTensor("n", &c.condRuns, &c.condRuns + 1);
  engine.readTensor("b", &c.bodyRuns, &c.bodyRuns + 1);
  return c;
}

void expectCounts(Device &device, const std::string &where, bool whileFalse, int limit, Counts want) {
  std::string check = where + (whileFalse ? ": RepeatWhileFalse" : ": RepeatWhileTrue") +
                      " to " + std::to_string(limit);
  try {
    Counts got = runLoop(device, whileFalse, limit);
    report(check, got.condRuns == want.condRuns && got.bodyRuns == want.bodyRuns,
           "condition ran " + std::to_string(got.condRuns) + " times (want " + std::to_string(want.condRuns) +
               "), body " + std::to_string(got.bodyRuns) + " (want " + std::to_string(want.bodyRuns) + ")");
  } catch (const poplar_error &e) {
    report(check, false, e.what());
  }
}

} // namespace

int main() {
  IPUModel ipu;
  Device sim = ipu.createDevice();
  Device cpu = Device::createCPUDevice();
  for (Device *device : {&sim, &cpu}) {
    std::string where = device == &sim ? "sim" : "cpu";
    // n < 5 holds after the condition's 1st to 4th runs: four bodies, five conditions.
    expectCounts(*device, where, false, 5, {5, 4});
    // n == 5 is false after the 1st to 4th runs: the same loop, spelt as Poplar's other class.
    expectCounts(*device, where, true, 5, {5, 4});
    // The predicate stops the loop after the condition's first run: no body.
    expectCounts(*device, where, false, 1, {1, 0});
    expectCounts(*device, where, true, 1, {1, 0});
  }

  // A predicate of more than one element is refused when the program is built.
  try {
    Graph graph(sim.getTarget());
    Tensor p = graph.addVariable(BOOL, {2}, "p");
    graph.setTileMapping(p, 0);
    RepeatWhileFalse loop(Sequence(), p, Sequence());
    report("RepeatWhileFalse on a two-element predicate is refused", false, "no error");
  } catch (const graph_connection_error &e) {
    report("RepeatWhileFalse on a two-element predicate is refused",
           std::string(e.what()).find("RepeatWhileFalse") != std::string::npos, e.what());
  }
  std::cout << (failures == 0 ? "all checks passed" : std::to_string(failures) + " checks failed") << "\n";
  return failures == 0 ? 0 : 1;
}

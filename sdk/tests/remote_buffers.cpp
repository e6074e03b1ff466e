// Remote buffers through the host API: Copy to and from a repeat chosen by
// an offset tensor when the program runs, and the engine's
// copyToRemoteBuffer / copyFromRemoteBuffer of one repeat of one replica,
// in a graph of two replicas on `sim` and `cpu`. Prints one line per
// check; exits non-zero if any fails. Run by `cargo test -p capi`.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "check.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

std::string show(const std::vector<float> &v) {
  std::ostringstream s;
  for (size_t i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
  return s.str();
}

const unsigned replicas = 2, repeats = 3, n = 4;

/// Slot `k` of replica `r` before the run: 100 r + 10 k + i.
std::vector<float> slot(unsigned r, unsigned k) {
  std::vector<float> v(n);
  for (unsigned i = 0; i < n; ++i) v[i] = float(100 * r + 10 * k + i);
  return v;
}

/// Reads the repeats `from` (two offsets) into two rows, doubles them and
/// writes them to the repeats `to`; every slot of every replica comes back.
std::vector<float> runOn(Device &device, const Target &target, const std::string &where) {
  Graph graph(target, replication_factor(replicas));
  RemoteBuffer rb = graph.addRemoteBuffer("rb", FLOAT, n, repeats);
  Tensor x = graph.addVariable(FLOAT, {2, n}, "x");
  Tensor from = graph.addVariable(UNSIGNED_INT, {2}, "from");
  Tensor to = graph.addVariable(UNSIGNED_INT, {2}, "to");
  for (const Tensor &t : {x, from, to}) graph.setTileMapping(t, 0);
  graph.createHostWrite("from", from);
  graph.createHostWrite("to", to);
  Sequence prog;
  prog.add(Copy(rb, x, from));
  namespace pe = popops::expr;
  popops::mapInPlace(graph, pe::_1 * pe::Const(2.0f), {x}, prog);
  prog.add(Copy(x, rb, to));
  Engine engine(graph, prog);
  engine.load(device);

  for (unsigned r = 0; r < replicas; ++r)
    for (unsigned k = 0; k < repeats; ++k) engine.copyToRemoteBuffer(slot(r, k).data(), "rb", k, r);
  // Every replica reads repeats 2 and 0, and writes them doubled to 1 and 2.
  std::vector<unsigned> fromHost = {2, 0}, toHost = {1, 2};
  engine.writeTensor("from", fromHost.data(), fromHost.data() + 2);
  engine.writeTensor("to", toHost.data(), toHost.data() + 2);
  engine.run(0);

  std::vector<float> all;
  for (unsigned r = 0; r < replicas; ++r) {
    std::vector<std::vector<float>> want = {slot(r, 0), slot(r, 2), slot(r, 0)};
    for (float &v : want[1]) v *= 2;
    for (float &v : want[2]) v *= 2;
    for (unsigned k = 0; k < repeats; ++k) {
      std::vector<float> got(n, -1);
      engine.copyFromRemoteBuffer("rb", got.data(), k, r);
      report(where + ": replica " + std::to_string(r) + " repeat " + std::to_string(k), got == want[k],
             show(got) + " (want " + show(want[k]) + ")");
      all.insert(all.end(), got.begin(), got.end());
    }
  }

  // An offset past the repeats copies nothing.
  std::vector<unsigned> past = {7, 1}, none = {9, 9};
  engine.writeTensor("from", past.data(), past.data() + 2);
  engine.writeTensor("to", none.data(), none.data() + 2);
  engine.run(0);
  std::vector<float> got(n, -1);
  engine.copyFromRemoteBuffer("rb", got.data(), 1, 1);
  std::vector<float> want = slot(1, 2);
  for (float &v : want) v *= 2;
  report(where + ": offsets past the repeats copy nothing", got == want, show(got));

  std::vector<float> buf(n);
  try {
    engine.copyFromRemoteBuffer("rb", buf.data(), 3, 0);
    report(where + ": a repeat past the buffer", false, "no exception");
  } catch (const index_error &e) {
    report(where + ": a repeat past the buffer", std::string(e.what()).find("there is no repeat 3") != std::string::npos,
           e.what());
  }
  try {
    engine.copyToRemoteBuffer(buf.data(), "rb", 0, 2);
    report(where + ": a replica past the replication factor", false, "no exception");
  } catch (const index_error &e) {
    report(where + ": a replica past the replication factor",
           std::string(e.what()).find("there is no replica 2") != std::string::npos, e.what());
  }
  return all;
}

void buildErrors(const Target &target) {
  Graph graph(target, replication_factor(replicas));
  RemoteBuffer rb = graph.addRemoteBuffer("rb", FLOAT, n, repeats);
  Tensor x = graph.addVariable(FLOAT, {n}, "x");
  Tensor f = graph.addVariable(FLOAT, {1}, "f");
  Tensor two = graph.addVariable(UNSIGNED_INT, {2}, "two");
  try {
    Copy(rb, x, f);
    report("a float offset", false, "no exception");
  } catch (const type_error &e) {
    report("a float offset", std::string(e.what()).find("integer") != std::string::npos, e.what());
  }
  try {
    Copy(x, rb, two);
    report("two offsets for one row", false, "no exception");
  } catch (const graph_connection_error &e) {
    report("two offsets for one row", std::string(e.what()).find("source has 4 elements and destination has 8") !=
                                          std::string::npos,
           e.what());
  }
}

} // namespace

int main() {
  IPUModel model;
  model.numIPUs = replicas;
  model.tilesPerIPU = 4;
  Device sim = model.createDevice();
  Device cpu = Device::createCPUDevice();
  std::vector<float> onSim = runOn(sim, sim.getTarget(), "sim");
  std::vector<float> onCpu = runOn(cpu, sim.getTarget(), "cpu");
  report("sim and cpu agree", onSim == onCpu);
  buildErrors(sim.getTarget());
  if (failures) {
    std::cout << failures << " checks failed\n";
    return 1;
  }
  std::cout << "all checks passed\n";
  return 0;
}

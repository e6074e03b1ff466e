// Host streams of a replicated graph, with Poplar's meaning: each replica
// has its own stream of a ReplicatedStreamMode::REPLICATE host-to-device
// FIFO and of every device-to-host FIFO, connected with the replica's index
// (connectStream(handle, index, ...), connectStreamToCallback(handle, index,
// ...)); a BROADCAST FIFO has one host end, connected without an index, whose
// data every replica receives. Checks the data each replica sees on `sim`
// and `cpu`, how often callbacks are called, and the errors of wrong
// indices. Prints one line per check; exits non-zero if any fails. Run by
// `cargo test -p capi`.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>

#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "check.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

std::string show(const std::vector<int> &v) {
  std::ostringstream s;
  for (size_t i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
  return s.str();
}

/// Gives `base`, `base + 1`, then `base + 2`, `base + 3`, ...: two ints a
/// transfer; counts its fetches.
class Counter : public StreamCallback {
public:
  Counter(int base, int *fetches) : next_(base), fetches_(fetches) {}
  Result prefetch(void *) override { return NotAvailable; }
  void fetch(void *p) override {
    int *q = static_cast<int *>(p);
    q[0] = next_++;
    q[1] = next_++;
    ++*fetches_;
  }
  void complete() override {}

private:
  int next_;
  int *fetches_;
};

const unsigned replicas = 3;

/// Per replica, twice: out = in + b + 100 * replica, where `in` is the
/// replica's own stream and `b` a broadcast one.
Graph buildGraph(const Target &target, Sequence &prog) {
  Graph graph(target, replication_factor(replicas));
  Tensor r = graph.addReplicationIndexConstant("r");
  graph.setTileMapping(r, 0);
  Tensor x = graph.addVariable(INT, {2}, "x");
  Tensor y = graph.addVariable(INT, {2}, "y");
  Tensor w = graph.addVariable(INT, {2}, "w");
  for (const Tensor &t : {x, y, w}) graph.setTileMapping(t, 0);
  DataStream in = graph.addHostToDeviceFIFO("in", INT, 2);
  DataStream b = graph.addHostToDeviceFIFO("b", INT, 2, ReplicatedStreamMode::BROADCAST);
  DataStream out = graph.addDeviceToHostFIFO("out", INT, 2);
  namespace pe = popops::expr;
  Tensor hundreds = popops::map(graph, pe::Cast(pe::_1, INT) * pe::Const(100), {r}, prog, "hundreds");
  prog.add(Copy(hundreds.reshape({1}).broadcast(2, 0), w));
  Sequence body;
  body.add(Copy(in, x));
  body.add(Copy(b, y));
  Tensor z = popops::map(graph, pe::_1 + pe::_2 + pe::_3, {x, y, w}, body, "z");
  body.add(Copy(z, out));
  prog.add(Repeat(2, body));
  return graph;
}

/// Each replica's two transfers to the host, replica after replica.
std::vector<int> runReplicated(Device &device, const Target &target, const std::string &where) {
  Sequence prog;
  Graph graph = buildGraph(target, prog);
  // Through an executable, serialized and read back: the broadcast mode
  // travels with it.
  std::stringstream saved;
  compileGraph(graph, {prog}).serialize(saved);
  Engine engine(Executable::deserialize(saved));
  engine.load(device);

  std::vector<std::vector<int>> in(replicas), out(replicas, std::vector<int>(4, -1));
  for (unsigned i = 0; i < replicas; ++i) {
    in[i] = {int(10 * i), int(10 * i + 1), int(10 * i + 2), int(10 * i + 3)};
    if (i == 1) {
      engine.connectStream("in", i, in[i].data());  // one transfer, read twice
    } else {
      engine.connectStream("in", i, in[i].data(), in[i].data() + in[i].size());
    }
    engine.connectStream("out", i, out[i].data(), out[i].data() + out[i].size());
  }
  int fetches = 0;
  engine.connectStreamToCallback("b", std::unique_ptr<StreamCallback>(new Counter(1000, &fetches)));
  engine.run(0);
  report(where + ": the broadcast callback is called once per copy, not per replica", fetches == 2,
         std::to_string(fetches) + " fetches");

  std::vector<int> all;
  for (unsigned i = 0; i < replicas; ++i) {
    std::vector<int> want;
    for (int k = 0; k < 4; ++k) {
      int own = i == 1 ? in[i][k % 2] : in[i][k];
      want.push_back(own + 1000 + k + 100 * int(i));
    }
    report(where + ": replica " + std::to_string(i) + " reads and writes its own streams", out[i] == want,
           show(out[i]) + " (want " + show(want) + ")");
    all.insert(all.end(), out[i].begin(), out[i].end());
  }

  // Per-replica callbacks replace the buffers; replica 2's own callback.
  std::vector<int> counts(replicas, 0);
  for (unsigned i = 0; i < replicas; ++i)
    engine.connectStreamToCallback("in", i, std::unique_ptr<StreamCallback>(new Counter(int(50 * i), &counts[i])));
  engine.connectStreamToCallback("b", 0, std::unique_ptr<StreamCallback>(new Counter(0, &fetches)));
  engine.run(0);
  report(where + ": each replica's callback is called for its own copies",
         counts == std::vector<int>(replicas, 2), show(counts));
  std::vector<int> want2 = {100 + 0 + 200, 101 + 1 + 200, 102 + 2 + 200, 103 + 3 + 200};
  report(where + ": replica 2 after its callback", out[2] == want2, show(out[2]) + " (want " + show(want2) + ")");
  all.insert(all.end(), out[2].begin(), out[2].end());
  return all;
}

template <typename E> void expectThrow(const std::string &check, const std::string &words, void (*f)(Engine &),
                                       Engine &engine) {
  try {
    f(engine);
    report(check, false, "no exception");
  } catch (const E &e) {
    std::string what = e.what();
    report(check, what.find(words) != std::string::npos, what);
  } catch (const std::exception &e) {
    report(check, false, std::string("another exception: ") + e.what());
  }
}

int buffer[4];

void errors(Device &device) {
  Sequence prog;
  Graph graph = buildGraph(device.getTarget(), prog);
  Engine engine(graph, prog);
  expectThrow<stream_connection_error>(
      "a per-replica stream connected without an index", "connect each replica's with its index",
      [](Engine &e) { e.connectStream("in", buffer, buffer + 4); }, engine);
  expectThrow<stream_connection_error>(
      "a to-host stream of a replicated graph connected without an index", "one stream per replica",
      [](Engine &e) { e.connectStream("out", buffer); }, engine);
  expectThrow<index_error>(
      "a replica index past the replication factor", "there is no replica 3 (the graph has 3 replicas, indices 0 to 2)",
      [](Engine &e) { e.connectStream("in", 3, buffer); }, engine);
  expectThrow<index_error>(
      "a callback's replica index past the replication factor", "there is no replica 7",
      [](Engine &e) { e.connectStreamToCallback("out", 7, [](void *) {}); }, engine);
  expectThrow<stream_connection_error>(
      "a broadcast stream connected with replica 1", "broadcast to every replica",
      [](Engine &e) { e.connectStream("b", 1, buffer); }, engine);
  expectThrow<symbol_error>(
      "an unknown stream with a replica index", "'nope'",
      [](Engine &e) { e.connectStream("nope", 0u, buffer); }, engine);

  // Replica 2's stream left unconnected: the run names it.
  engine.load(device);
  int fetches = 0;
  for (unsigned i = 0; i < 2; ++i) engine.connectStream("in", i, buffer, buffer + 4);
  for (unsigned i = 0; i < replicas; ++i) engine.connectStream("out", i, buffer, buffer + 4);
  engine.connectStreamToCallback("b", std::unique_ptr<StreamCallback>(new Counter(0, &fetches)));
  expectThrow<runtime_error>(
      "an unconnected replica's stream stops the run", "replica 2",
      [](Engine &e) { e.run(0); }, engine);
}

/// A graph of one replica: index 0 is its stream (as example_3 of the
/// lightweight-profiling tutorial connects it), index 1 does not exist.
void oneReplica(Device &device, const std::string &where) {
  Graph graph(device.getTarget());
  Tensor x = graph.addVariable(INT, {2}, "x");
  graph.setTileMapping(x, 0);
  DataStream in = graph.addHostToDeviceFIFO("in", INT, 2);
  DataStream out = graph.addDeviceToHostFIFO("out", INT, 2);
  Engine engine(graph, Sequence{Copy(in, x), Copy(x, out)});
  int fetches = 0;
  std::vector<int> got(2, 0);
  // Connected before load: bound when the engine loads.
  engine.connectStreamToCallback("in", 0, std::unique_ptr<StreamCallback>(new Counter(7, &fetches)));
  engine.load(device);
  engine.connectStream("out", 0u, got.data(), got.data() + 2);
  engine.run(0);
  report(where + ": replica 0 of a graph of one replica", got == std::vector<int>({7, 8}) && fetches == 1,
         show(got));
  expectThrow<index_error>(
      where + ": replica 1 of a graph of one replica", "the graph has one replica, index 0",
      [](Engine &e) { e.connectStream("in", 1, buffer); }, engine);
}

} // namespace

int main() {
  IPUModel model;
  model.numIPUs = replicas;
  model.tilesPerIPU = 4;
  Device sim = model.createDevice();
  Device cpu = Device::createCPUDevice();
  std::vector<int> onSim = runReplicated(sim, sim.getTarget(), "sim");
  std::vector<int> onCpu = runReplicated(cpu, sim.getTarget(), "cpu");
  report("sim and cpu agree", onSim == onCpu, show(onSim) + " / " + show(onCpu));
  errors(sim);
  oneReplica(sim, "sim");
  oneReplica(cpu, "cpu");
  if (failures) {
    std::cout << failures << " checks failed\n";
    return 1;
  }
  std::cout << "all checks passed\n";
  return 0;
}

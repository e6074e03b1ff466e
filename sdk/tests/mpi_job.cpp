// A replicated host program that `poprun` can launch as several instances
// of one job (libpoplar built with MPI): every instance builds the same
// graph of 4 replicas, and its engine runs its share of them. Replica 1
// works alone before a print, which every replica meets at; then an
// all-reduce, reads of every replica's copy, and the sim summary's
// totals. What it prints is the same in one process and in each instance
// of a job. Run by `cargo test -p poplar-run --features mpi --test mpi`.
#include <gcl/Collectives.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;

int main() {
  const unsigned replicas = 4;
  IPUModel ipu;
  ipu.numIPUs = replicas;
  ipu.tilesPerIPU = 4;
  Device device = ipu.createDevice();
  Graph graph(device.getTarget(), replication_factor(replicas));

  Tensor r = graph.addReplicationIndexConstant("r");
  graph.setTileMapping(r, 0);
  Tensor x = graph.addVariable(FLOAT, {6}, "x");
  graph.setTileMapping(x, 1);
  namespace pe = popops::expr;
  Sequence prog;
  Tensor base = popops::map(graph, pe::Cast(pe::_1, FLOAT) * pe::Const(0.25f) + pe::Const(1.0f), {r}, prog, "base");
  prog.add(Copy(base.reshape({1}).broadcast(6, 0), x));
  Tensor one = popops::map(graph, pe::Cast(pe::_1, INT) == pe::Const(1), {r}, prog, "one");
  Sequence extra;
  popops::mapInPlace(graph, pe::_1 * pe::Const(3.0f) + pe::Const(0.5f), {x}, extra, "extra");
  prog.add(If(one, extra));
  prog.add(PrintTensor("x", x));
  Tensor sum = gcl::allReduceCrossReplica(graph, x, gcl::CollectiveOperator::ADD, prog, "sum");
  graph.createHostRead("sum", sum);
  graph.createHostRead("x", x);

  Engine engine(graph, prog, {{"debug.instrument", "true"}});
  engine.load(device);
  engine.run(0);

  std::vector<float> host(replicas * 6);
  for (const char *name : {"x", "sum"}) {
    engine.readTensor(name, host.data(), host.data() + host.size());
    for (unsigned i = 0; i < replicas; ++i) {
      std::cout << name << " of replica " << i << ":";
      for (unsigned j = 0; j < 6; ++j)
        std::cout << " " << host[i * 6 + j];
      std::cout << "\n";
    }
  }
  // The summary's cycle lines: the same figures in every instance.
  std::ostringstream summary;
  engine.printProfileSummary(summary);
  std::istringstream lines(summary.str());
  for (std::string line; std::getline(lines, line);)
    if (line.find("cycles") != std::string::npos)
      std::cout << line << "\n";
  return 0;
}

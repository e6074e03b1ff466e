// Virtual graphs, the common idiom: one per IPU of a two-IPU target, with
// PopLibs operations called on each. Checks the results (exact: every
// value is a small multiple of 1/8), that each operation's tensors are on
// its IPU's tiles (getTileMapping through the parent and through the
// virtual graph, whose tile numbers start at 0), that `sim` and `cpu` give
// the same bits, that a copy between the IPUs is costed as IPU-Link
// traffic ("global exchange") on `sim`, and the exceptions. Prints one
// line per check; exits non-zero if any fails. Run by `cargo test -p capi`.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "check.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

const unsigned kTilesPerIpu = 4;
const std::size_t kM = 16, kK = 8, kN = 12;

float aValue(unsigned ipu, std::size_t i, std::size_t k) { return 0.25f * float(i * kK + k) - 1.0f + float(ipu); }
float bValue(unsigned ipu, std::size_t k, std::size_t j) { return 0.5f * (float(k) - float(j)) + 0.5f * float(ipu); }

/// Whether every element of `t` is on tiles [lo, hi) as `g` numbers them.
bool onTiles(const Graph &g, const Tensor &t, unsigned lo, unsigned hi, std::string &where) {
  const auto mapping = g.getTileMapping(t);
  bool ok = true;
  where.clear();
  for (unsigned tile = 0; tile < mapping.size(); ++tile) {
    if (mapping[tile].empty())
      continue;
    where += std::to_string(tile) + " ";
    if (tile < lo || tile >= hi)
      ok = false;
  }
  return ok && !where.empty();
}

struct Run {
  std::vector<float> sums[2];
  std::vector<float> moved;
  double globalExchange;
};

/// The tile average of global exchange cycles in a profile summary.
double globalExchangeCycles(const std::string &summary) {
  const std::string key = "Tile average global exchange cycles:";
  std::size_t at = summary.find(key);
  if (at == std::string::npos)
    return -1;
  return std::strtod(summary.c_str() + at + key.size(), nullptr);
}

Run build(Device &device, const Target &target, bool crossCopy, bool check) {
  Graph graph(target);
  popops::addCodelets(graph);
  std::vector<Graph> ipus;
  for (unsigned i = 0; i < 2; ++i)
    ipus.push_back(graph.createVirtualGraph(i * kTilesPerIpu, (i + 1) * kTilesPerIpu));
  if (check) {
    const Target &vt = ipus[1].getTarget();
    report("a virtual graph per IPU reports one IPU of its tiles",
           vt.getNumTiles() == kTilesPerIpu && vt.getNumIPUs() == 1 && vt.getTilesPerIPU() == kTilesPerIpu,
           std::to_string(vt.getNumIPUs()) + " IPUs, " + std::to_string(vt.getNumTiles()) + " tiles");
  }
  Sequence prog;
  Tensor sums[2];
  for (unsigned i = 0; i < 2; ++i) {
    Graph &vg = ipus[i];
    std::vector<float> av, bv;
    for (std::size_t r = 0; r < kM; ++r)
      for (std::size_t k = 0; k < kK; ++k)
        av.push_back(aValue(i, r, k));
    for (std::size_t k = 0; k < kK; ++k)
      for (std::size_t j = 0; j < kN; ++j)
        bv.push_back(bValue(i, k, j));
    Tensor a = vg.addVariable(FLOAT, {kM, kK}, "a");
    poputil::mapTensorLinearly(vg, a, 1, 1);
    Tensor a0 = vg.addConstant<float>(FLOAT, {kM, kK}, av, "a0");
    vg.setTileMapping(a0, 0);
    Tensor b = vg.addConstant<float>(FLOAT, {kK, kN}, bv, "b");
    vg.setTileMapping(b, kTilesPerIpu - 1);
    prog.add(Copy(a0, a));
    Tensor c = poplin::matMul(vg, a, b, prog, "c");
    Tensor d = popops::add(vg, c, c, prog, "d");
    Tensor r = popops::reduce(vg, d, {0}, popops::ReduceParams(popops::Operation::ADD), prog, "r");
    sums[i] = r;
    graph.createHostRead("r" + std::to_string(i), r);
    if (check) {
      const unsigned lo = i * kTilesPerIpu, hi = lo + kTilesPerIpu;
      std::string where;
      const std::string ipu = "IPU " + std::to_string(i) + ": ";
      report(ipu + "mapTensorLinearly spreads over its tiles only", onTiles(graph, a, lo, hi, where), where);
      report(ipu + "setTileMapping(b, 3) is its tile 3", onTiles(graph, b, hi - 1, hi, where), where);
      const char *names[] = {"matMul", "add", "reduce"};
      const Tensor outs[] = {c, d, r};
      for (int k = 0; k < 3; ++k) {
        report(ipu + names[k] + "'s result is on its tiles", onTiles(graph, outs[k], lo, hi, where), where);
        report(ipu + names[k] + "'s result through the virtual graph is on tiles 0 to 3",
               onTiles(vg, outs[k], 0, kTilesPerIpu, where), where);
      }
    }
  }
  Tensor moved = ipus[1].addVariable(FLOAT, {kN}, "moved");
  ipus[1].setTileMapping(moved, 0);
  // IPU 0's sums copied to IPU 1, or IPU 1's within IPU 1.
  prog.add(Copy(crossCopy ? sums[0] : sums[1], moved));
  graph.createHostRead("moved", moved);

  Engine engine(graph, prog, {{"debug.instrument", "true"}});
  engine.load(device);
  engine.run(0);
  Run run;
  for (unsigned i = 0; i < 2; ++i) {
    run.sums[i].resize(kN);
    engine.readTensor("r" + std::to_string(i), run.sums[i].data(), run.sums[i].data() + kN);
  }
  run.moved.resize(kN);
  engine.readTensor("moved", run.moved.data(), run.moved.data() + kN);
  std::ostringstream summary;
  engine.printProfileSummary(summary);
  run.globalExchange = globalExchangeCycles(summary.str());
  return run;
}

/// sum over rows of 2 * (a x b), computed on the host in the device's order.
std::vector<float> expected(unsigned ipu) {
  std::vector<float> out(kN, 0.0f);
  for (std::size_t r = 0; r < kM; ++r) {
    for (std::size_t j = 0; j < kN; ++j) {
      float c = 0.0f;
      for (std::size_t k = 0; k < kK; ++k)
        c += aValue(ipu, r, k) * bValue(ipu, k, j);
      out[j] += c + c;
    }
  }
  return out;
}

std::string str(const std::vector<float> &v) {
  std::string s;
  for (float x : v)
    s += std::to_string(x) + " ";
  return s;
}

} // namespace

int main() {
  IPUModel model;
  model.numIPUs = 2;
  model.tilesPerIPU = kTilesPerIpu;
  Device sim = model.createDevice();
  Device cpu = Device::createCPUDevice();
  const Target target = sim.getTarget();

  Run onSim = build(sim, target, true, true);
  Run onCpu = build(cpu, target, true, false);
  Run local = build(sim, target, false, false);
  for (unsigned i = 0; i < 2; ++i) {
    const std::string ipu = "IPU " + std::to_string(i);
    report(ipu + "'s sums are the host's", onSim.sums[i] == expected(i),
           str(onSim.sums[i]) + "(want " + str(expected(i)) + ")");
    report(ipu + ": sim and cpu agree", onSim.sums[i] == onCpu.sums[i], str(onCpu.sums[i]));
  }
  report("the copy between the IPUs moves IPU 0's sums", onSim.moved == expected(0) && onCpu.moved == onSim.moved,
         str(onSim.moved));
  report("a copy between the IPUs is IPU-Link traffic on sim", onSim.globalExchange > 0,
         std::to_string(onSim.globalExchange) + " global exchange cycles");
  report("a copy within an IPU is not", local.globalExchange == 0,
         std::to_string(local.globalExchange) + " global exchange cycles");

  Graph graph(target);
  expectThrow<poplar_error>("an empty range is refused", "empty", [&] { graph.createVirtualGraph(3, 3); });
  expectThrow<index_error>("a range past the target is refused", "has 8 tiles",
                           [&] { graph.createVirtualGraph(4, 9); });
  Graph half = graph.createVirtualGraph(4, 8);
  expectThrow<index_error>("a nested range past its parent is refused", "which has 4 tiles",
                           [&] { half.createVirtualGraph(2, 5); });
  expectThrow<index_error>("a tile past an IPU is refused", "tiles per IPU",
                           [&] { graph.createVirtualGraph(std::vector<unsigned>{1, 4}); });
  Tensor t = half.addVariable(FLOAT, {2}, "t");
  expectThrow<invalid_tile_mapping>("mapping to a tile past the virtual graph is refused", "0 to 3",
                                    [&] { half.setTileMapping(t, 4); });
  Graph perIpu = graph.createVirtualGraph(std::vector<unsigned>{1, 3});
  perIpu.setTileMapping(t, 3);
  std::string where;
  report("createVirtualGraph({1, 3}): its tile 3 is IPU 1's tile 3", onTiles(graph, t, 7, 8, where), where);
  Graph firstTiles = graph.createVirtualGraph(2u);
  report("createVirtualGraph(2): 2 IPUs of 2 tiles",
         firstTiles.getTarget().getNumIPUs() == 2 && firstTiles.getTarget().getNumTiles() == 4);

  Graph whole(target);
  Graph replicas = whole.createReplicatedGraph(2);
  Graph direct(target, replication_factor(2));
  report("createReplicatedGraph(2) agrees with replication_factor(2)",
         replicas.getTarget().getNumTiles() == direct.getTarget().getNumTiles() &&
             replicas.getTarget().getNumIPUs() == direct.getTarget().getNumIPUs() &&
             replicas.getReplicationFactor() == 2,
         std::to_string(replicas.getTarget().getNumTiles()) + " tiles");
  expectThrow<poplar_error>("the parent of the replicas adds nothing", "createReplicatedGraph",
                            [&] { whole.addVariable(FLOAT, {2}, "x"); });

  std::cout << (failures == 0 ? "all checks passed" : std::to_string(failures) + " checks failed") << "\n";
  return failures == 0 ? 0 : 1;
}

// The IPU-Link target options through createIPUTarget: the getters, an
// unknown key, a copy between IPUs the configuration does not connect
// (refused when the engine compiles the graph), and barleyTwist's doubled
// bandwidth between neighbours, seen as fewer global exchange cycles than
// fixedWindow's for the same copy. Prints one line per check; exits
// non-zero if any fails. Run by `cargo test -p capi`.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>

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
const std::size_t kN = 1024;

/// Copies kN floats from tile 0 (IPU 0) to the first tile of IPU `to` and
/// returns the summary's tile average of global exchange cycles.
double copyCycles(const Target &target, unsigned to) {
  Device device = Device::createSimulatorDevice(target);
  Graph graph(target);
  Tensor a = graph.addVariable(FLOAT, {kN}, "a");
  Tensor b = graph.addVariable(FLOAT, {kN}, "b");
  graph.setTileMapping(a, 0);
  graph.setTileMapping(b, to * kTilesPerIpu);
  graph.createHostWrite("a", a);
  graph.createHostRead("b", b);
  Engine engine(graph, Copy(a, b), {{"debug.instrument", "true"}});
  engine.load(device);
  std::vector<float> in(kN, 1.5f), out(kN, 0.0f);
  engine.writeTensor("a", in.data(), in.data() + kN);
  engine.run(0);
  engine.readTensor("b", out.data(), out.data() + kN);
  report("the copy to IPU " + std::to_string(to) + " arrives", out == in);
  std::ostringstream summary;
  engine.printProfileSummary(summary);
  const std::string key = "Tile average global exchange cycles:";
  std::size_t at = summary.str().find(key);
  return at == std::string::npos ? -1 : std::strtod(summary.str().c_str() + at + key.size(), nullptr);
}

} // namespace

int main() {
  Target fixed = Target::createIPUTarget(4, kTilesPerIpu, "ipu2");
  Target twist = Target::createIPUTarget(4, kTilesPerIpu, "ipu2",
                                         {{"ipuLinkConfiguration", "barleyTwist"}, {"ipuLinkTopology", "torus"}});
  report("fixedWindow is Poplar's choice for 4 IPUs",
         fixed.getIpuLinkConfiguration() == IpuLinkConfiguration::Default &&
             fixed.getIpuLinkTopology() == IpuLinkTopology::Mesh);
  report("the options are read back", twist.getIpuLinkConfiguration() == IpuLinkConfiguration::BarleyTwist &&
                                          twist.getIpuLinkTopology() == IpuLinkTopology::Torus);
  report("slidingWindow is Poplar's choice above 16 IPUs",
         Target::createIPUTarget(32, 2, "ipu2").getIpuLinkConfiguration() == IpuLinkConfiguration::SlidingWindow);

  expectThrow<invalid_option>("an unknown key is an invalid option", "did you mean 'ipuLinkTopology'", [] {
    Target::createIPUTarget(2, "ipu2", {{"ipuLinkTopolgy", "line"}});
  });
  expectThrow<invalid_option>("an unknown value names the values", "fixedWindow, slidingWindow, barleyTwist", [] {
    Target::createIPUTarget(2, "ipu2", {{"ipuLinkConfiguration", "twisted"}});
  });
  expectThrow<invalid_option>("fixedWindow stops at 16 IPUs", "at most 16 IPUs", [] {
    Target::createIPUTarget(32, 2, "ipu2", {{"ipuLinkConfiguration", "fixedWindow"}});
  });

  double fixedCycles = copyCycles(fixed, 1);
  double twistCycles = copyCycles(twist, 1);
  copyCycles(twist, 2);
  report("barleyTwist moves neighbours' bytes in fewer cycles", twistCycles > 0 && twistCycles < fixedCycles,
         std::to_string(twistCycles) + " against fixedWindow's " + std::to_string(fixedCycles));
  // Under a mesh's barleyTwist IPU 0 reaches IPUs 1 and 2, not 3.
  Target mesh = Target::createIPUTarget(4, kTilesPerIpu, "ipu2", {{"ipuLinkConfiguration", "barleyTwist"}});
  expectThrow<graph_program_compilation_error>("a copy between unconnected IPUs is refused",
                                               "IPU 0 sends to IPUs 1, 2 only", [&] { copyCycles(mesh, 3); });

  if (failures) {
    std::cout << failures << " check(s) failed\n";
    return 1;
  }
  std::cout << "all checks passed\n";
  return 0;
}

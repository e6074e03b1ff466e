// The lightweight profiler through the host API: Block programs,
// profiler.blocks.filter and profiler.programs.filter, host transfers'
// phases (debug.instrumentExternalExchange), flushes and overflows, read
// back with Engine::getReport() and pva. On an IPU model of two IPUs of
// four tiles: a stage on each IPU, run three times, inside a block around
// the whole program, and a stream copy to tile 1. Prints one line per
// check; exits non-zero if any fails. Run by `cargo test -p capi`.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <pva/pva.hpp>

#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "check.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

Device model(TargetType type = TargetType::IPU_MODEL) {
  if (type == TargetType::CPU)
    return Device::createCPUDevice();
  IPUModel m;
  m.numIPUs = 2;
  m.tilesPerIPU = 4;
  return m.createDevice();
}

/// The program, its report and the summary's total cycles.
struct Run {
  pva::Report report;
  std::uint64_t totalCycles;
};

Run run(Device &device, const OptionFlags &opts) {
  Graph graph(device.getTarget());
  Tensor n0 = graph.addVariable(INT, {}, "n0");
  Tensor n1 = graph.addVariable(INT, {}, "n1");
  Tensor x = graph.addVariable(INT, {1}, "x");
  Tensor one0 = graph.addConstant<int>(INT, {}, 1, "one0");
  Tensor one1 = graph.addConstant<int>(INT, {}, 1, "one1");
  graph.setTileMapping(n0, 0);
  graph.setTileMapping(one0, 0);
  graph.setTileMapping(n1, 4);
  graph.setTileMapping(one1, 4);
  graph.setTileMapping(x, 1);
  DataStream in = graph.addHostToDeviceFIFO("in", INT, 1);

  Sequence s1, s2;
  popops::addInPlace(graph, n0, one0, s1);
  popops::addInPlace(graph, n1, one1, s2);
  Sequence prog{Block(Sequence{Repeat(3, Sequence{Block(s1, "stage1"), Block(s2, "stage2")}), Copy(in, x)}, "all")};

  int value = 7;
  Run r{[&]() {
          Engine engine(graph, prog, opts);
          engine.connectStream("in", &value, &value + 1);
          engine.load(device);
          engine.run(0);
          return engine.getReport();
        }(),
        0};
  // The summary of a second engine's identical run, with the execution
  // profile on (it counts cycles without changing them).
  OptionFlags profiled = opts;
  profiled.set("debug.instrument", "true");
  Engine engine(graph, prog, profiled);
  engine.connectStream("in", &value, &value + 1);
  engine.load(device);
  engine.run(0);
  std::ostringstream summary;
  engine.printProfileSummary(summary);
  std::string text = summary.str();
  std::string::size_type at = text.find("Total cycles:");
  if (at != std::string::npos) {
    for (char c : text.substr(at + 13, text.find('(', at) - at - 13))
      if (c >= '0' && c <= '9')
        r.totalCycles = r.totalCycles * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return r;
}

std::string names(const std::vector<pva::Block> &blocks) {
  std::string s;
  for (const pva::Block &b : blocks)
    s += (s.empty() ? "" : ",") + b.program()->name();
  return s;
}

void blocksFilter(Device &device) {
  Run r = run(device, {{"profiler.blocks.filter", "stage.|all"}, {"profiler.blocks.implicitFlush", "false"}});
  pva::Execution e = r.report.execution();
  std::vector<pva::Block> on0 = e.blocks(0), on4 = e.blocks(4);
  report("blocks.filter: IPU 0's profiling tile records its stages", names(on0) == "all,stage1,stage1,stage1",
         names(on0));
  report("blocks.filter: IPU 1's records its own", names(on4) == "all,stage2,stage2,stage2", names(on4));
  report("blocks.filter: other tiles record none", e.blocks(1).empty() && e.blocks(5).empty());
  bool common = true, typed = true;
  for (const pva::Block &b : on0) {
    common = common && b.isCommon() && !b.isStreamCopy() && !b.isOverflow() && !b.isBlockFlush() && b.tile() == 0;
    typed = typed && b.program()->type() == pva::Program::Type::Block;
  }
  report("blocks.filter: common blocks of Block programs", common && typed);
  report("blocks.filter: the whole program's block spans the summary's cycles",
         !on0.empty() && on0[0].cyclesFrom() == 0 && on0[0].cyclesTo() == r.totalCycles && r.totalCycles > 0,
         std::to_string(on0.empty() ? 0 : on0[0].cyclesTo()) + " of " + std::to_string(r.totalCycles));
  bool inside = true, ordered = true, same = true;
  for (std::size_t i = 1; i < on0.size(); ++i) {
    inside = inside && on0[0].cyclesFrom() <= on0[i].cyclesFrom() && on0[i].cyclesTo() <= on0[0].cyclesTo() &&
             on0[i].cyclesFrom() < on0[i].cyclesTo();
    if (i > 1) {
      ordered = ordered && on0[i - 1].cyclesTo() < on0[i].cyclesFrom();
      same = same && on0[i].cyclesTo() - on0[i].cyclesFrom() == on0[1].cyclesTo() - on0[1].cyclesFrom();
    }
  }
  report("blocks.filter: each stage1 inside 'all', in order, as long each time", inside && ordered && same);
  bool interleaved = on4.size() == 4 && on0.size() == 4 && on0[1].cyclesTo() <= on4[1].cyclesFrom() &&
                     on4[1].cyclesTo() <= on0[2].cyclesFrom();
  report("blocks.filter: stage2 runs between two stage1s", interleaved);
}

void noFilter(Device &device) {
  Run plain = run(device, {});
  Run recorded = run(device, {{"profiler.blocks.filter", "stage.|all"}, {"profiler.blocks.implicitFlush", "false"}});
  report("no filter: no blocks", plain.report.execution().blocks(0).empty());
  report("blocks cost no cycles without flushes", plain.totalCycles == recorded.totalCycles);
  Run partial = run(device, {{"profiler.blocks.filter", "stage"}});
  report("a filter matches whole names", partial.report.execution().blocks(0).empty());
}

void programsFilter(Device &device) {
  Run r = run(device, {{"profiler.programs.filter", "n1.*"}, {"profiler.blocks.implicitFlush", "false"}});
  std::vector<pva::Block> on4 = r.report.execution().blocks(4);
  bool ok = on4.size() == 3;
  for (const pva::Block &b : on4)
    ok = ok && b.isCommon() && b.program()->name().compare(0, 2, "n1") == 0 &&
         b.program()->type() == pva::Program::Type::OnTileExecute;
  report("programs.filter: an implicit block per execution of the matching compute set", ok, names(on4));
  report("programs.filter: on the IPU that runs it only", r.report.execution().blocks(0).empty());
}

void streamCopies(Device &device) {
  Run r = run(device, {{"debug.instrumentExternalExchange", "true"}, {"profiler.blocks.implicitFlush", "false"}});
  std::vector<pva::Block> on1 = r.report.execution().blocks(1);
  bool ok = on1.size() == 3;
  const pva::Program::Type want[3] = {pva::Program::Type::StreamCopyBegin, pva::Program::Type::StreamCopyMid,
                                      pva::Program::Type::StreamCopyEnd};
  for (std::size_t i = 0; ok && i < 3; ++i) {
    ok = on1[i].isStreamCopy() && !on1[i].isCommon() && on1[i].program()->type() == want[i] &&
         on1[i].program()->name() == "in" && on1[i].tile() == 1 &&
         (i == 0 || on1[i - 1].cyclesTo() == on1[i].cyclesFrom());
  }
  report("instrumentExternalExchange: the stream copy's three phases on its tile", ok, names(on1));
  report("instrumentExternalExchange: the copy ends the run", ok && on1[2].cyclesTo() == r.totalCycles);
  report("instrumentExternalExchange: tiles without transfers record none", r.report.execution().blocks(0).empty());
}

void flushes(Device &device) {
  OptionFlags opts{{"profiler.blocks.filter", "stage1"}, {"debug.instrumentExternalExchange", "true"}};
  Run r = run(device, opts);
  std::vector<pva::Block> on0 = r.report.execution().blocks(0);
  int common = 0, flush = 0, other = 0;
  for (const pva::Block &b : on0) {
    if (b.isCommon())
      ++common;
    else if (b.isBlockFlush() && b.isStreamCopy() && b.program()->name() == "BlockFlush")
      ++flush;
    else
      ++other;
  }
  report("implicitFlush: a flush (three blocks) ends each iteration", common == 3 && flush == 9 && other == 0,
         std::to_string(common) + " common, " + std::to_string(flush) + " flush, " + std::to_string(other) +
             " other");
  Run kept = run(device, {{"profiler.blocks.filter", "stage1"},
                          {"debug.instrumentExternalExchange", "true"},
                          {"profiler.blocks.implicitFlush", "false"}});
  report("implicitFlush: flushes are host transfers that take cycles", r.totalCycles > kept.totalCycles);
}

void overflow(Device &device) {
  Run r = run(device, {{"profiler.blocks.filter", "stage1"},
                       {"profiler.blocks.bufferSize", "48"},
                       {"profiler.blocks.implicitFlush", "false"}});
  std::vector<pva::Block> on0 = r.report.execution().blocks(0);
  bool ok = on0.size() == 3 && on0[0].isCommon() && on0[1].isCommon() && on0[2].isOverflow() &&
            on0[2].cyclesFrom() > on0[1].cyclesTo();
  report("bufferSize: blocks past a full buffer become one overflow block", ok, std::to_string(on0.size()));
}

void errors(Device &device) {
  try {
    run(device, {{"profiler.blocks.filter", "stage("}});
    report("a bad regular expression throws invalid_option", false);
  } catch (const invalid_option &e) {
    report("a bad regular expression throws invalid_option", true, e.what());
  }
  try {
    run(device, {{"profiler.blocks.filter", "all"}, {"profiler.blocks.tile", "4"}});
    report("profiler.blocks.tile past an IPU's tiles throws invalid_option", false);
  } catch (const invalid_option &e) {
    report("profiler.blocks.tile past an IPU's tiles throws invalid_option", true, e.what());
  }
  Run r = run(device, {{"profiler.blocks.filter", "all"}});
  try {
    r.report.execution().blocks(8);
    report("a tile outside the target throws index_error", false);
  } catch (const index_error &) {
    report("a tile outside the target throws index_error", true);
  }
}

void cpu() {
  Device device = model(TargetType::CPU);
  Graph graph(device.getTarget());
  Tensor n = graph.addVariable(INT, {}, "n");
  Tensor one = graph.addConstant<int>(INT, {}, 1, "one");
  graph.setTileMapping(n, 0);
  graph.setTileMapping(one, 0);
  Sequence s;
  popops::addInPlace(graph, n, one, s);
  Engine engine(graph, Block(s, "b"), {{"profiler.blocks.filter", "b"}});
  engine.load(device);
  engine.run(0);
  pva::Report rep = engine.getReport();
  report("cpu: the report has the compilation", rep.compilation().graph().numComputeSets() >= 1);
  try {
    rep.execution().blocks(0);
    report("cpu: blocks throw, naming the device", false);
  } catch (const poplar_error &e) {
    report("cpu: blocks throw, naming the device", std::string(e.what()).find("cpu device") != std::string::npos,
           e.what());
  }
}

} // namespace

int main() {
  Device device = model();
  blocksFilter(device);
  noFilter(device);
  programsFilter(device);
  streamCopies(device);
  flushes(device);
  overflow(device);
  errors(device);
  cpu();
  if (failures != 0) {
    std::cout << failures << " checks failed\n";
    return 1;
  }
  std::cout << "all checks passed\n";
  return 0;
}

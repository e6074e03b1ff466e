// libpva's report API: a subset over this project's own profiles.
//
// pva::openReport reads the graph profile autoReport writes (graph.json in
// the folder of the profile.pop path Poplar programs pass): the report's
// compilation (graph and target counts) and the version. Engine::getReport()
// also has the execution: the lightweight profiler's blocks per tile
// (Block programs and programs the engine's profiler.* options chose, host
// transfers, buffer flushes and overflows), with the simulator's cycles
// (docs/host-api.md, "Profile reports (pva)").
#ifndef PRS_PVA_PVA_HPP
#define PRS_PVA_PVA_HPP

#include <poplar/detail/TransitiveIncludes.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pva {

/// A program of the profiled executable, as a block names it.
class Program {
public:
  enum class Type {
    Empty,
    OnTileExecute,
    Repeat,
    Sequence,
    Switch,
    Copy,
    Call,
    DoExchange,
    GlobalExchange,
    StreamCopyBegin,
    StreamCopyMid,
    StreamCopyEnd,
    Sync,
    Other,
    Block
  };

  Program(std::string name, Type type) : name_(std::move(name)), type_(type) {}
  std::string name() const { return name_; }
  Type type() const { return type_; }

private:
  std::string name_;
  Type type_;
};

/// A span of cycles one tile spent in a program, in one execution of it.
class Block {
public:
  explicit Block(const prs_block &b)
      : from_(b.cycles_from), to_(b.cycles_to), tile_(b.tile), kind_(b.kind),
        program_(std::make_shared<Program>(b.name != nullptr ? b.name : "",
                                           static_cast<Program::Type>(b.program_type))) {}
  std::uint64_t cyclesFrom() const { return from_; }
  std::uint64_t cyclesTo() const { return to_; }
  unsigned tile() const { return tile_; }
  std::shared_ptr<Program> program() const { return program_; }
  /// A host transfer's phase (a flush of the profiler's buffers included).
  bool isStreamCopy() const { return kind_ == PRS_BLOCK_STREAM_COPY || kind_ == PRS_BLOCK_FLUSH; }
  /// A Block program, or a program profiler.programs.filter chose.
  bool isCommon() const { return kind_ == PRS_BLOCK_COMMON; }
  /// The span of the blocks dropped while the tile's buffer was full.
  bool isOverflow() const { return kind_ == PRS_BLOCK_OVERFLOW; }
  /// A phase of a flush of the profiler's buffers.
  bool isBlockFlush() const { return kind_ == PRS_BLOCK_FLUSH; }

private:
  std::uint64_t from_;
  std::uint64_t to_;
  unsigned tile_;
  std::uint32_t kind_;
  std::shared_ptr<Program> program_;
};

namespace detail {
struct ReportDeleter {
  void operator()(prs_report *r) const { prs_report_free(r); }
};
using ReportHandle = std::shared_ptr<prs_report>;
} // namespace detail

/// What the executions recorded.
class Execution {
public:
  explicit Execution(detail::ReportHandle report) : report_(std::move(report)) {}

  /// Tile `tile`'s blocks, by the cycle they began.
  std::vector<Block> blocks(unsigned tile) const {
    std::size_t n = 0;
    poplar::detail::check(prs_report_num_blocks(report_.get(), tile, &n));
    std::vector<Block> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      prs_block b;
      poplar::detail::check(prs_report_block(report_.get(), tile, i, &b));
      out.push_back(Block(b));
    }
    return out;
  }

private:
  detail::ReportHandle report_;
};

/// The graph's counts.
class Graph {
public:
  explicit Graph(const prs_report_info &info) : info_(info) {}
  std::uint64_t numComputeSets() const { return info_.num_compute_sets; }
  std::uint64_t numVertices() const { return info_.num_vertices; }

private:
  prs_report_info info_;
};

/// The target the graph was compiled for.
class Target {
public:
  explicit Target(const prs_report_info &info) : info_(info) {}
  unsigned numTiles() const { return info_.num_tiles; }
  unsigned numIPUs() const { return info_.num_ipus; }

private:
  prs_report_info info_;
};

/// What the compilation made.
class Compilation {
public:
  explicit Compilation(const prs_report_info &info) : info_(info) {}
  Graph graph() const { return Graph(info_); }
  Target target() const { return Target(info_); }

private:
  prs_report_info info_;
};

/// The toolchain that wrote the profile.
class Version {
public:
  explicit Version(const std::string &text) : text_(text) {}
  std::string string() const { return text_; }

private:
  std::string text_;
};

/// A profile report.
class Report {
public:
  /// The graph profile only (pva::openReport).
  explicit Report(const prs_report_info &info) : info_(info) {}
  /// Engine::getReport's snapshot (the report takes `report` over).
  explicit Report(prs_report *report) : report_(report, detail::ReportDeleter()) {
    poplar::detail::check(prs_report_graph(report, &info_));
  }

  /// The executions' blocks: from Engine::getReport() only; throws
  /// poplar_error for a report read from a file. (On a cpu engine,
  /// blocks() throws: that device models no cycles.)
  Execution execution() const {
    if (!report_)
      throw poplar::poplar_error("pva::Report::execution: a report that pva::openReport read holds the graph "
                                 "profile only; Engine::getReport() gives the lightweight profiler's blocks "
                                 "(see docs/host-api.md)");
    return Execution(report_);
  }
  Compilation compilation() const { return Compilation(info_); }
  Version poplarVersion() const { return Version(info_.version); }
  /// The counts this report answers with (for the project's headers).
  const prs_report_info &info() const { return info_; }

private:
  prs_report_info info_;
  detail::ReportHandle report_;
};

/// Opens the report autoReport wrote: `reportPath` names profile.pop (its
/// folder's graph.json is read) or a graph.json. Throws poplar_error when
/// there is none.
inline Report openReport(const std::string &reportPath, const std::string &debugPath = "") {
  (void)debugPath;
  prs_report_info info;
  poplar::detail::check(prs_report_open(reportPath.c_str(), &info));
  return Report(info);
}

} // namespace pva

#endif

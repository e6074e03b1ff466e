// libpva's report API: a subset over this project's own profiles.
//
// pva::openReport reads the graph profile autoReport writes (graph.json in
// the folder of the profile.pop path Poplar programs pass): the report's
// compilation (graph and target counts) and the version. The execution
// side (Report::execution, blocks, Engine::getReport) is declared so that
// programs using it compile with -fsyntax-only; any call to it is a compile
// error (GCC, Clang) or a link error (other compilers) whose message names
// docs/host-api.md.
#ifndef PRS_PVA_PVA_HPP
#define PRS_PVA_PVA_HPP

#include <poplar/detail/TransitiveIncludes.hpp>
#include <poplar/capi.h>
#include <poplar/detail/Unavailable.hpp>
#include <poplar/exceptions.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pva {

/// A program step of the profiled executable.
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
    Other
  };

  PRS_PVA_NOT_IMPLEMENTED std::string name() const;
  PRS_PVA_NOT_IMPLEMENTED Type type() const;
};

/// A span of cycles a tile spent in one program step.
class Block {
public:
  PRS_PVA_NOT_IMPLEMENTED std::uint64_t cyclesFrom() const;
  PRS_PVA_NOT_IMPLEMENTED std::uint64_t cyclesTo() const;
  PRS_PVA_NOT_IMPLEMENTED unsigned tile() const;
  PRS_PVA_NOT_IMPLEMENTED std::shared_ptr<Program> program() const;
  PRS_PVA_NOT_IMPLEMENTED bool isStreamCopy() const;
  PRS_PVA_NOT_IMPLEMENTED bool isCommon() const;
  PRS_PVA_NOT_IMPLEMENTED bool isOverflow() const;
  PRS_PVA_NOT_IMPLEMENTED bool isBlockFlush() const;
};

class Execution {
public:
  PRS_PVA_NOT_IMPLEMENTED std::vector<Block> blocks(unsigned tile) const;
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
  explicit Report(const prs_report_info &info) : info_(info) {}
  PRS_PVA_NOT_IMPLEMENTED Execution execution() const;
  Compilation compilation() const { return Compilation(info_); }
  Version poplarVersion() const { return Version(info_.version); }

private:
  prs_report_info info_;
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

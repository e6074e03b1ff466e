// Declarations of libpva's report API, without an implementation.
//
// libpva reads Poplar's profile.pop reports; this project writes its own
// profiles (printProfileSummary, autoReport.*) and does not implement pva.
// The classes are declared so that programs using them compile with
// -fsyntax-only; any call to them is a compile error (GCC, Clang) or a link
// error (other compilers) whose message names docs/host-api.md.
#ifndef PRS_PVA_PVA_HPP
#define PRS_PVA_PVA_HPP

#include <poplar/detail/TransitiveIncludes.hpp>
#include <poplar/detail/Unavailable.hpp>

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

class Graph {
public:
  PRS_PVA_NOT_IMPLEMENTED std::uint64_t numComputeSets() const;
  PRS_PVA_NOT_IMPLEMENTED std::uint64_t numVertices() const;
};

class Target {
public:
  PRS_PVA_NOT_IMPLEMENTED unsigned numTiles() const;
  PRS_PVA_NOT_IMPLEMENTED unsigned numIPUs() const;
};

class Compilation {
public:
  PRS_PVA_NOT_IMPLEMENTED Graph graph() const;
  PRS_PVA_NOT_IMPLEMENTED Target target() const;
};

class Version {
public:
  PRS_PVA_NOT_IMPLEMENTED std::string string() const;
};

class Report {
public:
  PRS_PVA_NOT_IMPLEMENTED Execution execution() const;
  PRS_PVA_NOT_IMPLEMENTED Compilation compilation() const;
  PRS_PVA_NOT_IMPLEMENTED Version poplarVersion() const;
};

PRS_PVA_NOT_IMPLEMENTED Report openReport(const std::string &reportPath, const std::string &debugPath = "");

} // namespace pva

#endif

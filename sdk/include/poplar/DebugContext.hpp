// The name argument every graph-building call takes.
//
// Poplar names are free text: any characters, empty, repeated between
// objects. They are display names (profiles, messages); the library makes
// its own unique identifiers. A DebugContext is built implicitly from a
// `const char *`, a `std::string` or a StringRef.
#ifndef PRS_POPLAR_DEBUGCONTEXT_HPP
#define PRS_POPLAR_DEBUGCONTEXT_HPP

#include <poplar/StringRef.hpp>

#include <string>

namespace poplar {

/// A name handed down from an enclosing operation.
class DebugNameAndId {
public:
  DebugNameAndId() {}
  explicit DebugNameAndId(const std::string &name) : name_(name) {}
  const std::string &getPathName() const { return name_; }

private:
  std::string name_;
};

class DebugContext {
public:
  DebugContext() {}
  DebugContext(const char *name) : name_(name != nullptr ? name : "") {}
  DebugContext(const std::string &name) : name_(name) {}
  DebugContext(StringRef name) : name_(name.cloneAsString()) {}
  /// A name inside an enclosing operation's: "outer/name" (or "outer").
  DebugContext(const DebugNameAndId &parent, StringRef name = "")
      : name_(join(parent.getPathName(), name.cloneAsString())) {}

  /// The full name, as passed to the library.
  const std::string &getPathName() const { return name_; }

private:
  static std::string join(const std::string &outer, const std::string &inner) {
    if (outer.empty())
      return inner;
    if (inner.empty())
      return outer;
    return outer + "/" + inner;
  }

  std::string name_;
};

} // namespace poplar

#endif

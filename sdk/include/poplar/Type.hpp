// Element types of tensors: a small value compared by its tag.
//
// The Poplar SDK exports FLOAT, INT, ... as objects from its library. A
// library written in Rust cannot export C++ objects, so here they are
// constants defined in the header (internal linkage, one copy per
// translation unit); two Types are equal when their tags are, whichever
// copy they came from.
#ifndef PRS_POPLAR_TYPE_HPP
#define PRS_POPLAR_TYPE_HPP

#include <poplar/capi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace poplar {

class Type {
public:
  /// An invalid type, for default-constructed members.
  constexpr Type() : tag_(-1) {}
  /// The type with this C ABI tag (for the project's headers).
  constexpr explicit Type(prs_type tag) : tag_(static_cast<int32_t>(tag)) {}

  /// Poplar's spelling of the type, as used in vertex template arguments
  /// ("float", "unsigned int", ...).
  std::string toString() const {
    switch (tag_) {
    case PRS_BOOL:
      return "bool";
    case PRS_CHAR:
      return "char";
    case PRS_SIGNED_CHAR:
      return "signed char";
    case PRS_UNSIGNED_CHAR:
      return "unsigned char";
    case PRS_SHORT:
      return "short";
    case PRS_UNSIGNED_SHORT:
      return "unsigned short";
    case PRS_INT:
      return "int";
    case PRS_UNSIGNED_INT:
      return "unsigned int";
    case PRS_LONGLONG:
      return "long long";
    case PRS_UNSIGNED_LONGLONG:
      return "unsigned long long";
    case PRS_HALF:
      return "half";
    case PRS_FLOAT:
      return "float";
    case PRS_DOUBLE:
      return "double";
    case PRS_QUARTER:
      return "quarter";
    default:
      return "<invalid type>";
    }
  }

  bool isFloatingPoint() const {
    return tag_ == PRS_HALF || tag_ == PRS_FLOAT || tag_ == PRS_DOUBLE || tag_ == PRS_QUARTER;
  }

  /// The C ABI tag (enum prs_type; -1 for an invalid type).
  constexpr int32_t abiTag() const { return tag_; }

  constexpr bool operator==(const Type &other) const { return tag_ == other.tag_; }
  constexpr bool operator!=(const Type &other) const { return tag_ != other.tag_; }
  constexpr bool operator<(const Type &other) const { return tag_ < other.tag_; }

  std::size_t hash() const { return std::hash<int32_t>()(tag_); }

private:
  int32_t tag_;
};

inline std::ostream &operator<<(std::ostream &os, const Type &type) { return os << type.toString(); }

static constexpr Type BOOL(PRS_BOOL);
static constexpr Type CHAR(PRS_CHAR);
static constexpr Type SIGNED_CHAR(PRS_SIGNED_CHAR);
static constexpr Type UNSIGNED_CHAR(PRS_UNSIGNED_CHAR);
static constexpr Type SHORT(PRS_SHORT);
static constexpr Type UNSIGNED_SHORT(PRS_UNSIGNED_SHORT);
static constexpr Type INT(PRS_INT);
static constexpr Type UNSIGNED_INT(PRS_UNSIGNED_INT);
static constexpr Type LONGLONG(PRS_LONGLONG);
static constexpr Type UNSIGNED_LONGLONG(PRS_UNSIGNED_LONGLONG);
static constexpr Type HALF(PRS_HALF);
static constexpr Type FLOAT(PRS_FLOAT);
static constexpr Type QUARTER(PRS_QUARTER);

} // namespace poplar

namespace std {
template <> struct hash<poplar::Type> {
  std::size_t operator()(const poplar::Type &type) const { return type.hash(); }
};
} // namespace std

#endif

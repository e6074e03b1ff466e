// Reading and writing popops::Operation by name ("add", "square-add", ...).
#ifndef PRS_POPOPS_OPERATION_HPP
#define PRS_POPOPS_OPERATION_HPP

#include <popops/OperationDef.hpp>

#include <istream>
#include <ostream>
#include <string>

namespace popops {

namespace detail {
struct OperationName {
  Operation op;
  const char *name;
};

inline const OperationName *operationNames(unsigned &count) {
  static const OperationName names[] = {
      {Operation::ADD, "add"},
      {Operation::MUL, "mul"},
      {Operation::MIN, "min"},
      {Operation::MAX, "max"},
      {Operation::LOGICAL_AND, "logical-and"},
      {Operation::LOGICAL_OR, "logical-or"},
      {Operation::SQUARE_ADD, "square-add"},
      {Operation::LOG_ADD, "log-add"},
  };
  count = sizeof names / sizeof names[0];
  return names;
}
} // namespace detail

inline std::ostream &operator<<(std::ostream &os, const Operation &op) {
  unsigned count = 0;
  const detail::OperationName *names = detail::operationNames(count);
  for (unsigned i = 0; i < count; ++i)
    if (names[i].op == op)
      return os << names[i].name;
  return os << "<invalid operation>";
}

/// Reads a name written by operator<<; sets failbit for any other word.
inline std::istream &operator>>(std::istream &is, Operation &op) {
  std::string word;
  if (!(is >> word))
    return is;
  unsigned count = 0;
  const detail::OperationName *names = detail::operationNames(count);
  for (unsigned i = 0; i < count; ++i) {
    if (word == names[i].name) {
      op = names[i].op;
      return is;
    }
  }
  is.setstate(std::ios::failbit);
  return is;
}

} // namespace popops

#endif

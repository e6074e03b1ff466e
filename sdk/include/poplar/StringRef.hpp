// A non-owning view of characters, accepted wherever Poplar takes a handle,
// a vertex type or a file name.
//
// It is built implicitly from `const char *` and `std::string` and need not
// be NUL-terminated; the headers copy it into a std::string before handing
// it to the C ABI.
#ifndef PRS_POPLAR_STRINGREF_HPP
#define PRS_POPLAR_STRINGREF_HPP

#include <poplar/ArrayRef.hpp>

#include <cstddef>
#include <cstring>
#include <ostream>
#include <string>

namespace poplar {

class StringRef : public ArrayRef<char> {
public:
  constexpr StringRef() : ArrayRef<char>() {}
  StringRef(std::nullptr_t) = delete;
  StringRef(const std::string &s) : ArrayRef<char>(s.data(), s.size()) {}
  StringRef(const char *p) : ArrayRef<char>(p, std::strlen(p)) {}
  constexpr StringRef(const char *p, std::size_t len) : ArrayRef<char>(p, len) {}

  std::string cloneAsString() const { return empty() ? std::string() : std::string(data(), size()); }
  operator std::string() const { return cloneAsString(); }
};

inline bool operator==(StringRef l, StringRef r) {
  return l.size() == r.size() && (l.empty() || std::memcmp(l.data(), r.data(), l.size()) == 0);
}
inline bool operator!=(StringRef l, StringRef r) { return !(l == r); }

inline std::ostream &operator<<(std::ostream &os, StringRef s) {
  return os.write(s.data(), static_cast<std::streamsize>(s.size()));
}

} // namespace poplar

#endif

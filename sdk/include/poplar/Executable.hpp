// A compiled graph and its programs, ready to load into an Engine.
//
// compileGraph makes one; serialize writes the library's executable image
// and deserialize reads it back. An image holds native code for the host
// CPU: deserialize only images you trust (docs/host-api.md).
#ifndef PRS_POPLAR_EXECUTABLE_HPP
#define PRS_POPLAR_EXECUTABLE_HPP

#include <poplar/capi.h>
#include <poplar/exceptions.hpp>

#include <cstddef>
#include <istream>
#include <iterator>
#include <ostream>
#include <string>
#include <utility>

namespace poplar {

class Executable {
public:
  /// Takes ownership of a C ABI executable (for the project's headers).
  explicit Executable(prs_executable *owned) : exe_(owned) {}

  Executable(Executable &&other) noexcept : exe_(other.exe_) { other.exe_ = nullptr; }
  Executable &operator=(Executable &&other) noexcept {
    std::swap(exe_, other.exe_);
    return *this;
  }
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;
  ~Executable() {
    if (exe_ != nullptr)
      prs_executable_free(exe_);
  }

  void serialize(std::ostream &out) const {
    char *bytes = nullptr;
    size_t len = 0;
    detail::check(prs_executable_serialize(need(), &bytes, &len));
    out.write(bytes, static_cast<std::streamsize>(len));
    prs_bytes_free(bytes, len);
    if (!out)
      throw poplar_error("Executable::serialize: writing the stream failed");
  }

  /// Reads an image written by serialize; parse_error if it is not one.
  static Executable deserialize(std::istream &in) {
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    prs_executable *exe = nullptr;
    detail::check(prs_executable_deserialize(bytes.data(), bytes.size(), &exe));
    return Executable(exe);
  }

  /// Gives up ownership of the C ABI executable (for the project's headers).
  prs_executable *release() {
    prs_executable *exe = need();
    exe_ = nullptr;
    return exe;
  }

private:
  prs_executable *need() const {
    if (exe_ == nullptr)
      throw poplar_error("operation on a moved-from or consumed Executable");
    return exe_;
  }

  prs_executable *exe_;
};

} // namespace poplar

#endif

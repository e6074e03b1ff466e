// Which host C++ types can carry tensor values, and which device type each
// corresponds to.
//
// Graph::addConstant, setInitialValue and connect(field, value) take host
// values of any arithmetic type; the C ABI receives them as raw memory plus
// a host-type tag (enum prs_type), and the library converts to the tensor's
// element type.
#ifndef PRS_POPLAR_TYPETRAITS_HPP
#define PRS_POPLAR_TYPETRAITS_HPP

#include <poplar/Type.hpp>

#include <cstdint>
#include <type_traits>

namespace poplar {

struct TypeTraits {
  /// Whether values of T can be passed by value as tensor elements.
  template <typename T> static constexpr bool isSimpleType() {
    return std::is_arithmetic<typename std::remove_cv<T>::type>::value;
  }
};

namespace detail {

/// The C ABI host-type tag of a host C++ type. Only arithmetic types have
/// one; anything else fails to compile.
template <typename T> struct HostType;

#define PRS_HOST_TYPE(CppType, Tag)                                                                               \
  template <> struct HostType<CppType> {                                                                          \
    static constexpr int32_t tag() { return Tag; }                                                                \
  };

PRS_HOST_TYPE(bool, PRS_BOOL)
PRS_HOST_TYPE(char, PRS_CHAR)
PRS_HOST_TYPE(signed char, PRS_SIGNED_CHAR)
PRS_HOST_TYPE(unsigned char, PRS_UNSIGNED_CHAR)
PRS_HOST_TYPE(short, PRS_SHORT)
PRS_HOST_TYPE(unsigned short, PRS_UNSIGNED_SHORT)
PRS_HOST_TYPE(int, PRS_INT)
PRS_HOST_TYPE(unsigned, PRS_UNSIGNED_INT)
PRS_HOST_TYPE(long, sizeof(long) == 8 ? PRS_LONGLONG : PRS_INT)
PRS_HOST_TYPE(unsigned long, sizeof(unsigned long) == 8 ? PRS_UNSIGNED_LONGLONG : PRS_UNSIGNED_INT)
PRS_HOST_TYPE(long long, PRS_LONGLONG)
PRS_HOST_TYPE(unsigned long long, PRS_UNSIGNED_LONGLONG)
PRS_HOST_TYPE(float, PRS_FLOAT)
PRS_HOST_TYPE(double, PRS_DOUBLE)

#undef PRS_HOST_TYPE

template <typename T> struct HostType<const T> : HostType<T> {};

} // namespace detail

/// The device type that holds values of host type T (`.value`), as in the
/// Poplar SDK; double maps to FLOAT. Undefined for other host types.
template <typename T> struct equivalent_device_type;

#define PRS_DEVICE_TYPE(CppType, Tag)                                                                             \
  template <> struct equivalent_device_type<CppType> {                                                            \
    Type value = Type(Tag);                                                                                       \
  };

PRS_DEVICE_TYPE(bool, PRS_BOOL)
PRS_DEVICE_TYPE(char, PRS_CHAR)
PRS_DEVICE_TYPE(signed char, PRS_SIGNED_CHAR)
PRS_DEVICE_TYPE(unsigned char, PRS_UNSIGNED_CHAR)
PRS_DEVICE_TYPE(short, PRS_SHORT)
PRS_DEVICE_TYPE(unsigned short, PRS_UNSIGNED_SHORT)
PRS_DEVICE_TYPE(int, PRS_INT)
PRS_DEVICE_TYPE(unsigned, PRS_UNSIGNED_INT)
PRS_DEVICE_TYPE(long, sizeof(long) == 8 ? PRS_LONGLONG : PRS_INT)
PRS_DEVICE_TYPE(unsigned long, sizeof(unsigned long) == 8 ? PRS_UNSIGNED_LONGLONG : PRS_UNSIGNED_INT)
PRS_DEVICE_TYPE(long long, PRS_LONGLONG)
PRS_DEVICE_TYPE(unsigned long long, PRS_UNSIGNED_LONGLONG)
PRS_DEVICE_TYPE(float, PRS_FLOAT)
PRS_DEVICE_TYPE(double, PRS_FLOAT)

#undef PRS_DEVICE_TYPE

} // namespace poplar

#endif

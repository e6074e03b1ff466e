//! The built-in headers (`<poplar/Vertex.hpp>`, `<cmath>`, …), as strings.
//!
//! The vertex model's names (`Vertex`, `Input`, `Vector`, the layouts, `half`)
//! and the library functions are known to the front end itself, so these
//! headers only carry the macros codelets expect to find in them, and the
//! few names Poplar's own headers declare that are plain C++ (`rptsize_t`).
//! (`poplar::IeeeHalf` is `half` with `bit16()` and `fromBits`, known to the
//! front end.) `quarter` is a scalar type of the front end too; the rest of
//! `<poplar/QuarterFloat.hpp>` (the metadata struct, its packed byte and the
//! conversions) is C++ here, over two built-in calls that reach
//! `linker::quarter` (docs/codelets.md, "quarter"). `<poplar/Vertex.hpp>`
//! includes it, as Poplar's does. Any of them can be included any number of
//! times.

/// The text of built-in header `name`, if popc provides it.
pub fn builtin_header(name: &str) -> Option<&'static str> {
    Some(match name {
        "poplar/Vertex.hpp" => {
            "#pragma once\n#include <poplar/Loops.hpp>\n#include <poplar/QuarterFloat.hpp>\n#include <ipudef.h>\n\
             #define IS_EXTERNAL_CODELET(x) static const bool isExternalCodelet = (x)\n\
             #define WORKER_ALIGN alignas(8)\n"
        }
        // The type of a hardware repeat count, which codelets use as a cast.
        "poplar/Loops.hpp" => "#pragma once\ntypedef unsigned rptsize_t;\n",
        // The constants Poplar's header gives the C++ path: workers per tile,
        // the AMP input load widths, the 21-bit tile address and the
        // 10-bit stride fields of the load/store instructions.
        "poplar/TileConstants.hpp" => {
            "#pragma once\n#define CTXT_WORKERS 6\n#define NUM_WORKERS 6\n\
             #define CONV_UNIT_INPUT_LOAD_ELEMS_FLOAT 2\n#define CONV_UNIT_INPUT_LOAD_ELEMS_HALF 4\n\
             #define TMEM_BYTE_MAX_ADDRESS_WIDTH 21\n#define NUM_STRIDE_BITS 10\n"
        }
        "poplar/HalfFloat.hpp"
        | "poplar/AvailableVTypes.h"
        | "poplar/StackSizeDefs.hpp"
        | "poplar/Alignment.hpp"
        | "poplar/IeeeHalf.hpp"
         => "#pragma once\n",
        // One text under several names: the other names include it, so
        // `#pragma once` keeps its classes to one definition.
        "ipudef.h" => super::vector_types::ipudef(),
        "poplar/VectorTypes.hpp" => "#pragma once\n#include <ipudef.h>\n",
        "ipu_vector_math" => super::vector_types::ipu_helpers(),
        "ipu_builtins.h" | "ipu_memory_intrinsics" => "#pragma once\n#include <ipu_vector_math>\n",
        "poplar/QuarterFloat.hpp" => QUARTER_FLOAT,
        "cmath" | "math.h" => {
            "#pragma once\n#define M_PI 3.14159265358979323846\n#define M_E 2.7182818284590452354\n\
             #define M_SQRT2 1.41421356237309504880\n#define M_LN2 0.69314718055994530942\n\
             #define INFINITY (__builtin_inff())\n#define NAN (__builtin_nanf(\"\"))\n"
        }
        "cstdint" | "stdint.h" => {
            "#pragma once\n#define INT32_MAX 2147483647\n#define INT32_MIN (-2147483647-1)\n\
             #define UINT32_MAX 4294967295u\n#define INT16_MAX 32767\n#define INT16_MIN (-32768)\n\
             #define UINT16_MAX 65535\n#define INT8_MAX 127\n#define INT8_MIN (-128)\n#define UINT8_MAX 255\n"
        }
        // Pairs and tuples of up to four elements are plain structs (popc has
        // no variadic templates); `std::tie(…) = t` is built in.
        "utility" => {
            "#pragma once\nnamespace std {\n\
             template <class A, class B> struct pair { A first; B second; };\n\
             template <class A, class B> pair<A, B> make_pair(A a, B b) { return {a, b}; }\n}\n"
        }
        "tuple" => {
            "#pragma once\n#include <utility>\nnamespace std {\n\
             template <class A, class B = void, class C = void, class D = void> struct tuple { A a; B b; C c; D d; };\n\
             template <class A, class B, class C> struct tuple<A, B, C, void> { A a; B b; C c; };\n\
             template <class A, class B> struct tuple<A, B, void, void> { A a; B b; };\n\
             template <class A> struct tuple<A, void, void, void> { A a; };\n}\n"
        }
        "cstdlib" | "stdlib.h" | "cstring" | "string.h" | "limits" | "type_traits" | "algorithm"
        | "array" | "print.h" | "cstdio" | "stdio.h" | "cstddef" | "stddef.h" => {
            "#pragma once\n"
        }
        // The edge and layout names (`VectorLayout`, `VectorListLayout`) are
        // the front end's own, as `Input` and `Vector` are.
        "poplar/FieldTypes.hpp" => "#pragma once\n",
        // Nothing of `<memory>` allocates on a tile; what a codelet names
        // from it is an error naming the name where it is used.
        "memory" => "#pragma once\n",
        "functional" => FUNCTIONAL,
        "cassert" | "assert.h" => "#pragma once\n",
        "climits" | "limits.h" => {
            "#pragma once\n#define INT_MAX 2147483647\n#define INT_MIN (-2147483647-1)\n\
             #define UINT_MAX 4294967295u\n#define SHRT_MAX 32767\n#define SHRT_MIN (-32768)\n\
             #define USHRT_MAX 65535\n#define CHAR_BIT 8\n"
        }
        "cfloat" | "float.h" => {
            "#pragma once\n#define FLT_MAX 3.40282347e+38f\n#define FLT_MIN 1.17549435e-38f\n\
             #define FLT_EPSILON 1.19209290e-07f\n"
        }
        _ => return None,
    })
}

/// `<functional>`: the arithmetic, comparison and logical function
/// objects, each a class template whose call operator applies its
/// operator to arguments of the element type (`std::function`, which
/// would allocate, is not among them).
const FUNCTIONAL: &str = r#"#pragma once
namespace std {
template <class T> struct plus { T operator()(const T &x, const T &y) const { return x + y; } };
template <class T> struct minus { T operator()(const T &x, const T &y) const { return x - y; } };
template <class T> struct multiplies { T operator()(const T &x, const T &y) const { return x * y; } };
template <class T> struct divides { T operator()(const T &x, const T &y) const { return x / y; } };
template <class T> struct modulus { T operator()(const T &x, const T &y) const { return x % y; } };
template <class T> struct negate { T operator()(const T &x) const { return -x; } };
template <class T> struct equal_to { bool operator()(const T &x, const T &y) const { return x == y; } };
template <class T> struct not_equal_to { bool operator()(const T &x, const T &y) const { return x != y; } };
template <class T> struct less { bool operator()(const T &x, const T &y) const { return x < y; } };
template <class T> struct greater { bool operator()(const T &x, const T &y) const { return x > y; } };
template <class T> struct less_equal { bool operator()(const T &x, const T &y) const { return x <= y; } };
template <class T> struct greater_equal { bool operator()(const T &x, const T &y) const { return x >= y; } };
template <class T> struct logical_and { bool operator()(const T &x, const T &y) const { return x && y; } };
template <class T> struct logical_or { bool operator()(const T &x, const T &y) const { return x || y; } };
template <class T> struct logical_not { bool operator()(const T &x) const { return !x; } };
template <class T> struct bit_and { T operator()(const T &x, const T &y) const { return x & y; } };
template <class T> struct bit_or { T operator()(const T &x, const T &y) const { return x | y; } };
template <class T> struct bit_xor { T operator()(const T &x, const T &y) const { return x ^ y; } };
}
"#;

/// `<poplar/QuarterFloat.hpp>`: Poplar's public names for `quarter` data.
/// The metadata byte: bit 7 set for 1.4.3, bits 0-5 the scale in two's
/// complement. `toQuarter` without `nanoo` gives NaN on overflow, the
/// choice PopLibs makes where the hardware flag is absent.
const QUARTER_FLOAT: &str = r#"#pragma once
struct quarter_metadata {
  enum format { f143, f152 };
  int fmt; // a `format`
  signed char scale;
};
typedef unsigned char MetadataType;
inline quarter_metadata unpackMetadata(const MetadataType *in) {
  quarter_metadata md;
  md.fmt = (*in & 0x80) ? quarter_metadata::f143 : quarter_metadata::f152;
  int scale = *in & 0x3f;
  md.scale = (scale & 0x20) ? scale - 64 : scale;
  return md;
}
inline float toFloat(quarter q, quarter_metadata md) {
  return __builtin_popc_quarter_to_float(q, md.fmt == quarter_metadata::f143, md.scale);
}
inline half toHalf(quarter q, quarter_metadata md) {
  return static_cast<half>(toFloat(q, md));
}
template <typename T> inline quarter toQuarter(T value, quarter_metadata md, bool nanoo = true) {
  return __builtin_popc_float_to_quarter(static_cast<float>(value), md.fmt == quarter_metadata::f143,
                                         md.scale, nanoo);
}
"#;

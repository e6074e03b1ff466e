//! The IPU's vector types (`float2`, `half4`, `int2`, …) and the portable
//! `ipu::` and `__builtin_ipu_*` helpers, as the C++ text of built-in
//! headers.
//!
//! Poplar's `<ipudef.h>` declares the vector types as clang vectors
//! (`ext_vector_type`). popc gives each one as an instance of a small
//! struct template with one member per element (`x`, `y`, `z`, `w`) and
//! member operators with the vector semantics of C++'s vector extensions:
//! element-wise arithmetic, comparisons giving the integer vector of the
//! same element size with -1 for true and 0 for false, and compound
//! assignment. `sema` names and aligns the instances as the vector types
//! ([`vector_instance`], `ClassInst::vector`), so vectors are ordinary
//! objects for the rest of the compiler (locals, parameters, returns,
//! members, arrays, pointers into tile memory); the lowering
//! (`lower::expr::vector`) knows them only where C++ gives them more than
//! a struct has: a scalar operand broadcast to every element, `v[i]`
//! checked against the element count, alignment traps through pointers,
//! the errors for mixing vectors of different types, and their cost.
//!
//! Arithmetic on elements is the scalar arithmetic of the element type,
//! so `half` elements round as scalar `half` does, and integer elements
//! wrap to their width as the element-wise store does in C++.

use std::sync::OnceLock;

/// One vector type: its name, element type (as C++ spells it), element
/// count, and the integer vector its comparisons give.
pub struct VectorType {
    pub name: &'static str,
    pub elem: &'static str,
    pub n: u32,
    pub elem_size: u32,
    pub mask: &'static str,
    pub float: bool,
}

/// Every vector type, masks (the integer ones) first so the others can
/// name them.
pub const VECTOR_TYPES: [VectorType; 17] = [
    vt("char2", "char", 2, 1, "char2", false),
    vt("char4", "char", 4, 1, "char4", false),
    vt("uchar2", "unsigned char", 2, 1, "char2", false),
    vt("uchar4", "unsigned char", 4, 1, "char4", false),
    vt("short2", "short", 2, 2, "short2", false),
    vt("short4", "short", 4, 2, "short4", false),
    vt("ushort2", "unsigned short", 2, 2, "short2", false),
    vt("ushort4", "unsigned short", 4, 2, "short4", false),
    vt("int2", "int", 2, 4, "int2", false),
    vt("int4", "int", 4, 4, "int4", false),
    vt("uint2", "unsigned int", 2, 4, "int2", false),
    vt("uint4", "unsigned int", 4, 4, "int4", false),
    vt("long2", "long", 2, 8, "long2", false),
    vt("half2", "half", 2, 2, "short2", true),
    vt("half4", "half", 4, 2, "short4", true),
    vt("float2", "float", 2, 4, "int2", true),
    vt("float4", "float", 4, 4, "int4", true),
];

const fn vt(
    name: &'static str,
    elem: &'static str,
    n: u32,
    elem_size: u32,
    mask: &'static str,
    float: bool,
) -> VectorType {
    VectorType { name, elem, n, elem_size, mask, float }
}

/// The vector type named `name`.
pub fn vector_info(name: &str) -> Option<&'static VectorType> {
    VECTOR_TYPES.iter().find(|v| v.name == name)
}

/// The class templates the vector types are instances of, by element
/// count: `__popc_vec2<T, E>` holds two `T`s, and its comparisons give
/// `__popc_vec2<E, E>`.
pub const TEMPLATES: [(&str, u32); 2] = [("__popc_vec2", 2), ("__popc_vec4", 4)];

/// The vector type an instance of template `template` with element type
/// `elem` and mask element type `mask_elem` (as C++ spells them) is: the
/// name it goes by in messages and vertex names.
pub fn vector_instance(template: &str, elem: &str, mask_elem: &str) -> Option<&'static VectorType> {
    let n = TEMPLATES.iter().find(|t| t.0 == template)?.1;
    VECTOR_TYPES
        .iter()
        .find(|v| v.n == n && v.elem == elem && vector_info(v.mask).is_some_and(|m| m.elem == mask_elem))
}

const MEMBERS: [&str; 4] = ["x", "y", "z", "w"];

/// `<ipudef.h>`: the vector types and the `__builtin_ipu_*` built-ins with a
/// plain meaning. The types are two class templates (instantiated only
/// when used, so the header costs little to the files that use none) and
/// a `typedef` per type; a scalar operand is broadcast by the lowering
/// (`lower::expr::vector`), so the operators take vectors only.
pub fn ipudef() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        use std::fmt::Write;
        let mut s = String::from("#pragma once\n");
        for (name, n) in TEMPLATES {
            vector_template(&mut s, name, n);
        }
        for v in &VECTOR_TYPES {
            let (tname, _) = TEMPLATES.iter().find(|t| t.1 == v.n).copied().unwrap_or(TEMPLATES[0]);
            let mask_elem = vector_info(v.mask).map_or(v.elem, |m| m.elem);
            let _ = writeln!(s, "typedef {tname}<{}, {mask_elem}> {};", v.elem, v.name);
        }
        s.push_str(IPU_BUILTINS);
        s
    })
}

/// Element-wise `{f(a.x, b.x), f(a.y, b.y), ...}` for the first `n` members.
fn each(n: u32, f: impl Fn(&str) -> String) -> String {
    MEMBERS[..n as usize].iter().map(|m| f(m)).collect::<Vec<_>>().join(", ")
}

/// One class template: the elements, and the operators of C++'s vector
/// extensions on two vectors of the same type (the integer-only ones are
/// refused for float elements before they are called).
fn vector_template(s: &mut String, name: &str, n: u32) {
    use std::fmt::Write;
    let fields = MEMBERS[..n as usize].join(", ");
    let t = format!("{name}<T, E>");
    let _ = writeln!(s, "template <typename T, typename E> struct {name} {{\n  T {fields};");
    for op in ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"] {
        let vv = each(n, |m| format!("T({m} {op} o.{m})"));
        let cv =
            MEMBERS[..n as usize].iter().map(|m| format!("{m} = T({m} {op} o.{m}); ")).collect::<String>();
        let _ = writeln!(s, "  {t} operator{op}({t} o) const {{ return {t}{{{vv}}}; }}");
        let _ = writeln!(s, "  {t} &operator{op}=({t} o) {{ {cv}return *this; }}");
    }
    let neg = each(n, |m| format!("T(-{m})"));
    let not = each(n, |m| format!("T(~{m})"));
    let _ = writeln!(s, "  {t} operator-() const {{ return {t}{{{neg}}}; }}");
    let _ = writeln!(s, "  {t} operator+() const {{ return *this; }}");
    let _ = writeln!(s, "  {t} operator~() const {{ return {t}{{{not}}}; }}");
    for op in ["==", "!=", "<", ">", "<=", ">="] {
        let vv = each(n, |m| format!("E({m} {op} o.{m} ? -1 : 0)"));
        let _ = writeln!(s, "  {name}<E, E> operator{op}({t} o) const {{ return {name}<E, E>{{{vv}}}; }}");
    }
    s.push_str("};\n");
}

/// The `__builtin_ipu_*` built-ins that mean the same on any machine,
/// written over the maths library (the others, which read or write the
/// IPU's registers, stay errors naming the built-in).
const IPU_BUILTINS: &str = r#"inline float __builtin_ipu_exp2(float x) { return exp2f(x); }
inline float __builtin_ipu_cmplt(float a, float b) {
  int m = a < b ? -1 : 0;
  float r;
  memcpy(&r, &m, 4);
  return r;
}
inline float __builtin_ipu_andc_f32(float a, float b) {
  unsigned x, y;
  memcpy(&x, &a, 4);
  memcpy(&y, &b, 4);
  x = x & ~y;
  float r;
  memcpy(&r, &x, 4);
  return r;
}
inline bool __builtin_ipu_isnan(float x) { return x != x; }
inline bool __builtin_ipu_isinf(float x) { return x == __builtin_inff() || x == -__builtin_inff(); }
inline bool __builtin_ipu_isfinite(float x) { return !__builtin_ipu_isnan(x) && !__builtin_ipu_isinf(x); }
"#;

/// The `ipu::` helpers of one argument that are a maths function of
/// `<cmath>`, with that function's `float` name.
const UNARY: [(&str, &str); 8] = [
    ("fabs", "fabsf"),
    ("exp", "expf"),
    ("log", "logf"),
    ("sqrt", "sqrtf"),
    ("sin", "sinf"),
    ("cos", "cosf"),
    ("floor", "floorf"),
    ("erf", "erff"),
];
/// The helpers of one argument written as a formula over `<cmath>`.
const COMPOSED: [&str; 2] = ["rsqrt", "sigmoid"];
/// The helpers of two arguments, as [`UNARY`].
const BINARY: [(&str, &str); 5] =
    [("copysign", "copysignf"), ("fmin", "fminf"), ("fmax", "fmaxf"), ("fmod", "fmodf"), ("pow", "powf")];

/// The built-in header that declares `ipu::name`, if popc has it
/// (`ipu::load_postinc` is built into the lowering, `Lowerer::load_postinc`).
pub fn helper_header(name: &str) -> Option<&'static str> {
    helper_names().any(|h| h == name).then_some("ipu_vector_math")
}

/// The names of the `ipu::` helpers popc has, for "did you mean".
pub fn helper_names() -> impl Iterator<Item = &'static str> {
    UNARY.iter().chain(&BINARY).map(|h| h.0).chain(COMPOSED).chain(["load_postinc"])
}

/// `<ipu_vector_math>`, `<ipu_builtins.h>`, `<ipu_memory_intrinsics>`: the
/// `ipu::` helpers, with the maths library's meaning, for scalars and
/// (element-wise) vectors of `float` and `half`.
pub fn ipu_helpers() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        use std::fmt::Write;
        let mut s = String::from("#pragma once\n#include <ipudef.h>\nnamespace ipu {\n");
        let (unary, binary) = (UNARY, BINARY);
        for (f, c) in unary {
            let _ = writeln!(s, "inline float {f}(float x) {{ return ::{c}(x); }}");
            let _ = writeln!(s, "inline half {f}(half x) {{ return half(::{c}(float(x))); }}");
        }
        let _ = writeln!(s, "inline float rsqrt(float x) {{ return 1.0f / ::sqrtf(x); }}");
        let _ = writeln!(s, "inline half rsqrt(half x) {{ return half(1.0f / ::sqrtf(float(x))); }}");
        let _ = writeln!(s, "inline float sigmoid(float x) {{ return 1.0f / (1.0f + ::expf(-x)); }}");
        let _ =
            writeln!(s, "inline half sigmoid(half x) {{ return half(1.0f / (1.0f + ::expf(-float(x)))); }}");
        for (f, c) in binary {
            let _ = writeln!(s, "inline float {f}(float x, float y) {{ return ::{c}(x, y); }}");
            let _ =
                writeln!(s, "inline half {f}(half x, half y) {{ return half(::{c}(float(x), float(y))); }}");
        }
        let names: Vec<&str> = unary.iter().map(|u| u.0).chain(COMPOSED).collect();
        for v in VECTOR_TYPES.iter().filter(|v| v.float) {
            let (name, n) = (v.name, v.n);
            for f in &names {
                let body = each(n, |m| format!("{f}(x.{m})"));
                let _ = writeln!(s, "inline {name} {f}({name} x) {{ return {name}{{{body}}}; }}");
            }
            for (f, _) in binary {
                let body = each(n, |m| format!("{f}(x.{m}, y.{m})"));
                let _ = writeln!(s, "inline {name} {f}({name} x, {name} y) {{ return {name}{{{body}}}; }}");
            }
        }
        s.push_str("}\n");
        s
    })
}

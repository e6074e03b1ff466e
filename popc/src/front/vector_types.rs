//! The IPU's vector types (`float2`, `half4`, `int2`, …) and the portable
//! `ipu::` and `__builtin_ipu_*` helpers, as the C++ text of built-in
//! headers.
//!
//! Poplar's `<ipudef.h>` declares the vector types as clang vectors
//! (`ext_vector_type`). popc gives each one as a small struct with one
//! member per element (`x`, `y`, `z`, `w`), aligned to its size with
//! `alignas`, and member operators with the vector semantics C++'s vector
//! extensions have: element-wise arithmetic, a scalar operand broadcast to
//! every element (converted to the element type), comparisons giving the
//! integer vector of the same element size with -1 for true and 0 for
//! false, and compound assignment. So vectors are ordinary objects for the
//! rest of the compiler (locals, parameters, returns, members, arrays,
//! pointers into tile memory); the lowering knows them only where C++
//! gives them more than a struct has ([`vector_info`]): `v[i]` (checked
//! against the element count), alignment traps through pointers, and the
//! errors for mixing vectors of different types.
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

/// The vector type a class is, by its qualified name: `None` for any
/// other class (a user's own `float2` in a namespace is not one).
pub fn vector_info(qual: &str) -> Option<&'static VectorType> {
    VECTOR_TYPES.iter().find(|v| v.name == qual)
}

const MEMBERS: [&str; 4] = ["x", "y", "z", "w"];

/// `<ipudef.h>`: the vector types and the `__builtin_ipu_*` built-ins with a
/// plain meaning.
pub fn ipudef() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut s = String::from("#pragma once\n");
        for v in &VECTOR_TYPES {
            vector_struct(&mut s, v);
        }
        s.push_str(IPU_BUILTINS);
        s
    })
}

/// Element-wise `{f(a.x, b.x), f(a.y, b.y), ...}` for the first `n` members.
fn each(n: u32, f: impl Fn(&str) -> String) -> String {
    MEMBERS[..n as usize].iter().map(|m| f(m)).collect::<Vec<_>>().join(", ")
}

fn vector_struct(s: &mut String, v: &VectorType) {
    use std::fmt::Write;
    let (name, t, n, mask) = (v.name, v.elem, v.n, v.mask);
    let size = v.elem_size * n;
    let fields = MEMBERS[..n as usize].join(", ");
    let _ = writeln!(s, "struct alignas({size}) {name} {{\n  {t} {fields};");
    let mut ops = vec!["+", "-", "*", "/"];
    if !v.float {
        ops.extend(["%", "&", "|", "^", "<<", ">>"]);
    }
    for op in &ops {
        let vv = each(n, |m| format!("{t}({m} {op} o.{m})"));
        let vs = each(n, |m| format!("{t}({m} {op} o)"));
        let _ = writeln!(s, "  {name} operator{op}({name} o) const {{ return {name}{{{vv}}}; }}");
        let _ = writeln!(s, "  {name} operator{op}({t} o) const {{ return {name}{{{vs}}}; }}");
        let cv =
            MEMBERS[..n as usize].iter().map(|m| format!("{m} = {t}({m} {op} o.{m}); ")).collect::<String>();
        let cs = MEMBERS[..n as usize].iter().map(|m| format!("{m} = {t}({m} {op} o); ")).collect::<String>();
        let _ = writeln!(s, "  {name} &operator{op}=({name} o) {{ {cv}return *this; }}");
        let _ = writeln!(s, "  {name} &operator{op}=({t} o) {{ {cs}return *this; }}");
    }
    let neg = each(n, |m| format!("{t}(-{m})"));
    let _ = writeln!(s, "  {name} operator-() const {{ return {name}{{{neg}}}; }}");
    let _ = writeln!(s, "  {name} operator+() const {{ return *this; }}");
    if !v.float {
        let not = each(n, |m| format!("{t}(~{m})"));
        let _ = writeln!(s, "  {name} operator~() const {{ return {name}{{{not}}}; }}");
    }
    for op in ["==", "!=", "<", ">", "<=", ">="] {
        let vv = each(n, |m| format!("{m} {op} o.{m} ? -1 : 0"));
        let vs = each(n, |m| format!("{m} {op} o ? -1 : 0"));
        let _ = writeln!(s, "  {mask} operator{op}({name} o) const {{ return {mask}{{{vv}}}; }}");
        let _ = writeln!(s, "  {mask} operator{op}({t} o) const {{ return {mask}{{{vs}}}; }}");
    }
    s.push_str("};\n");
    // A scalar on the left: broadcast, in the operator's own order.
    let mut left = ops.clone();
    left.extend(["==", "!=", "<", ">", "<=", ">="]);
    for op in left {
        let cmp = matches!(op, "==" | "!=" | "<" | ">" | "<=" | ">=");
        let (ret, el) = if cmp { (mask, "") } else { (name, t) };
        let body =
            each(n, |m| if cmp { format!("a {op} b.{m} ? -1 : 0") } else { format!("{el}(a {op} b.{m})") });
        let _ = writeln!(s, "inline {ret} operator{op}({t} a, {name} b) {{ return {ret}{{{body}}}; }}");
    }
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

/// The functions of the `ipu::` namespace popc declares.
/// (`ipu::load_postinc` is built into the lowering, `Lowerer::load_postinc`.)
const HELPERS: [&str; 15] = [
    "fabs", "exp", "log", "sqrt", "sin", "cos", "floor", "erf", "rsqrt", "sigmoid", "copysign", "fmin",
    "fmax", "fmod", "pow",
];

/// The built-in header that declares `ipu::name`, if popc has it.
pub fn helper_header(name: &str) -> Option<&'static str> {
    HELPERS.contains(&name).then_some("ipu_vector_math")
}

/// `<ipu_vector_math>`, `<ipu_builtins.h>`, `<ipu_memory_intrinsics>`: the
/// `ipu::` helpers, with the maths library's meaning, for scalars and
/// (element-wise) vectors of `float` and `half`.
pub fn ipu_helpers() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        use std::fmt::Write;
        let mut s = String::from("#pragma once\n#include <ipudef.h>\nnamespace ipu {\n");
        let unary = [
            ("fabs", "fabsf"),
            ("exp", "expf"),
            ("log", "logf"),
            ("sqrt", "sqrtf"),
            ("sin", "sinf"),
            ("cos", "cosf"),
            ("floor", "floorf"),
            ("erf", "erff"),
        ];
        let binary = [
            ("copysign", "copysignf"),
            ("fmin", "fminf"),
            ("fmax", "fmaxf"),
            ("fmod", "fmodf"),
            ("pow", "powf"),
        ];
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
        let names: Vec<&str> = unary.iter().map(|u| u.0).chain(["rsqrt", "sigmoid"]).collect();
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

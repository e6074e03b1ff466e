//! `poprand`'s operations (`uniform`, `log_uniform`, `normal`,
//! `truncated_normal`, `bernoulli`, `dropout`): random values generated on
//! the tiles that hold the output, by a counter-based generator, so every
//! value depends only on the seed, the modifier and its index.
//!
//! The generator is SplitMix64 (Steele, Lea and Flood, "Fast splittable
//! pseudorandom number generators", OOPSLA 2014; the generator of Java's
//! `SplittableRandom`) used as a counter-based one: with `G =
//! 0x9E3779B97F4A7C15` and its finaliser `mix`, the stream of a seed `s`
//! (two 32-bit words, `s0 | s1 << 32`) and modifier `m` starts at `key =
//! mix(s ^ mix(G * (m + 1)))`, and draw `j` of output element `i` (in the
//! output's row-major order) is SplitMix64's output number `16 i + j` of
//! that stream, `mix(key + G * (16 i + j + 1))`. No state passes between
//! elements, tiles or workers, so the values are the same on `sim` and
//! `cpu`, for any thread count and any tile mapping. They are not the
//! IPU's: its hardware generator (xoroshiro128+ per tile, seeded per tile)
//! gives other values. The code is generated C++ compiled by `popc` with
//! the graph's other library vertices, so `sim` counts its cycles. See
//! `docs/pir-ops.md`, "Random numbers".

use std::fmt::Write;

use ir::{Diagnostic, ElemType, FieldValue, Literal, Modifier, Name, Op, RandomDist, Span, Stmt, View};

use super::codegen::cpp;
use super::{grain, slice, Expander};

/// The SplitMix64 finaliser and increment, in C++, as a free function
/// named `{name}_mix`.
fn mix_fn(name: &str) -> String {
    format!(
        "inline unsigned long long {name}_mix(unsigned long long z) {{\n\
         \x20 z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;\n\
         \x20 z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;\n\
         \x20 return z ^ (z >> 31);\n}}\n"
    )
}

/// A `float` literal in C++.
fn f(x: f64) -> String {
    let v = x as f32;
    format!("{v:?}f")
}

/// `2^32 * p` rounded: the threshold the high 32 bits of a draw are
/// compared with, so the event has probability `threshold / 2^32`.
pub(crate) fn threshold(p: f64) -> u64 {
    (p.clamp(0.0, 1.0) * 4294967296.0).round() as u64
}

/// The smallest `half` at least `x` and the largest at most `y`, as `f32`.
fn half_bounds(x: f64, y: f64) -> (f32, f32) {
    let up = |v: f64| {
        let h = half::f16::from_f64(v);
        if h.to_f64() < v {
            half::f16::from_bits(h.to_bits() + 1)
        } else {
            h
        }
    };
    let down = |v: f64| {
        let h = half::f16::from_f64(v);
        if h.to_f64() > v {
            half::f16::from_bits(h.to_bits() - 1)
        } else {
            h
        }
    };
    (up(x).to_f32(), down(y).to_f32())
}

/// C++ lines leaving element `i`'s value in `v` (a `float`, or for `int`
/// results a `long long`), from draw 0, `r`; `c` is the counter of draw 0
/// for further draws.
fn body(name: &str, dist: &RandomDist, t: ElemType) -> String {
    const U24: &str = "5.9604644775390625e-08f"; // 2^-24
    let uniform24 = |r: &str| format!("((float)({r} >> 40) * {U24})");
    let normal = |r: &str| {
        format!(
            "sqrtf(-2.0f * logf((float)(({r} >> 40) + 1ull) * {U24})) * cosf(6.2831855f * (float)({r} & 0xFFFFFFull) * {U24})"
        )
    };
    match dist {
        RandomDist::Uniform { min, max } if t == ElemType::Int => {
            let (lo, hi) = (min.ceil() as i64, max.floor() as i64);
            let range = (hi - lo + 1) as u64;
            let pick = if range >= 1 << 32 {
                "(long long)(r >> 32)".to_string()
            } else {
                format!("(long long)(((r >> 32) * {range}ull) >> 32)")
            };
            format!("      long long v = {lo}ll + {pick};\n")
        }
        RandomDist::Uniform { min, max } => {
            format!("      float v = {} + {} * {};\n", f(*min), f(max - min), uniform24("r"))
        }
        RandomDist::LogUniform { min, max, base } => {
            let (lmin, lmax) = (min.ln() / base.ln(), max.ln() / base.ln());
            let mut s = format!(
                "      float x = powf({}, {} + {} * {});\n",
                f(*base),
                f(lmin),
                f(lmax - lmin),
                uniform24("r")
            );
            let (lo, hi, round) = match t {
                ElemType::Int => (min.ceil() as f32, max.floor() as f32, "floorf(x + 0.5f)"),
                ElemType::Half => {
                    let (lo, hi) = half_bounds(*min, *max);
                    (lo, hi, "(float)(half)x")
                }
                _ => (*min as f32, *max as f32, "x"),
            };
            let _ = writeln!(
                s,
                "      float y = {round};\n      if (y < {lo:?}f) y = {lo:?}f;\n      if (y > {hi:?}f) y = {hi:?}f;"
            );
            if t == ElemType::Int {
                s.push_str("      long long v = (long long)y;\n");
            } else {
                s.push_str("      float v = y;\n");
            }
            s
        }
        RandomDist::Normal { mean, stddev } => {
            format!("      float v = {} + {} * ({});\n", f(*mean), f(*stddev), normal("r"))
        }
        RandomDist::TruncatedNormal { mean, stddev, alpha } => format!(
            "      float z = 0.0f;\n      bool ok = false;\n\
             \x20     for (unsigned j = 0; j < 15u && !ok; ++j) {{\n\
             \x20       unsigned long long d = {name}_mix(c + G * j);\n\
             \x20       z = {n};\n        ok = z <= {a} && z >= -{a};\n      }}\n\
             \x20     if (!ok) {{\n        unsigned long long d = {name}_mix(c + G * 15ull);\n\
             \x20       z = {a} * (2.0f * {u} - 1.0f);\n      }}\n\
             \x20     float v = {m} + {s} * z;\n",
            n = normal("d"),
            a = f(*alpha),
            u = uniform24("d"),
            m = f(*mean),
            s = f(*stddev),
        ),
        RandomDist::Bernoulli { prob } => {
            let ty = if t == ElemType::Int { "long long" } else { "float" };
            format!("      {ty} v = (r >> 32) < {}ull ? 1 : 0;\n", threshold(*prob))
        }
        RandomDist::Dropout { keep, scale, .. } => {
            let x = if t == ElemType::Half { "(float)in[i]" } else { "in[i]" };
            format!("      float v = (r >> 32) < {}ull ? {x} * {} : 0.0f;\n", threshold(*keep), f(*scale))
        }
    }
}

/// The vertex class of one random operation.
fn class(
    name: &str,
    dist: &RandomDist,
    t: ElemType,
    seed_t: ElemType,
    modifier: &Modifier,
    in_t: ElemType,
) -> String {
    let e = cpp(t);
    let mut s = mix_fn(name);
    let _ = write!(
        s,
        "class {name} : public MultiVertex {{\npublic:\n  Input<Vector<{}, ONE_PTR>> seed;\n",
        cpp(seed_t)
    );
    let m = match modifier {
        Modifier::Const(m) => format!("{m}ull"),
        Modifier::Tensor(_) => {
            s.push_str("  Input<Vector<unsigned, ONE_PTR>> mod;\n");
            "(unsigned long long)(unsigned)mod[0]".to_string()
        }
    };
    if matches!(dist, RandomDist::Dropout { .. }) {
        let _ = writeln!(s, "  Input<Vector<{}, ONE_PTR>> in;", cpp(in_t));
    }
    let _ = writeln!(s, "  Output<Vector<{e}>> out;\n  unsigned base;");
    let store = if t == ElemType::Half { "(half)v".to_string() } else { format!("({e})v") };
    let _ = write!(
        s,
        "  void compute(unsigned wid) {{\n    unsigned n = out.size();\n\
         \x20   unsigned chunk = (n + numWorkers() - 1) / numWorkers();\n    unsigned begin = wid * chunk;\n\
         \x20   unsigned end = begin + chunk;\n    if (begin > n) begin = n;\n    if (end > n) end = n;\n\
         \x20   const unsigned long long G = 0x9E3779B97F4A7C15ull;\n\
         \x20   unsigned long long s = (unsigned long long)(unsigned)seed[0] | ((unsigned long long)(unsigned)seed[1] << 32);\n\
         \x20   unsigned long long key = {name}_mix(s ^ {name}_mix(G * ({m} + 1ull)));\n\
         \x20   for (unsigned i = begin; i < end; ++i) {{\n\
         \x20     unsigned long long c = key + G * (16ull * ((unsigned long long)base + i) + 1ull);\n\
         \x20     unsigned long long r = {name}_mix(c);\n{body}\
         \x20     out[i] = {store};\n    }}\n  }}\n}};\n",
        body = body(name, dist, t),
    );
    s
}

pub(crate) fn expand(
    x: &mut Expander,
    op: &Op,
    dist: &RandomDist,
    seed: &View,
    modifier: &Modifier,
    like: &View,
    span: Span,
) -> Result<Vec<Stmt>, Diagnostic> {
    let t = x.graph.tensors[op.out.tensors()[0]].elem;
    let n = op.out.num_elements();
    if let Some(out) = x.unmapped_output(&op.out) {
        let ivs = match like.num_elements() == n && like.num_elements() > 0 {
            true => x.like_or_linear(like, n, grain(t)),
            false => x.linear(n, grain(t)),
        };
        x.set_mapping(out, ivs, span);
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    let elem_of =
        |x: &Expander, v: &View| v.tensors().first().map_or(ElemType::UInt, |t| x.graph.tensors[*t].elem);
    let seed_t = elem_of(x, seed);
    let input = match dist {
        RandomDist::Dropout { input, .. } => Some(input.flatten()),
        _ => None,
    };
    let in_t = input.as_ref().map_or(t, |v| elem_of(x, v));
    // The class depends on the parameters and types, not on the views.
    let m = match modifier {
        Modifier::Const(m) => format!("{m}"),
        Modifier::Tensor(_) => "tensor".to_string(),
    };
    let key = format!("{}{:?}|{t:?}|{seed_t:?}|{in_t:?}|{m}", dist.name(), dist.params());
    let class = x.code.class(&key, "Random", |name| class(name, dist, t, seed_t, modifier, in_t));
    let vtype = Name::from(class.as_str());
    let out_flat = op.out.flatten();
    let seed_flat = seed.flatten();
    let mod_flat = match modifier {
        Modifier::Tensor(v) => Some(v.flatten()),
        Modifier::Const(_) => None,
    };
    let jobs = x.tile_runs(&out_flat);
    let cs = x.compute_set(&format!("{}.{}", x.out_name(&op.out), dist.name()), span);
    for (tile, p, len) in jobs {
        let mut fields: Vec<(&str, FieldValue)> = vec![("seed", FieldValue::Edge(seed_flat.clone()))];
        if let Some(m) = &mod_flat {
            fields.push(("mod", FieldValue::Edge(m.clone())));
        }
        if let Some(v) = &input {
            fields.push(("in", FieldValue::Edge(slice(v, p, p + len))));
        }
        fields.push(("out", FieldValue::Edge(slice(&out_flat, p, p + len))));
        fields.push(("base", FieldValue::Literal(Literal::Int(p as i64))));
        x.vertex(cs, &vtype, tile, fields, span);
    }
    Ok(vec![Stmt::Execute(cs)])
}

//! `dynamic_slice` and `dynamic_update`: regions chosen at run time by
//! offsets in a device tensor.
//!
//! Which elements move is known only when the program runs, so the vertices
//! see the whole of the tensor they choose from. A slice runs one vertex per
//! contiguous run of its output on a tile, each reading all of the input
//! (fetched by exchange when it lives elsewhere); an update runs one vertex
//! per run of the written tensor on its own tile, each reading the whole
//! update and rewriting, in place, those of its elements the region covers.
//! Offsets are clamped to `[0, dim - size]`, so the region is always inside.
//! The shapes, dimensions and sizes are constants of the generated class.

use std::fmt::Write;

use ir::{Diagnostic, ElemType, FieldValue, Literal, Name, Op, Span, Stmt, View};

use super::codegen::cpp;
use super::{grain, slice, Expander};

/// C++ lines declaring the clamped offsets `o0, o1, …`.
fn offsets_code(shape: &[u64], dims: &[u32], sizes: &[u64]) -> String {
    let mut s = String::new();
    for (k, (&d, &n)) in dims.iter().zip(sizes).enumerate() {
        let hi = shape[d as usize] - n;
        let _ = writeln!(
            s,
            "    long long v{k} = (long long)off[{k}];\n    unsigned o{k} = v{k} < 0 ? 0u : (v{k} > {hi}ll ? {hi}u : (unsigned)v{k});"
        );
    }
    s
}

/// C++ statements turning flat index `f` (of a tensor of `shape`) into
/// coordinates `c0, c1, …`.
fn coords_code(shape: &[u64]) -> String {
    let mut s = String::from("      unsigned long long r = f;\n");
    for d in (0..shape.len()).rev() {
        let _ = writeln!(
            s,
            "      unsigned c{d} = (unsigned)(r % {}ull); r /= {}ull;",
            shape[d].max(1),
            shape[d].max(1)
        );
    }
    s
}

/// A flat index expression from coordinates `c{d}` plus per-dimension terms.
fn flat_code(shape: &[u64], term: &dyn Fn(usize) -> String) -> String {
    let mut s = String::from("0ull");
    for (d, &n) in shape.iter().enumerate() {
        s = format!("({s}) * {n}ull + ({})", term(d));
    }
    s
}

fn class_slice(
    name: &str,
    t: ElemType,
    ot: ElemType,
    in_shape: &[u64],
    out_shape: &[u64],
    dims: &[u32],
    sizes: &[u64],
) -> String {
    let k_of = |d: usize| dims.iter().position(|&x| x as usize == d);
    let src = flat_code(in_shape, &|d| match k_of(d) {
        Some(k) => format!("c{d} + o{k}"),
        None => format!("c{d}"),
    });
    format!(
        "class {name} : public MultiVertex {{\npublic:\n  Input<Vector<{e}, ONE_PTR>> t;\n  Input<Vector<{o}, ONE_PTR>> off;\n\
         \x20 Output<Vector<{e}>> out;\n  unsigned base;\n  void compute(unsigned wid) {{\n    unsigned n = out.size();\n\
         \x20   unsigned chunk = (n + numWorkers() - 1) / numWorkers();\n    unsigned begin = wid * chunk;\n\
         \x20   unsigned end = begin + chunk;\n    if (begin > n) begin = n;\n    if (end > n) end = n;\n{offs}\
         \x20   for (unsigned i = begin; i < end; ++i) {{\n      unsigned long long f = base + i;\n{coords}\
         \x20     out[i] = t[{src}];\n    }}\n  }}\n}};\n",
        e = cpp(t),
        o = cpp(ot),
        offs = offsets_code(in_shape, dims, sizes),
        coords = coords_code(out_shape),
    )
}

fn class_update(name: &str, t: ElemType, ot: ElemType, shape: &[u64], dims: &[u32], sizes: &[u64]) -> String {
    let mut up_shape = shape.to_vec();
    for (&d, &n) in dims.iter().zip(sizes) {
        up_shape[d as usize] = n;
    }
    let mut inside = String::from("true");
    for (k, (&d, &n)) in dims.iter().zip(sizes).enumerate() {
        let _ = write!(inside, " && c{d} >= o{k} && c{d} < o{k} + {n}u");
    }
    let k_of = |d: usize| dims.iter().position(|&x| x as usize == d);
    let src = flat_code(&up_shape, &|d| match k_of(d) {
        Some(k) => format!("c{d} - o{k}"),
        None => format!("c{d}"),
    });
    format!(
        "class {name} : public MultiVertex {{\npublic:\n  InOut<Vector<{e}>> t;\n  Input<Vector<{e}, ONE_PTR>> s;\n\
         \x20 Input<Vector<{o}, ONE_PTR>> off;\n  unsigned base;\n  void compute(unsigned wid) {{\n    unsigned n = t.size();\n\
         \x20   unsigned chunk = (n + numWorkers() - 1) / numWorkers();\n    unsigned begin = wid * chunk;\n\
         \x20   unsigned end = begin + chunk;\n    if (begin > n) begin = n;\n    if (end > n) end = n;\n{offs}\
         \x20   for (unsigned i = begin; i < end; ++i) {{\n      unsigned long long f = base + i;\n{coords}\
         \x20     if ({inside}) t[i] = s[{src}];\n    }}\n  }}\n}};\n",
        e = cpp(t),
        o = cpp(ot),
        offs = offsets_code(shape, dims, sizes),
        coords = coords_code(shape),
    )
}

fn key(prefix: &str, t: ElemType, ot: ElemType, a: &[u64], b: &[u64], dims: &[u32], sizes: &[u64]) -> String {
    format!("{prefix}:{}:{}:{a:?}:{b:?}:{dims:?}:{sizes:?}", t.name(), ot.name())
}

fn elem_of(x: &Expander, v: &View) -> ElemType {
    v.tensors().first().map_or(ElemType::Float, |t| x.graph.tensors[*t].elem)
}

pub(crate) fn expand_slice(
    x: &mut Expander,
    op: &Op,
    input: &View,
    offsets: &View,
    dims: &[u32],
    sizes: &[u64],
    span: Span,
) -> Result<Vec<Stmt>, Diagnostic> {
    let t = elem_of(x, input);
    let ot = elem_of(x, offsets);
    let n = op.out.num_elements();
    if let Some(id) = x.unmapped_output(&op.out) {
        let ivs = x.linear(n, grain(t));
        x.set_mapping(id, ivs, span);
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    let k = key("slice", t, ot, &input.shape, &op.out.shape, dims, sizes);
    let class =
        x.code.class(&k, "DynamicSlice", |c| class_slice(c, t, ot, &input.shape, &op.out.shape, dims, sizes));
    let vtype = Name::from(class.as_str());
    let out_flat = op.out.flatten();
    let jobs = x.tile_runs(&out_flat);
    let cs = x.compute_set(&format!("{}.dynamic_slice", x.out_name(&op.out)), span);
    let whole = input.flatten();
    let offs = offsets.flatten();
    for (tile, p, len) in jobs {
        x.vertex(
            cs,
            &vtype,
            tile,
            vec![
                ("t", FieldValue::Edge(whole.clone())),
                ("off", FieldValue::Edge(offs.clone())),
                ("out", FieldValue::Edge(slice(&out_flat, p, p + len))),
                ("base", FieldValue::Literal(Literal::Int(p as i64))),
            ],
            span,
        );
    }
    Ok(vec![Stmt::Execute(cs)])
}

pub(crate) fn expand_update(
    x: &mut Expander,
    op: &Op,
    update: &View,
    offsets: &View,
    dims: &[u32],
    sizes: &[u64],
    span: Span,
) -> Result<Vec<Stmt>, Diagnostic> {
    let t = elem_of(x, &op.out);
    let ot = elem_of(x, offsets);
    if op.out.num_elements() == 0 || update.num_elements() == 0 {
        return Ok(Vec::new());
    }
    let shape = op.out.shape.clone();
    let k = key("update", t, ot, &shape, &[], dims, sizes);
    let class = x.code.class(&k, "DynamicUpdate", |c| class_update(c, t, ot, &shape, dims, sizes));
    let vtype = Name::from(class.as_str());
    let out_flat = op.out.flatten();
    let jobs = x.tile_runs(&out_flat);
    let cs = x.compute_set(&format!("{}.dynamic_update", x.out_name(&op.out)), span);
    let upd = update.flatten();
    let offs = offsets.flatten();
    for (tile, p, len) in jobs {
        x.vertex(
            cs,
            &vtype,
            tile,
            vec![
                ("t", FieldValue::Edge(slice(&out_flat, p, p + len))),
                ("s", FieldValue::Edge(upd.clone())),
                ("off", FieldValue::Edge(offs.clone())),
                ("base", FieldValue::Literal(Literal::Int(p as i64))),
            ],
            span,
        );
    }
    Ok(vec![Stmt::Execute(cs)])
}

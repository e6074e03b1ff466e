//! Value semantics for operations whose output overlaps an operand.
//!
//! Every operation behaves as if all its operands were read before any of
//! its output is written, whatever views overlap (numpy's contract):
//! `a = matmul(a, b)`, `x[1:] = x[:-1] + 1`, `dynamic_update(t, t[0:2],
//! ...)`, `t[1:3] = dynamic_slice(t, ...)`. The generated vertices do not
//! give that on their own: a vertex writes its output while it, or a
//! vertex beside it in the same compute set, still reads operands. So
//! before an operation is expanded, [`resolve`] finds, with the view
//! algebra (`View::overlaps`), the operands that share elements with the
//! written region, and
//!
//! - leaves the exact in-place forms alone: an elementwise operand that is
//!   the written region element for element (`v4 += v2`: each element is
//!   read and then written by the same worker), every `reduce` (its first
//!   compute set reads all the data into partials, its second writes the
//!   result from them), and a `matmul` whose plan splits `k` (partial sums
//!   likewise);
//! - otherwise copies those operands into new tensors first (one
//!   elementwise copy each, mapped like the operand, so without exchange)
//!   and lets the operation read the copies, or, when that copies more
//!   elements than the result has, computes the result into a new tensor
//!   and copies it into the written region afterwards. `dynamic_update`
//!   writes only part of its region, so it always copies operands.
//!
//! A written region that names an element twice (`broadcast(b, 2) = ...`)
//! has no meaning under any order and stays an error.

use ir::{Diagnostic, MapExpr, MapKind, Op, OpKind, Span, Stmt, TensorId, View};

use super::{map, matmul, Expander};

/// How an operation is made to read before it writes.
pub(crate) struct Resolved {
    /// Statements to run first (copies of operands).
    pub before: Vec<Stmt>,
    /// The operation to expand (reading copies, or writing a temporary).
    pub op: Op,
    /// `(written region, temporary)`: copy the temporary into the region
    /// after the operation.
    pub after: Option<(View, View)>,
}

/// The operands of `op` that overlap its written region in a way its
/// expansion would read after writing, each once, in operand order.
fn conflicts(x: &Expander, op: &Op) -> Vec<View> {
    let out = &op.out;
    let hit = |v: &View| v.num_elements() > 0 && v.overlaps(out);
    let mut found: Vec<View> = Vec::new();
    let mut add = |v: &View| {
        if hit(v) && !found.contains(v) {
            found.push(v.clone());
        }
    };
    match &op.kind {
        OpKind::Map(_) => {
            let out_flat = out.flatten();
            for v in op.inputs() {
                if v.flatten() != out_flat {
                    add(v);
                }
            }
        }
        // The runtime reads a collective's whole input before writing.
        OpKind::Reduce { .. } | OpKind::Collective { .. } => {}
        OpKind::MatMul { a, b } => {
            if (hit(a) || hit(b)) && !matmul::reads_before_writing(x, out, a, b) {
                add(a);
                add(b);
            }
        }
        OpKind::DynamicSlice { input, offsets, .. } => {
            add(input);
            add(offsets);
        }
        OpKind::DynamicUpdate { update, offsets, .. } => {
            add(update);
            add(offsets);
        }
        // Even a dropout input that is the output itself: the vertex's
        // input and output edges would name the same elements.
        OpKind::Random { .. } => {
            for v in op.inputs() {
                add(v);
            }
        }
    }
    found
}

/// Replaces every operand equal to `from` by `to` (same shape).
fn replace(kind: &OpKind, from: &View, to: &View) -> OpKind {
    fn expr(e: &MapExpr, from: &View, to: &View) -> MapExpr {
        let kind = match &e.kind {
            MapKind::Input(v) if v == from => MapKind::Input(to.clone()),
            MapKind::Input(_) | MapKind::Const(_) => e.kind.clone(),
            MapKind::Unary(u, a) => MapKind::Unary(*u, Box::new(expr(a, from, to))),
            MapKind::Cast(a) => MapKind::Cast(Box::new(expr(a, from, to))),
            MapKind::Binary(b, l, r) => {
                MapKind::Binary(*b, Box::new(expr(l, from, to)), Box::new(expr(r, from, to)))
            }
            MapKind::Select(a, b, c) => MapKind::Select(
                Box::new(expr(a, from, to)),
                Box::new(expr(b, from, to)),
                Box::new(expr(c, from, to)),
            ),
        };
        MapExpr { elem: e.elem, kind }
    }
    let sub = |v: &View| if v == from { to.clone() } else { v.clone() };
    match kind {
        OpKind::Map(e) => OpKind::Map(expr(e, from, to)),
        OpKind::Reduce { input, op, dims } => {
            OpKind::Reduce { input: sub(input), op: *op, dims: dims.clone() }
        }
        OpKind::MatMul { a, b } => OpKind::MatMul { a: sub(a), b: sub(b) },
        OpKind::DynamicSlice { input, offsets, dims, sizes } => OpKind::DynamicSlice {
            input: sub(input),
            offsets: sub(offsets),
            dims: dims.clone(),
            sizes: sizes.clone(),
        },
        OpKind::DynamicUpdate { update, offsets, dims, sizes } => OpKind::DynamicUpdate {
            update: sub(update),
            offsets: sub(offsets),
            dims: dims.clone(),
            sizes: sizes.clone(),
        },
        OpKind::Collective { input, kind, op, group } => {
            OpKind::Collective { input: sub(input), kind: *kind, op: *op, group: *group }
        }
        OpKind::Random { dist, elem, seed, modifier, like } => OpKind::Random {
            dist: match dist {
                ir::RandomDist::Dropout { input, keep, scale } => {
                    ir::RandomDist::Dropout { input: sub(input), keep: *keep, scale: *scale }
                }
                other => other.clone(),
            },
            elem: *elem,
            seed: sub(seed),
            modifier: match modifier {
                ir::Modifier::Tensor(m) => ir::Modifier::Tensor(sub(m)),
                other => other.clone(),
            },
            like: like.clone(),
        },
    }
}

/// The element type of a view with elements.
fn elem(x: &Expander, v: &View) -> ir::ElemType {
    v.tensors().first().map_or(ir::ElemType::Float, |t| x.graph.tensors[*t].elem)
}

/// A new, unmapped tensor of `shape` for a copy: the operation that writes
/// it first maps it.
fn temporary(x: &mut Expander, base: &str, elem: ir::ElemType, shape: &[u64], span: Span) -> View {
    let mut name = base.to_string();
    let mut k = 2;
    while x.graph.tensor_by_name(&name).is_some() {
        name = format!("{base}#{k}");
        k += 1;
    }
    let id: TensorId = x.graph.tensors.push(ir::Tensor {
        name,
        kind: ir::TensorKind::Var,
        elem,
        shape: shape.to_vec(),
        init: None,
    });
    x.spans.tensors.set(id, span);
    x.tm.tensors.set(id, Vec::new());
    x.user_mapped.push(false);
    View::whole(id, shape)
}

/// `dst = src`, an elementwise copy (compute set `<dst>.copy`).
pub(crate) fn copy(x: &mut Expander, dst: &View, src: &View, span: Span) -> Result<Vec<Stmt>, Diagnostic> {
    let e = MapExpr { elem: elem(x, src), kind: MapKind::Input(src.clone()) };
    let op = Op { out: dst.clone(), kind: OpKind::Map(e.clone()), tiles: None };
    map::expand(x, &op, &e, span)
}

/// Makes `op` read all its operands before it writes (see the module
/// documentation).
pub(crate) fn resolve(x: &mut Expander, op: &Op, span: Span) -> Result<Resolved, Diagnostic> {
    if op.out.repeats_elements() {
        return Err(Diagnostic::error(span, "the written region names some elements more than once"));
    }
    let found = conflicts(x, op);
    if found.is_empty() {
        return Ok(Resolved { before: Vec::new(), op: op.clone(), after: None });
    }
    let name = x.out_name(&op.out);
    let copied: u64 = found.iter().map(View::num_elements).sum();
    let whole_write = !matches!(op.kind, OpKind::DynamicUpdate { .. });
    if whole_write && copied > op.out.num_elements() {
        let tmp = temporary(x, &format!("{name}.result"), elem(x, &op.out), &op.out.shape, span);
        let new = Op { out: tmp.clone(), kind: op.kind.clone(), tiles: op.tiles.clone() };
        return Ok(Resolved { before: Vec::new(), op: new, after: Some((op.out.clone(), tmp)) });
    }
    let mut before = Vec::new();
    let mut kind = op.kind.clone();
    for v in &found {
        let tmp = temporary(x, &format!("{name}.operand"), elem(x, v), &v.shape, span);
        before.extend(copy(x, &tmp, v, span)?);
        kind = replace(&kind, v, &tmp);
    }
    Ok(Resolved { before, op: Op { out: op.out.clone(), kind, tiles: op.tiles.clone() }, after: None })
}

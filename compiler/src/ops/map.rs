//! Elementwise operations (`v3 = v1 + v2`, `y = relu(x * 2.0 - b)`,
//! `v4 += v2`, `fill t 0.0`, `cast<half>(x)`): one compute set per
//! statement, however many operators the expression fuses.
//!
//! The output is walked in its own mapping's order: every contiguous run of
//! output elements on one tile is one vertex on that tile, whose operand
//! edges are the same positions of each operand view. Operands that share
//! the output's mapping are therefore read in place (no exchange); others
//! are fetched by the ordinary exchange. A one-element operand becomes a
//! scalar edge, read once per worker.

use ir::{Diagnostic, ElemType, FieldValue, MapExpr, MapKind, Name, Op, Span, Stmt, View};

use super::codegen::{self, Slot};
use super::{grain, slice, Expander};
use crate::mapping::Interval;

/// Poplar's `mapTensorLinearly` over `tiles` tiles: grains of `grain`
/// elements, `ceil(grains / tiles)` grains per tile in turn.
pub(crate) fn linear_intervals(n: u64, grain: u64, tiles: u32) -> Vec<Interval> {
    let grains = n.div_ceil(grain.max(1));
    let per = grains.div_ceil(tiles.max(1) as u64).max(1) * grain.max(1);
    let mut out = Vec::new();
    let mut s = 0;
    let mut tile = 0;
    while s < n {
        let e = (s + per).min(n);
        out.push(Interval { start: s, end: e, tile: crate::ids::TileId(tile) });
        s = e;
        tile += 1;
    }
    out
}

/// Intervals of a new output mapped like `like` (a view of its shape):
/// output element `i` goes where `like`'s element `i` lives.
pub(crate) fn intervals_like(x: &Expander, like: &View) -> Vec<Interval> {
    let mut out = Vec::new();
    let mut pos = 0;
    x.tm.segments(&like.flatten(), |seg| {
        out.push(Interval { start: pos, end: pos + seg.len, tile: seg.tile });
        pos += seg.len;
    });
    out
}

/// A view's element runs as sorted `(tensor, start, end)`.
fn runs_of(v: &View) -> Vec<(u32, u64, u64)> {
    let mut r: Vec<(u32, u64, u64)> = v.runs().map(|r| (r.tensor.0, r.start, r.start + r.len)).collect();
    r.sort_unstable();
    r
}

/// Whether any element of `v` is in the sorted runs `written`.
fn overlaps(written: &[(u32, u64, u64)], v: &View) -> bool {
    v.runs().any(|r| {
        let (t, s, e) = (r.tensor.0, r.start, r.start + r.len);
        // The first written run that could end after `s`.
        let i = written.partition_point(|w| (w.0, w.2) <= (t, s));
        written[i..].iter().take_while(|w| w.0 == t && w.1 < e).any(|w| w.2 > s)
    })
}

/// The largest C++ expression one fused operation's codelet may spell.
/// `min`, `max`, `abs` and `relu` write their operands two or three times, so nesting
/// them doubles the text at each level: the size is bounded before the
/// text is made.
pub(crate) const MAX_BODY_BYTES: u64 = 1 << 18;

/// The deepest expression one operation takes, in nodes from the result
/// to an operand. Its codelet spells each node as nested C++ (two to eight
/// levels of popc's 256, depending on the node), so deeper expressions are
/// refused before any text is made, and ones deeper than
/// [`CHECKED_DEPTH`] have their class parsed on its own first.
pub(crate) const MAX_MAP_DEPTH: usize = 64;

/// Expressions deeper than this have their generated class checked with
/// popc's parser before it joins the library (see [`MAX_MAP_DEPTH`]).
const CHECKED_DEPTH: usize = 8;

/// An upper bound on the bytes `codegen::expr` spells `e` in.
fn body_bytes(e: &MapExpr) -> u64 {
    match &e.kind {
        MapKind::Input(_) => 24,
        MapKind::Const(_) => 48,
        MapKind::Cast(a) => body_bytes(a).saturating_add(32),
        MapKind::Unary(u, a) => {
            let times = match u {
                ir::UnaryOp::Relu => 3, // `x > 0 || x != x` for floats: NaN propagates
                ir::UnaryOp::Abs
                | ir::UnaryOp::GeluErf
                | ir::UnaryOp::Signum
                | ir::UnaryOp::IsInf
                | ir::UnaryOp::IsNan => 2,
                ir::UnaryOp::IsFinite => 3,
                // The 64-bit forms count the value in halves.
                ir::UnaryOp::Popcount | ir::UnaryOp::Clz => 4,
                _ => 1,
            };
            body_bytes(a).saturating_mul(times).saturating_add(192)
        }
        MapKind::Binary(b, x, y) => {
            // `a != a || a < b ? a : b` for floats: NaN propagates.
            // Shifts spell the count three times.
            let times = if matches!(
                b,
                ir::BinaryOp::Min
                    | ir::BinaryOp::Max
                    | ir::BinaryOp::Shl
                    | ir::BinaryOp::Shr
                    | ir::BinaryOp::ShrSignExtend
            ) {
                3
            } else {
                1
            };
            body_bytes(x).saturating_add(body_bytes(y)).saturating_mul(times).saturating_add(128)
        }
        MapKind::Select(a, b, c) => {
            body_bytes(a).saturating_add(body_bytes(b)).saturating_add(body_bytes(c)).saturating_add(48)
        }
    }
}

/// Nodes on the longest path from `e` to an operand.
fn depth(e: &MapExpr) -> usize {
    match &e.kind {
        MapKind::Input(_) | MapKind::Const(_) => 1,
        MapKind::Unary(_, a) | MapKind::Cast(a) => 1 + depth(a),
        MapKind::Binary(_, a, b) => 1 + depth(a).max(depth(b)),
        MapKind::Select(a, b, c) => 1 + depth(a).max(depth(b)).max(depth(c)),
    }
}

/// The error for an expression too big or too deep for one operation.
fn too_big(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(span, format!("expression {what}; compute part of it into a tensor of its own first"))
}

fn collect_inputs<'a>(e: &'a MapExpr, out: &mut Vec<&'a View>) {
    match &e.kind {
        MapKind::Input(v) => {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        MapKind::Const(_) => {}
        MapKind::Unary(_, a) | MapKind::Cast(a) => collect_inputs(a, out),
        MapKind::Binary(_, a, b) => {
            collect_inputs(a, out);
            collect_inputs(b, out);
        }
        MapKind::Select(a, b, c) => {
            collect_inputs(a, out);
            collect_inputs(b, out);
            collect_inputs(c, out);
        }
    }
}

/// A stable text key of an expression's structure and types (not its views).
fn key(e: &MapExpr, inputs: &[&View], o: &mut String) {
    use std::fmt::Write;
    let _ = write!(o, "{}:", e.elem.name());
    match &e.kind {
        MapKind::Input(v) => {
            let _ = write!(o, "in{}", inputs.iter().position(|x| *x == v).unwrap_or(0));
        }
        MapKind::Const(c) => {
            let _ = write!(o, "c{:?}", c);
        }
        MapKind::Unary(u, a) => {
            let _ = write!(o, "{}(", u.name());
            key(a, inputs, o);
            o.push(')');
        }
        MapKind::Cast(a) => {
            o.push_str("cast(");
            key(a, inputs, o);
            o.push(')');
        }
        MapKind::Binary(b, x, y) => {
            let _ = write!(o, "{}(", b.word());
            key(x, inputs, o);
            o.push(',');
            key(y, inputs, o);
            o.push(')');
        }
        MapKind::Select(a, b, c) => {
            o.push_str("select(");
            key(a, inputs, o);
            o.push(',');
            key(b, inputs, o);
            o.push(',');
            key(c, inputs, o);
            o.push(')');
        }
    }
}

pub(crate) fn expand(x: &mut Expander, op: &Op, e: &MapExpr, span: Span) -> Result<Vec<Stmt>, Diagnostic> {
    if depth(e) > MAX_MAP_DEPTH {
        return Err(too_big(
            span,
            &format!("nested too deeply for one operation (more than {MAX_MAP_DEPTH} levels)"),
        ));
    }
    if body_bytes(e) > MAX_BODY_BYTES {
        return Err(too_big(
            span,
            &format!(
                "too large for one operation (its codelet would spell more than {MAX_BODY_BYTES} bytes: \
                 min, max, abs and relu spell their operands more than once)"
            ),
        ));
    }
    let out_elem = e.elem;
    let mut inputs: Vec<&View> = Vec::new();
    collect_inputs(e, &mut inputs);
    let n = op.out.num_elements();

    // Decide the output's mapping when nobody did.
    if let Some(t) = x.unmapped_output(&op.out) {
        let like = inputs.iter().find(|v| v.shape == op.out.shape && **v != &op.out);
        let ivs = match like {
            Some(v) => x.like_or_linear(v, n, grain(out_elem)),
            None => x.linear(n, grain(out_elem)),
        };
        x.set_mapping(t, ivs, span);
    }
    if n == 0 {
        return Ok(Vec::new());
    }

    // An operand that shares elements with the output must be the output
    // itself, element for element (`v4 += v2`); anything else would make the
    // result depend on the order the workers run in.
    let out_flat = op.out.flatten();
    let written = runs_of(&out_flat);
    if written.windows(2).any(|w| w[0].0 == w[1].0 && w[0].2 > w[1].1) {
        return Err(Diagnostic::error(span, "the written region names some elements more than once"));
    }
    for v in &inputs {
        if v.flatten() != out_flat && overlaps(&written, v) {
            return Err(Diagnostic::error(
                span,
                "the written region overlaps an operand at other positions; write the result to a new tensor and copy it back",
            ));
        }
    }

    // Operand slots and the class.
    let slots: Vec<Slot> = inputs
        .iter()
        .map(|v| {
            let t = x.graph.tensors[v.tensors()[0]].elem;
            if v.flatten() == out_flat {
                Slot::Out(t)
            } else if v.shape.is_empty() && n > 1 || v.num_elements() == 1 && op.out.num_elements() != 1 {
                Slot::Scalar(t)
            } else {
                Slot::Vector(t)
            }
        })
        .collect();
    let mut k = String::new();
    key(e, &inputs, &mut k);
    for s in &slots {
        k.push_str(&format!("|{s:?}"));
    }
    let body = codegen::expr(e, &mut |v| inputs.iter().position(|x| *x == v).unwrap_or(0), &slots);
    if depth(e) > CHECKED_DEPTH {
        let text = codegen::library_file(&codegen::map_class("Check", out_elem, &slots, &body));
        if let Err(d) = popc::check_syntax("<pir-ops>", &text) {
            let why = d.errors.first().map_or_else(String::new, |d| d.message.clone());
            return Err(too_big(span, &format!("too complex for one operation (in its codelet: {why})")));
        }
    }
    let class = x.code.class(&k, "Map", |name| codegen::map_class(name, out_elem, &slots, &body));
    let vtype: Name = Name::from(class.as_str());

    let flats: Vec<View> = inputs.iter().map(|v| v.flatten()).collect();
    let jobs = x.tile_runs(&out_flat);
    let cs = x.compute_set(&format!("{}.{}", x.out_name(&op.out), op.word()), span);
    let names: Vec<String> = (0..slots.len()).map(|k| format!("in{k}")).collect();
    let snames: Vec<String> = (0..slots.len()).map(|k| format!("s{k}_in")).collect();
    for (tile, p, len) in jobs {
        let mut fields: Vec<(&str, FieldValue)> = Vec::new();
        for (k, slot) in slots.iter().enumerate() {
            match slot {
                Slot::Vector(_) => fields.push((&names[k], FieldValue::Edge(slice(&flats[k], p, p + len)))),
                Slot::Scalar(_) => fields.push((
                    &snames[k],
                    FieldValue::Edge(View { shape: Vec::new(), pieces: flats[k].pieces.clone() }),
                )),
                Slot::Out(_) => {}
            }
        }
        fields.push(("out", FieldValue::Edge(slice(&out_flat, p, p + len))));
        x.vertex(cs, &vtype, tile, fields, span);
    }
    let _ = ElemType::Float;
    Ok(vec![Stmt::Execute(cs)])
}

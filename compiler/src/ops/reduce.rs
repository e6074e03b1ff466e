//! `r = reduce(x, op, dims = [...])`: two compute sets.
//!
//! The input is viewed as `[M, K]` (kept dimensions outermost, reduced ones
//! innermost). First every tile reduces the parts of each row it holds into
//! partials kept on that tile (no exchange): one per row part, or up to six
//! for a long part, so that all six workers share the work. Then, for each output
//! element, the tile that holds it combines the row's partials (one
//! exchange of one element per partial). A new output is mapped on the tile
//! holding the start of its row, so a reduction over data spread as rows
//! stays where the data is.

use std::collections::BTreeMap;

use ir::{Diagnostic, ElemType, FieldValue, MapExpr, MapKind, Name, Op, Piece, ReduceOp, Span, Stmt, View};

use super::{codegen, map, slice, Expander};
use crate::ids::TileId;
use crate::mapping::Interval;

/// Element runs `(tensor, start, len)`.
type Runs = Vec<(ir::TensorId, u64, u64)>;

/// A view of element runs `(tensor, start, len)` of one tensor list, rank 1.
fn runs_view(runs: &[(ir::TensorId, u64, u64)]) -> View {
    let total = runs.iter().map(|r| r.2).sum();
    let pieces = runs
        .iter()
        .map(|&(t, s, n)| Piece { tensor: t, offset: s, dims: std::iter::once((n, 1)).collect() })
        .collect();
    View::from_pieces(vec![total], pieces)
        .unwrap_or_else(|_| View { shape: vec![0], pieces: Default::default() })
}

/// Elements a worker's share of one row part should have at least.
const MIN_SHARE: u64 = 128;

/// Splits one tile's part of a row into up to six shares of about equal
/// size, one partial each, so every worker has work when a tile holds a
/// few long rows (the second stage then combines a few more partials).
fn split_for_workers(runs: Runs) -> Vec<Runs> {
    let total: u64 = runs.iter().map(|r| r.2).sum();
    let shares = (total / MIN_SHARE).clamp(1, 6);
    if shares == 1 {
        return vec![runs];
    }
    let per = total.div_ceil(shares);
    let mut out: Vec<Runs> = vec![Vec::new()];
    let mut room = per;
    for (t, mut s, mut n) in runs {
        while n > 0 {
            if room == 0 {
                out.push(Vec::new());
                room = per;
            }
            let take = n.min(room);
            if let Some(last) = out.last_mut() {
                last.push((t, s, take));
            }
            s += take;
            n -= take;
            room -= take;
        }
    }
    out
}

/// The reduction's identity as a literal (for empty reductions).
fn identity_value(op: ReduceOp, t: ElemType) -> f64 {
    match op {
        ReduceOp::Add | ReduceOp::Or => 0.0,
        ReduceOp::Mul | ReduceOp::And => 1.0,
        ReduceOp::Max | ReduceOp::Min => match t.int_range() {
            Some((lo, hi)) => (if op == ReduceOp::Max { lo } else { hi }) as f64,
            None => {
                if op == ReduceOp::Max {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
        },
    }
}

pub(crate) fn expand(
    x: &mut Expander,
    op: &Op,
    input: &View,
    rop: ReduceOp,
    dims: &[u32],
    span: Span,
) -> Result<Vec<Stmt>, Diagnostic> {
    // The result has the data's element type; an empty input view has no
    // tensor to ask, so ask whichever of the two has elements.
    let elem = input
        .tensors()
        .first()
        .or(op.out.tensors().first())
        .map_or(ElemType::Float, |t| x.graph.tensors[*t].elem);
    let rank = input.rank();
    let kept: Vec<usize> = (0..rank).filter(|d| !dims.contains(&(*d as u32))).collect();
    let m: u64 = kept.iter().map(|&d| input.shape[d]).product();
    let k: u64 = dims.iter().map(|&d| input.shape[d as usize]).product();
    if m == 0 {
        return Ok(Vec::new());
    }
    if k == 0 || input.pieces.is_empty() {
        // Every output is the identity.
        let c = MapExpr { elem, kind: MapKind::Const(identity_value(rop, elem)) };
        return map::expand(x, op, &c, span);
    }
    let perm: Vec<i64> = kept.iter().map(|&d| d as i64).chain(dims.iter().map(|&d| d as i64)).collect();
    let rows = input
        .dimshuffle(&perm)
        .and_then(|v| v.reshape(&[m as i64, k as i64]))
        .map_err(|e| Diagnostic::error(span, format!("internal error in reduce: {e}")))?;

    // Stage 1 plan: per tile, the (row, parts) it holds.
    let mut per_tile: BTreeMap<u32, Vec<(u64, Runs)>> = BTreeMap::new();
    let mut first_tile = vec![0u32; m as usize];
    for j in 0..m {
        let row = rows
            .index(&[ir::Subscript::Index(j as i64)])
            .map_err(|e| Diagnostic::error(span, format!("internal error in reduce: {e}")))?;
        let mut parts: BTreeMap<u32, Runs> = BTreeMap::new();
        let mut first = None;
        x.tm.segments(&row, |s| {
            let tile = x.tiles.place(s.tile.0);
            first.get_or_insert(tile);
            parts.entry(tile).or_default().push((s.tensor, s.start, s.len));
        });
        first_tile[j as usize] = first.unwrap_or(0);
        for (tile, runs) in parts {
            let list = per_tile.entry(tile).or_default();
            for chunk in split_for_workers(runs) {
                list.push((j, chunk));
            }
        }
    }

    // The output's mapping, when nobody chose it: next to its row.
    if let Some(t) = x.unmapped_output(&op.out) {
        let ivs = first_tile
            .iter()
            .enumerate()
            .map(|(j, &tile)| Interval { start: j as u64, end: j as u64 + 1, tile: TileId(tile) })
            .collect();
        x.set_mapping(t, ivs, span);
    }

    // Partials, tile by tile.
    let mut ivs = Vec::new();
    let mut where_: Vec<Vec<u64>> = vec![Vec::new(); m as usize];
    let mut n = 0u64;
    for (&tile, list) in &per_tile {
        ivs.push(Interval { start: n, end: n + list.len() as u64, tile: TileId(tile) });
        for (j, _) in list {
            where_[*j as usize].push(n);
            n += 1;
        }
    }
    let name = x.out_name(&op.out);
    let partials = x.scratch(&format!("{name}.partials"), elem, n, ivs, span);
    let pview = View::whole(partials, &[n]);

    let class = x.code.class(&format!("reduce:{}:{}", rop.name(), elem.name()), "Reduce", |c| {
        codegen::reduce_class(c, rop, elem)
    });
    let vtype = Name::from(class.as_str());
    let cs1 = x.compute_set(&format!("{name}.reduce.partial"), span);
    let mut at = 0u64;
    for (&tile, list) in &per_tile {
        let ins: Vec<View> = list.iter().map(|(_, runs)| runs_view(runs)).collect();
        let len = ins.len() as u64;
        let out = slice(&pview, at, at + len);
        at += len;
        x.vertex(
            cs1,
            &vtype,
            tile,
            vec![("in", FieldValue::EdgeList(ins)), ("out", FieldValue::Edge(out))],
            span,
        );
    }

    // Stage 2: each output element's tile combines its row's partials.
    let out_flat = op.out.flatten();
    let jobs = x.tile_runs(&out_flat);
    let cs2 = x.compute_set(&format!("{name}.reduce"), span);
    for (tile, p, len) in jobs {
        let ins: Vec<View> = (p..p + len)
            .map(|j| runs_view(&where_[j as usize].iter().map(|&i| (partials, i, 1)).collect::<Vec<_>>()))
            .collect();
        x.vertex(
            cs2,
            &vtype,
            tile,
            vec![("in", FieldValue::EdgeList(ins)), ("out", FieldValue::Edge(slice(&out_flat, p, p + len)))],
            span,
        );
    }
    Ok(vec![Stmt::Execute(cs1), Stmt::Execute(cs2)])
}

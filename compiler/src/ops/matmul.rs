//! `c = matmul(a, b)`: `[m, k] x [k, n]` (or batched `[g, m, k] x [g, k,
//! n]`), planned over the target's tiles.
//!
//! The planner splits the output into `pm x pn` blocks, one per tile, and
//! never splits `k` (so no partial sums and no second compute set). For
//! every split with `pm <= m`, `pn <= n`, `pm * pn <= tiles` it estimates a
//! tile's cycles as
//!
//! ```text
//! workers * macs  +  (a rows + b columns received, in bytes) / exchange_bytes_per_cycle
//! ```
//!
//! where `macs = ceil(ceil(m/pm) / workers) * cols * k` is the busiest
//! worker's share (the vertex gives each worker whole rows; the workers
//! issue in turn, so a tile's compute lasts `workers` times its busiest
//! worker's count), `cols` being a block's
//! `ceil(n/pn)` columns rounded up to a multiple of four: the vertex works
//! through a row four columns at a time (the host's f32x4 vectors; the
//! IPU's float units too work on pairs and quads), and a last, partial
//! group of columns costs it as much as a whole one. It takes the cheapest split
//! whose block (a rows, b columns, c block) fits in half a tile's memory,
//! ties to fewer tiles. Block `(i, j)` runs on tile `i * pn + j`, reading
//! its rows of `a` and the rows of its column range of `b` (each one edge,
//! row by row; fetched by exchange in contiguous runs), writing its rows
//! of `c`. A new `c` is mapped block by block
//! where it is computed. Batches share the tiles evenly, each planned alone.

use ir::{Diagnostic, ElemType, FieldValue, Name, Op, Span, Stmt, Subscript, View};

use super::{codegen, Expander};
use crate::mapping::Interval;

/// Columns the vertex's inner loop handles together.
const COLUMN_GROUP: u64 = 4;

/// The planner's choice for one product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub pm: u64,
    pub pn: u64,
    /// Estimated cycles of the busiest tile.
    pub cycles: u64,
}

/// Chooses the split of an `[m, k] x [k, n]` product over `tiles` tiles.
pub fn plan(m: u64, k: u64, n: u64, elem: ElemType, tiles: u32, target: &ir::Target) -> Plan {
    let size = elem.size() as u64;
    let workers = target.workers.max(1) as u64;
    let bw = target.exchange_bytes_per_cycle.max(1) as u64;
    let budget = target.bytes_per_tile as u64 / 2;
    let mut best: Option<(bool, Plan)> = None;
    let tiles = tiles.max(1) as u64;
    for pm in 1..=m.clamp(1, tiles) {
        let rows = m.div_ceil(pm);
        for pn in 1..=n.clamp(1, tiles / pm) {
            let cols = n.div_ceil(pn);
            // The busiest worker's share: the vertex splits whole rows.
            let macs = rows.div_ceil(workers) * cols.next_multiple_of(COLUMN_GROUP) * k;
            let recv = (rows * k + cols * k) * size;
            let cycles = macs * workers + recv.div_ceil(bw);
            let fits = (rows * k + cols * k + rows * cols) * size <= budget;
            let p = Plan { pm, pn, cycles };
            let better = match best {
                None => true,
                Some((bf, b)) => {
                    (fits, std::cmp::Reverse(cycles), std::cmp::Reverse(pm * pn))
                        > (bf, std::cmp::Reverse(b.cycles), std::cmp::Reverse(b.pm * b.pn))
                }
            };
            if better {
                best = Some((fits, p));
            }
        }
    }
    best.map(|b| b.1).unwrap_or(Plan { pm: 1, pn: 1, cycles: 0 })
}

fn idx(v: &View, subs: &[Subscript], span: Span) -> Result<View, Diagnostic> {
    v.index(subs).map_err(|e| Diagnostic::error(span, format!("internal error in matmul: {e}")))
}

fn range(a: u64, b: u64) -> Subscript {
    Subscript::Slice { start: Some(a as i64), end: Some(b as i64), step: None }
}

pub(crate) fn expand(
    x: &mut Expander,
    op: &Op,
    a: &View,
    b: &View,
    span: Span,
) -> Result<Vec<Stmt>, Diagnostic> {
    let elem = x.graph.tensors[op.out.tensors().first().copied().unwrap_or(ir::TensorId(0))].elem;
    let batched = a.rank() == 3;
    let (g, m, k, n) = if batched {
        (a.shape[0], a.shape[1], a.shape[2], b.shape[2])
    } else {
        (1, a.shape[0], a.shape[1], b.shape[1])
    };
    let tiles = x.tm.num_tiles as u64;
    let per_batch = (tiles / g.max(1)).max(1);
    let p = plan(m, k, n, elem, per_batch as u32, &x.graph.target);
    let name = x.out_name(&op.out);
    x.plans.push(format!(
        "{name} = matmul: {}[{m}, {k}] x [{k}, {n}] {}: {} x {} blocks of at most {} x {} on {} tiles{}, about {} cycles per tile",
        if batched { format!("{g} x ") } else { String::new() },
        elem.name(),
        p.pm,
        p.pn,
        m.div_ceil(p.pm),
        n.div_ceil(p.pn),
        p.pm * p.pn,
        if batched { " per batch" } else { "" },
        p.cycles
    ));
    if g == 0 || m == 0 || n == 0 {
        return Ok(Vec::new());
    }
    let rows = m.div_ceil(p.pm);
    let cols = n.div_ceil(p.pn);
    let tile_of =
        |gi: u64, bi: u64, bj: u64| (((gi * per_batch) % tiles) + bi * p.pn + bj) as u32 % tiles as u32;

    if let Some(t) = x.unmapped_output(&op.out) {
        let mut ivs = Vec::new();
        for gi in 0..g {
            for i in 0..m {
                for bj in 0..p.pn {
                    let (c0, c1) = (bj * cols, ((bj + 1) * cols).min(n));
                    if c0 < c1 {
                        let base = (gi * m + i) * n;
                        ivs.push(Interval {
                            start: base + c0,
                            end: base + c1,
                            tile: crate::ids::TileId(tile_of(gi, i / rows, bj)),
                        });
                    }
                }
            }
        }
        x.set_mapping(t, ivs, span);
    }
    if k == 0 {
        let c = ir::MapExpr { elem, kind: ir::MapKind::Const(0.0) };
        return super::map::expand(x, op, &c, span);
    }

    let class =
        x.code.class(&format!("matmul:{}", elem.name()), "MatMul", |c| codegen::matmul_class(c, elem));
    let vtype = Name::from(class.as_str());
    let cs = x.compute_set(&format!("{name}.matmul"), span);
    for gi in 0..g {
        let (ag, bg, cg) = if batched {
            let s = [Subscript::Index(gi as i64)];
            (idx(a, &s, span)?, idx(b, &s, span)?, idx(&op.out, &s, span)?)
        } else {
            (a.clone(), b.clone(), op.out.clone())
        };
        for bi in 0..p.pm {
            let (r0, r1) = (bi * rows, ((bi + 1) * rows).min(m));
            if r0 >= r1 {
                continue;
            }
            for bj in 0..p.pn {
                let (c0, c1) = (bj * cols, ((bj + 1) * cols).min(n));
                if c0 >= c1 {
                    continue;
                }
                let mut crows = Vec::new();
                for i in r0..r1 {
                    crows.push(idx(&cg, &[Subscript::Index(i as i64), range(c0, c1)], span)?);
                }
                let arows = idx(&ag, &[range(r0, r1)], span)?.flatten();
                let bcols = idx(&bg, &[range(0, k), range(c0, c1)], span)?.flatten();
                x.vertex(
                    cs,
                    &vtype,
                    tile_of(gi, bi, bj),
                    vec![
                        ("a", FieldValue::Edge(arows)),
                        ("b", FieldValue::Edge(bcols)),
                        ("c", FieldValue::EdgeList(crows)),
                    ],
                    span,
                );
            }
        }
    }
    Ok(vec![Stmt::Execute(cs)])
}

//! `c = matmul(a, b)`: `[m, k] x [k, n]` (or batched `[g, m, k] x [g, k,
//! n]`), planned over the target's tiles.
//!
//! The planner splits the output into `pm x pn` blocks and, for `float`
//! products, `k` into `pk` parts of `kk = ceil(k/pk)` terms, one block and
//! part per tile. For every split with `pm <= m`, `pn <= n`, `pk <= k`,
//! `pm * pn * pk <= tiles` it estimates a tile's cycles as
//!
//! ```text
//! issue * (units * group_cycles(kk) + pairs * passes(kk) * PASS_CYCLES)
//!     +  (a rows + b columns received, in bytes) / exchange_bytes_per_cycle
//! ```
//!
//! The first term is the busiest worker's count times `issue`: the vertex
//! splits its work between the six worker ids of `numWorkers()`, which the
//! target's contexts run in turn, so a tile's compute lasts `issue =
//! contexts * ceil(6 / contexts)` times the busiest id's count (6 on an
//! IPU). The vertex ([`codegen::matmul_class`]) pairs the
//! block's `ceil(m/pm)` rows and cuts each pair into groups of four of its
//! `ceil(n/pn)` columns (a last, partial group costs as much as a whole
//! one); each worker takes a run of `units` of these groups, the busiest
//! `ceil(groups / workers)`, and passes over the pairs its run touches,
//! `passes(kk)` passes each (one below eight terms, else `floor(kk/4)`,
//! the last taking the four to seven terms left). A group costs
//! `group_cycles(kk)`: `2 * GROUP_TERM_CYCLES` a term, and a little per
//! pass. The constants are what `sim` counts for the generated code, so
//! the estimate is close to the modelled cycles. With `k` split, the block's `pk` tiles each then add up a share
//! of the block's rows (`ceil(rows/pk)`), receiving the other parts'
//! partial sums of them: that second compute set's busiest worker
//! (`sum_cycles`, counted the same way), bytes and one more sync are added
//! to the estimate. It takes the cheapest split whose tile memory
//! fits in half a tile, ties to fewer tiles, then fewer parts.
//!
//! Block `(i, j)`, part `p` runs on tile `(i * pn + j) * pk + p`, reading
//! its rows of `a` (the part's columns) and the part's rows of its column
//! range of `b` (each one edge, fetched by exchange in contiguous runs).
//! Unsplit, it writes its rows of `c`; split, its rows of a `float` scratch
//! tensor of partial sums, `[g, pk, m, n]`, and a `MatMulSum` vertex on the
//! block's tile `p` adds up the rows of its share, parts in order of `k`. A
//! new `c` is mapped where its rows are finished. Batches share the tiles
//! evenly, each planned alone.

use ir::{Diagnostic, ElemType, FieldValue, Name, Op, Span, Stmt, Subscript, View};

use super::{codegen, Expander};
use crate::mapping::Interval;

/// Columns the vertex's inner loop handles together.
const COLUMN_GROUP: u64 = 4;

/// Modelled cycles one row's group of four columns costs per term of the
/// sum: `sim` counts 12 for a pair of rows' group per term.
const GROUP_TERM_CYCLES: u64 = 6;

/// Modelled cycles a pair of rows' group costs in a pass besides its
/// terms: 5 in the first pass (which starts from zero), 9 in each later
/// one (which also loads the sums so far).
const FIRST_PASS_GROUP_CYCLES: u64 = 5;
const LATER_PASS_GROUP_CYCLES: u64 = 9;

/// Modelled cycles a pass costs besides its groups (loading its `a`
/// values, the checks before its loop): about 41 on `sim` for a pair of
/// rows.
const PASS_CYCLES: u64 = 41;

/// The `MatMulSum` vertex's modelled cycles, as `sim` counts them: a
/// worker's fixed cost, then per row a pass over its groups of four
/// columns for every four parts (`SUM_QUAD_GROUP_CYCLES` a group) and
/// for each leftover part (`SUM_SINGLE_GROUP_CYCLES`), each pass
/// `SUM_PASS_CYCLES` besides its groups.
const SUM_WORKER_CYCLES: u64 = 39;
const SUM_QUAD_GROUP_CYCLES: u64 = 21;
const SUM_SINGLE_GROUP_CYCLES: u64 = 8;
const SUM_PASS_CYCLES: u64 = 21;

/// The passes the vertex makes over a pair of rows for `kk` terms: one
/// below eight terms, else one per four terms (the last takes four to
/// seven).
fn passes(kk: u64) -> u64 {
    let terms = codegen::MM_TERMS as u64;
    if kk < 2 * terms {
        1
    } else {
        kk / terms
    }
}

/// The modelled cycles of a pair of rows' group of four columns over `kk`
/// terms.
fn group_cycles(kk: u64) -> u64 {
    2 * GROUP_TERM_CYCLES * kk + FIRST_PASS_GROUP_CYCLES + LATER_PASS_GROUP_CYCLES * (passes(kk) - 1)
}

/// The modelled cycles of the busiest worker of a `MatMulSum` vertex
/// adding `parts` partial sums of `rows` rows of `cols` columns.
fn sum_cycles(rows: u64, cols: u64, parts: u64, workers: u64) -> u64 {
    let groups = cols.div_ceil(COLUMN_GROUP);
    let (quads, singles) = (parts / 4, parts % 4);
    let row = groups * (quads * SUM_QUAD_GROUP_CYCLES + singles * SUM_SINGLE_GROUP_CYCLES)
        + (quads + singles) * SUM_PASS_CYCLES;
    SUM_WORKER_CYCLES + rows.div_ceil(workers) * row
}

/// The planner's choice for one product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub pm: u64,
    pub pn: u64,
    /// Parts `k` is split into (1: no partial sums).
    pub pk: u64,
    /// Estimated cycles of the busiest tile.
    pub cycles: u64,
}

/// Chooses the split of an `[m, k] x [k, n]` product over `tiles` tiles.
pub fn plan(m: u64, k: u64, n: u64, elem: ElemType, tiles: u32, target: &ir::Target) -> Plan {
    let size = elem.size() as u64;
    // The vertices split their work between `numWorkers()` worker ids;
    // the target's contexts run them in turn (context `c` runs ids `c`,
    // `c + contexts`, …), so a tile's compute lasts `issue` times the
    // busiest id's count.
    let workers = u64::from(linker::abi::MULTIVERTEX_WORKERS);
    let contexts = u64::from(target.workers.max(1));
    let issue = contexts * workers.div_ceil(contexts);
    let bw = target.exchange_bytes_per_cycle.max(1) as u64;
    let budget = target.bytes_per_tile as u64 / 2;
    let mut best: Option<(bool, Plan)> = None;
    let tiles = tiles.max(1) as u64;
    for pm in 1..=m.clamp(1, tiles) {
        let rows = m.div_ceil(pm);
        for pn in 1..=n.clamp(1, tiles / pm) {
            let cols = n.div_ceil(pn);
            let groups = cols.div_ceil(COLUMN_GROUP).max(1); // an empty `n` too
                                                             // The vertex shares the block's pairs of rows, a group of four
                                                             // columns at a time, evenly between the workers; a worker's run
                                                             // covers about `per_worker / groups` pairs, and one more where
                                                             // it starts or ends part way along one.
            let per_worker = (rows.div_ceil(2) * groups).div_ceil(workers);
            let pairs = (per_worker.div_ceil(groups) + 1).min(rows.div_ceil(2));
            // Partial sums are `float`: only `float` products split `k`.
            let most_pk = if elem == ElemType::Float { k.clamp(1, tiles / (pm * pn)) } else { 1 };
            for pk in 1..=most_pk {
                let kk = k.div_ceil(pk);
                if k.div_ceil(kk.max(1)).max(1) != pk {
                    continue; // the same parts as a smaller `pk`
                }
                // The busiest worker: its groups of two rows over `kk`
                // terms, and its pairs' passes.
                let compute = per_worker * group_cycles(kk) + pairs * passes(kk) * PASS_CYCLES;
                let recv = (rows * kk + kk * cols) * size;
                let mut cycles = compute * issue + recv.div_ceil(bw);
                let mut bytes = (rows * kk + kk * cols + rows * cols) * size;
                if pk > 1 {
                    // Each of the block's `pk` tiles adds up a share of its
                    // rows, receiving the other tiles' partials of them.
                    let share = rows.div_ceil(pk);
                    let adds = sum_cycles(share, cols, pk, workers);
                    let recv2 = (pk - 1) * share * cols * size;
                    cycles += adds * issue + recv2.div_ceil(bw) + target.sync_cycles as u64;
                    bytes += recv2 + share * cols * size;
                }
                let fits = bytes <= budget;
                let p = Plan { pm, pn, pk, cycles };
                let key = |f: bool, p: &Plan| {
                    (
                        f,
                        std::cmp::Reverse(p.cycles),
                        std::cmp::Reverse(p.pm * p.pn * p.pk),
                        std::cmp::Reverse(p.pk),
                    )
                };
                if best.as_ref().is_none_or(|(bf, b)| key(fits, &p) > key(*bf, b)) {
                    best = Some((fits, p));
                }
            }
        }
    }
    best.map(|b| b.1).unwrap_or(Plan { pm: 1, pn: 1, pk: 1, cycles: 0 })
}

fn idx(v: &View, subs: &[Subscript], span: Span) -> Result<View, Diagnostic> {
    v.index(subs).map_err(|e| Diagnostic::error(span, format!("internal error in matmul: {e}")))
}

fn range(a: u64, b: u64) -> Subscript {
    Subscript::Slice { start: Some(a as i64), end: Some(b as i64), step: None }
}

/// A product's batch count and sizes `(g, m, k, n)`.
fn sizes(a: &View, b: &View) -> (u64, u64, u64, u64) {
    if a.rank() == 3 {
        (a.shape[0], a.shape[1], a.shape[2], b.shape[2])
    } else {
        (1, a.shape[0], a.shape[1], b.shape[1])
    }
}

/// The product's element type: that of whichever of its views has an
/// element (all three have the same type), `float` when all are empty.
fn elem_of(x: &Expander, views: &[&View]) -> ElemType {
    views
        .iter()
        .find_map(|v| v.tensors().first().copied())
        .map_or(ElemType::Float, |t| x.graph.tensors[t].elem)
}

/// Whether the product reads all of `a` and `b` before it writes any of
/// its result: when the planner splits `k`, the first compute set writes
/// only partial sums and the second, which writes the result, reads only
/// them, so a result overlapping an operand needs no copy.
pub(crate) fn reads_before_writing(x: &Expander, out: &View, a: &View, b: &View) -> bool {
    let (g, m, k, n) = sizes(a, b);
    let elem = elem_of(x, &[out, a, b]);
    let per_batch = (u64::from(x.tiles.len()) / g.max(1)).max(1);
    plan(m, k, n, elem, per_batch as u32, &x.graph.target).pk > 1
}

pub(crate) fn expand(
    x: &mut Expander,
    op: &Op,
    a: &View,
    b: &View,
    span: Span,
) -> Result<Vec<Stmt>, Diagnostic> {
    let elem = elem_of(x, &[&op.out, a, b]);
    let batched = a.rank() == 3;
    let (g, m, k, n) = sizes(a, b);
    // Operands and result must fit in the device: beyond it the expansion
    // would do work (per row and block) for a graph that cannot run.
    let target = &x.graph.target;
    let device = u64::from(target.total_tiles()).saturating_mul(u64::from(target.bytes_per_tile));
    let elements = [m.saturating_mul(k), k.saturating_mul(n), m.saturating_mul(n)]
        .iter()
        .fold(0u64, |s, &e| s.saturating_add(e))
        .saturating_mul(g);
    let bytes = elements.saturating_mul(u64::from(elem.size()));
    if bytes > device {
        return Err(Diagnostic::error(
            span,
            format!(
                "matmul of {}[{m}, {k}] x [{k}, {n}] {} needs {bytes} bytes for its operands and result, more \
                 than the target's {device} bytes of memory",
                if batched { format!("{g} x ") } else { String::new() },
                elem.name()
            ),
        ));
    }
    let tiles = u64::from(x.tiles.len());
    let per_batch = (tiles / g.max(1)).max(1);
    let p = plan(m, k, n, elem, per_batch as u32, &x.graph.target);
    let name = x.out_name(&op.out);
    let rows = m.div_ceil(p.pm);
    let cols = n.div_ceil(p.pn);
    let kk = k.div_ceil(p.pk).max(1);
    x.plans.push(format!(
        "{name} = matmul: {}[{m}, {k}] x [{k}, {n}] {}: {} x {} blocks of at most {} x {}{} on {} tiles{}, about {} cycles per tile",
        if batched { format!("{g} x ") } else { String::new() },
        elem.name(),
        p.pm,
        p.pn,
        rows,
        cols,
        if p.pk > 1 { format!(", k in {} parts of at most {kk}", p.pk) } else { String::new() },
        p.pm * p.pn * p.pk,
        if batched { " per batch" } else { "" },
        p.cycles
    ));
    if g == 0 || m == 0 || n == 0 {
        return Ok(Vec::new());
    }
    let set = x.tiles.clone();
    let tile_of = |gi: u64, bi: u64, bj: u64, bk: u64| {
        set.nth((((gi * per_batch) % tiles) + (bi * p.pn + bj) * p.pk + bk) as u32 % tiles as u32)
    };
    // With `k` split, row `t` of a block is added up on its tile `t / share`.
    let share = rows.div_ceil(p.pk);

    let mapped_here = x.unmapped_output(&op.out);
    if let Some(t) = mapped_here {
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
                            tile: crate::ids::TileId(tile_of(gi, i / rows, bj, (i % rows) / share)),
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

    // Partial sums, `[g, pk, m, n]`, each block's on its tile.
    let partial = if p.pk > 1 {
        let mut ivs = Vec::new();
        for gi in 0..g {
            for bk in 0..p.pk {
                for i in 0..m {
                    for bj in 0..p.pn {
                        let (c0, c1) = (bj * cols, ((bj + 1) * cols).min(n));
                        let base = ((gi * p.pk + bk) * m + i) * n;
                        ivs.push(Interval {
                            start: base + c0,
                            end: base + c1,
                            tile: crate::ids::TileId(tile_of(gi, i / rows, bj, bk)),
                        });
                    }
                }
            }
        }
        let len = g * p.pk * m * n;
        let t = x.scratch(&format!("{name}.partial"), ElemType::Float, len, ivs, span);
        Some(View::whole(t, &[len]))
    } else {
        None
    };
    let partial_row = |gi: u64, bk: u64, i: u64, c0: u64, c1: u64| {
        partial.as_ref().map(|pv| {
            let base = ((gi * p.pk + bk) * m + i) * n;
            super::slice(pv, base + c0, base + c1)
        })
    };

    // The rows of `c` the vertices write in place all start 16 bytes apart
    // from the start of their mapping interval when the rows and blocks are
    // multiples of four elements wide and this expansion mapped them (the
    // partial sums, or a result it mapped): the vertex then asks for them
    // aligned (`MinAlign` 16), so that its four-wide loads and stores of
    // `c` never straddle a cache line. Anywhere else the rows could lie at
    // any offset, and an aligned vertex would have them copied instead.
    let aligned = elem != ElemType::Half
        && n.is_multiple_of(COLUMN_GROUP)
        && cols.is_multiple_of(COLUMN_GROUP)
        && (p.pk > 1 || mapped_here.is_some());
    let key = format!("matmul:{}{}", elem.name(), if aligned { ":aligned" } else { "" });
    let class = x.code.class(&key, "MatMul", |c| codegen::matmul_class(c, elem, aligned));
    let vtype = Name::from(class.as_str());
    let cs = x.compute_set(&format!("{name}.matmul"), span);
    let mut sums = Vec::new();
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
                for bk in 0..p.pk {
                    let (k0, k1) = (bk * kk, ((bk + 1) * kk).min(k));
                    let out = match partial {
                        Some(_) => (r0..r1).filter_map(|i| partial_row(gi, bk, i, c0, c1)).collect(),
                        None => crows.clone(),
                    };
                    let arows = idx(&ag, &[range(r0, r1), range(k0, k1)], span)?.flatten();
                    let bcols = idx(&bg, &[range(k0, k1), range(c0, c1)], span)?.flatten();
                    x.vertex(
                        cs,
                        &vtype,
                        tile_of(gi, bi, bj, bk),
                        vec![
                            ("a", FieldValue::Edge(arows)),
                            ("b", FieldValue::Edge(bcols)),
                            ("c", FieldValue::EdgeList(out)),
                        ],
                        span,
                    );
                }
                if partial.is_some() {
                    for red in 0..p.pk {
                        let (t0, t1) = (red * share, ((red + 1) * share).min(r1 - r0));
                        if t0 >= t1 {
                            continue;
                        }
                        let mut parts = Vec::new();
                        for i in r0 + t0..r0 + t1 {
                            parts.extend((0..p.pk).filter_map(|bk| partial_row(gi, bk, i, c0, c1)));
                        }
                        let outs = crows[t0 as usize..t1 as usize].to_vec();
                        sums.push((tile_of(gi, bi, bj, red), parts, outs));
                    }
                }
            }
        }
    }
    if sums.is_empty() {
        return Ok(vec![Stmt::Execute(cs)]);
    }
    let class = x.code.class("matmul_sum:float", "MatMulSum", codegen::matmul_sum_class);
    let vtype = Name::from(class.as_str());
    let cs2 = x.compute_set(&format!("{name}.matmul_sum"), span);
    for (tile, parts, outs) in sums {
        x.vertex(
            cs2,
            &vtype,
            tile,
            vec![("p", FieldValue::EdgeList(parts)), ("c", FieldValue::EdgeList(outs))],
            span,
        );
    }
    Ok(vec![Stmt::Execute(cs), Stmt::Execute(cs2)])
}

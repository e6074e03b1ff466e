//! `schedule_exchange`: how every edge reaches its vertex, and the data
//! movement of tensor copies.
//!
//! An edge whose elements are one contiguous run on the vertex's own tile is
//! passed by address ([`EdgeLoc::Tensor`]). Any other edge gets a buffer on
//! the vertex's tile ([`EdgeLoc::Buffer`]): the compute set's exchange-in
//! phase fills it (inputs and in-outs) from wherever the elements live, one
//! [`Move`] per contiguous run, and its exchange-out phase scatters it back
//! (outputs and in-outs). Buffers belong to one [`Owner`] (a compute set or
//! a copy) and live only while it runs, so the memory layout overlaps the
//! buffers of different owners.
//!
//! A tile receives each element its input edges need once per compute set,
//! as the IPU does: input edges whose elements are one increasing run of a
//! tensor are gathered per (compute set, tile, tensor), overlapping or
//! adjacent runs merged into one region with one buffer, and each edge
//! points at its elements inside it ([`EdgeLoc::Buffer`] with a byte
//! offset). Any other input element list shares a buffer with identical
//! lists on its tile. Output and in-out edges keep a buffer each. Buffers
//! are numbered in the order vertices first use them, independent of
//! hashing and threads.
//!
//! Within a compute set no two edges may write the same element and no edge
//! may read an element another vertex writes: both are checked on sorted
//! element intervals, never per element. A tensor copy whose source and
//! destination overlap goes through temporary buffers in two phases.
//! Addresses are not known yet: moves name tensor elements and buffer
//! offsets, which [`crate::lower`] turns into byte transfers.

use std::collections::HashMap;

use rayon::prelude::*;

use ir::{
    walk_stmts, ComputeSetId, CopyEnd, EntityRef, Graph, PrimaryMap, SecondaryMap, Spans, Stmt, TensorId,
    VertexId, View,
};
use linker::gp;

use crate::error::{Collector, Stage, StageError};
use crate::ids::{BufferId, CopyId, TileId};
use crate::mapping::{Segment, TileMapping};
use crate::resolve::Resolved;
use crate::Codelets;

mod walk;

use walk::{EdgeAt, Walk};

/// Who uses a buffer, and so when it is live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// Live while the compute set runs.
    ComputeSet(ComputeSetId),
    /// Live while the copy (its first phase) runs.
    Copy(CopyId),
}

/// A receive/rearrangement buffer on a tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub tile: TileId,
    pub bytes: u64,
    pub owner: Owner,
    /// The alignment its address must have beyond the arena's 8 bytes (a
    /// field's `MinAlign`), or 0.
    pub align: u64,
}

/// A place in memory before addresses are assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    /// Element `elem` of a tensor, inside mapping interval `interval`.
    Tensor { tensor: TensorId, interval: u32, elem: u64 },
    /// Byte `byte` of a buffer.
    Buffer { buffer: BufferId, byte: u64 },
}

/// `bytes` contiguous bytes from `src` to `dst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub src: Loc,
    pub dst: Loc,
    pub bytes: u64,
}

/// Where an edge's elements are when the vertex runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeLoc {
    /// No elements.
    Empty,
    /// In place, in the tensor's memory.
    Tensor { tensor: TensorId, interval: u32, elem: u64 },
    /// At byte `byte` of a buffer (input edges on one tile share the
    /// buffer that receives their elements).
    Buffer { buffer: BufferId, byte: u64 },
}

/// One edge (or one item of a vector list) of a vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgeBinding {
    /// The codelet field.
    pub field: u32,
    /// Item of a vector list (0 otherwise).
    pub item: u32,
    /// Elements.
    pub count: u64,
    pub loc: EdgeLoc,
}

/// The exchange phases of one compute set.
#[derive(Clone, Debug, Default)]
pub struct CsExchange {
    pub ins: Vec<Move>,
    pub outs: Vec<Move>,
}

/// The result of [`schedule_exchange`].
#[derive(Clone, Debug, Default)]
pub struct ExchangePlan {
    pub buffers: PrimaryMap<BufferId, Buffer>,
    /// Every vertex's edges, by vertex id, then codelet field, then item.
    pub edges: Vec<EdgeBinding>,
    edge_start: Vec<u32>,
    /// Per compute set.
    pub compute_sets: SecondaryMap<ComputeSetId, CsExchange>,
    /// Tensor copy phases (the image's `copies`).
    pub copies: PrimaryMap<CopyId, Vec<Move>>,
    /// Per tensor-to-tensor `copy` statement: the phases it runs (none
    /// for the other copies).
    pub copy_stmts: SecondaryMap<ir::CopyStmtId, Vec<CopyId>>,
    /// The alignment a tensor's mapping interval must start at, by
    /// (tensor, interval), where an edge passed in place asks for more
    /// than its element's size (`MinAlign`).
    pub interval_align: HashMap<(TensorId, u32), u64>,
}

impl ExchangePlan {
    /// The edges of vertex `v`.
    pub fn vertex_edges(&self, v: VertexId) -> &[EdgeBinding] {
        let i = v.index();
        &self.edges[self.edge_start[i] as usize..self.edge_start[i + 1] as usize]
    }
}

/// A non-contiguous input element list on a tile: (compute set, tile,
/// element size, runs as (tensor, start, len)).
type ListKey = (ComputeSetId, TileId, u64, Vec<(TensorId, u64, u64)>);

/// An input edge whose elements are one increasing run of a tensor, to be
/// received into a region shared with the other such edges of its tile; or
/// such a region.
#[derive(Clone, Copy)]
struct Pending {
    cs: ComputeSetId,
    tile: TileId,
    tensor: TensorId,
    size: u64,
    start: u64,
    end: u64,
    /// Index into `plan.edges`.
    edge: u32,
}

struct Access {
    tensor: TensorId,
    start: u64,
    end: u64,
    vertex: VertexId,
    field: u32,
}

/// Plans every compute set's exchange and every tensor copy.
pub fn schedule_exchange(
    graph: &Graph,
    spans: &Spans,
    resolved: &Resolved,
    codelets: &Codelets,
    mapping: &TileMapping,
) -> Result<ExchangePlan, StageError> {
    let mut plan = ExchangePlan::default();
    let mut errs = Collector::default();
    // Accesses of the compute set being scanned; vertices are grouped by
    // compute set, but do not rely on it: keep per compute set lists.
    // Input edges received once per (compute set, tile): contiguous runs
    // share the regions of `shared_input_regions`; any other element list shares a buffer with an
    // identical one (keyed by compute set, tile, element size and runs).
    let (shared, found) = shared_input_regions(graph, resolved, codelets, mapping);
    let mut writes: Vec<Vec<Access>> = shared.counts.writes.iter().map(|&n| Vec::with_capacity(n)).collect();
    let mut reads: Vec<Vec<Access>> = shared.counts.reads.iter().map(|&n| Vec::with_capacity(n)).collect();
    plan.edges.reserve_exact(shared.counts.edges);
    plan.buffers.reserve_exact(shared.counts.buffers);
    for (cs, (&ins, &outs)) in shared.counts.ins.iter().zip(&shared.counts.outs).enumerate() {
        let x = plan.compute_sets.get_mut(ComputeSetId(cs as u32));
        x.ins.reserve_exact(ins);
        x.outs.reserve_exact(outs);
    }
    let mut region_buf: Vec<Option<BufferId>> = vec![None; shared.regions.len()];
    let mut next_assign = 0usize;
    let mut same: HashMap<ListKey, BufferId> = HashMap::new();

    let mut per_vertex = vec![0u32; graph.vertices.len()];
    plan.edge_start.reserve_exact(graph.vertices.len() + 1);
    Walk { graph, resolved, codelets, mapping }.each(&found, |e, segs| {
        per_vertex[e.vertex.index()] += 1;
        let (tile, cs, size, count) = (e.tile, e.cs, e.elem_size, e.view.num_elements());
        let reads_it = matches!(e.dir, gp::Direction::Input | gp::Direction::InOut);
        let writes_it = matches!(e.dir, gp::Direction::Output | gp::Direction::InOut);
        for s in segs {
            let a = Access {
                tensor: s.tensor,
                start: s.start,
                end: s.start + s.len,
                vertex: e.vertex,
                field: e.pir_field as u32,
            };
            if writes_it {
                writes[cs.index()].push(a);
            } else {
                reads[cs.index()].push(a);
            }
        }
        let loc = match segs {
            [] => EdgeLoc::Empty,
            [s] if s.tile == tile && in_place_aligned(mapping, e, s) => {
                if e.min_align != 0 {
                    let a = plan.interval_align.entry((s.tensor, s.interval)).or_insert(0);
                    *a = (*a).max(e.min_align);
                }
                EdgeLoc::Tensor { tensor: s.tensor, interval: s.interval, elem: s.start }
            }
            [_, ..] if reads_it && !writes_it && e.min_align == 0 => {
                if one_run(segs) {
                    let (edge, r, byte) = shared.assign[next_assign];
                    debug_assert_eq!(edge as usize, plan.edges.len());
                    next_assign += 1;
                    let buffer = *region_buf[r as usize]
                        .get_or_insert_with(|| push_region(mapping, &mut plan, &shared.regions[r as usize]));
                    EdgeLoc::Buffer { buffer, byte }
                } else {
                    let key: Vec<(TensorId, u64, u64)> =
                        segs.iter().map(|s| (s.tensor, s.start, s.len)).collect();
                    let next = plan.buffers.next_key();
                    let b = *same.entry((cs, tile, size, key)).or_insert(next);
                    if b == next {
                        push_buffer(&mut plan, tile, cs, size, count, segs, true, false);
                    }
                    EdgeLoc::Buffer { buffer: b, byte: 0 }
                }
            }
            _ => {
                let b = push_buffer(&mut plan, tile, cs, size, count, segs, reads_it, writes_it);
                plan.buffers[b].align = e.min_align;
                EdgeLoc::Buffer { buffer: b, byte: 0 }
            }
        };
        plan.edges.push(EdgeBinding { field: e.field, item: e.item, count, loc });
    });
    let mut start = 0u32;
    for n in per_vertex {
        plan.edge_start.push(start);
        start += n;
    }
    plan.edge_start.push(start);
    drop((same, found));

    for (cs, (mut w, mut r)) in writes.into_iter().zip(reads).enumerate() {
        check_conflicts(graph, spans, cs, &mut w, &mut r, &mut errs);
    }
    errs.finish(Stage::Exchange)?;

    let mut errs = Collector::default();
    schedule_copies(graph, spans, mapping, &mut plan, &mut errs);
    errs.finish(Stage::Exchange)?;
    Ok(plan)
}

/// The regions contiguous input edges are received into, and where each
/// such edge lies in its region.
struct SharedInputs {
    regions: Vec<Pending>,
    /// (index into `plan.edges`, region, byte offset), by edge.
    assign: Vec<(u32, u32, u64)>,
    counts: EdgeCounts,
}

/// How many edges there are, and how many segments each compute set's
/// edges write and read: the lists [`schedule_exchange`] fills are sized
/// exactly (ten million edges grown by doubling touch twice the memory).
struct EdgeCounts {
    edges: usize,
    writes: Vec<usize>,
    reads: Vec<usize>,
    /// At most how many moves each compute set's exchange-in and
    /// exchange-out get, and how many buffers there are: what the edges
    /// that are not one segment on their own tile would move (shared
    /// regions merge some), reserved once (untouched room costs no memory).
    ins: Vec<usize>,
    outs: Vec<usize>,
    buffers: usize,
}

/// What [`shared_input_regions`] finds in a run of vertices.
#[derive(Default)]
struct Counted {
    /// Segments written, read, moved in and moved out, per compute set in
    /// runs of edges of one compute set (not a table by compute set: a
    /// run of vertices meets few of them, and a graph may have millions).
    per_cs: Vec<(ComputeSetId, [usize; 4])>,
    buffers: usize,
    /// Numbered by edge from the start of the run.
    pending: Vec<Pending>,
}

impl Counted {
    fn count(&mut self, cs: ComputeSetId) -> &mut [usize; 4] {
        if self.per_cs.last().is_none_or(|l| l.0 != cs) {
            self.per_cs.push((cs, [0; 4]));
        }
        &mut self.per_cs.last_mut().expect("just pushed").1
    }

    /// `next`, the run of vertices after this one, whose first edge is
    /// this run's `edges`th, joined to it.
    fn join(mut self, next: Counted, edges: u32) -> Counted {
        self.per_cs.extend(next.per_cs);
        self.buffers += next.buffers;
        self.pending.extend(next.pending.into_iter().map(|p| Pending { edge: p.edge + edges, ..p }));
        self
    }
}

/// Counts an edge into `found`, and keeps it as pending when it is an
/// input received into a shared region (see [`shared_input_regions`]).
fn count_edge(found: &mut Counted, e: &EdgeAt<'_>, segs: &[Segment]) {
    let writes = matches!(e.dir, gp::Direction::Output | gp::Direction::InOut);
    let remote = !matches!(segs, [s] if s.tile == e.tile);
    let n = found.count(e.cs);
    n[usize::from(!writes)] += segs.len();
    if remote {
        if e.dir != gp::Direction::Output {
            n[2] += segs.len();
        }
        if writes {
            n[3] += segs.len();
        }
        found.buffers += 1;
    }
    // An edge asking for alignment gets a buffer of its own.
    if e.dir != gp::Direction::Input || e.min_align != 0 {
        return;
    }
    match segs {
        [] => {}
        [s] if s.tile == e.tile => {}
        [first, ..] => {
            if one_run(segs) {
                found.pending.push(Pending {
                    cs: e.cs,
                    tile: e.tile,
                    tensor: first.tensor,
                    size: e.elem_size,
                    start: first.start,
                    end: first.start + e.view.num_elements(),
                    edge: e.index,
                });
            }
        }
    }
}

/// Finds every input edge that needs a buffer and whose elements are one
/// increasing run of a tensor, and merges the overlapping or adjacent runs
/// of one (compute set, tile, tensor) into one region, received once.
/// Also returns every edge's segments, for the second walk.
fn shared_input_regions(
    graph: &Graph,
    resolved: &Resolved,
    codelets: &Codelets,
    mapping: &TileMapping,
) -> (SharedInputs, walk::Found) {
    let walk = Walk { graph, resolved, codelets, mapping };
    let (counted, edges, found) = walk.fold(Counted::default, count_edge, Counted::join);
    let n = graph.compute_sets.len();
    let mut counts = EdgeCounts {
        edges: edges as usize,
        writes: vec![0; n],
        reads: vec![0; n],
        ins: vec![0; n],
        outs: vec![0; n],
        buffers: counted.buffers,
    };
    for (cs, [w, r, i, o]) in counted.per_cs {
        counts.writes[cs.index()] += w;
        counts.reads[cs.index()] += r;
        counts.ins[cs.index()] += i;
        counts.outs[cs.index()] += o;
    }
    let mut pending = counted.pending;
    // Keys are unique (the edge is in them): the order is the same on any
    // number of threads, as for the other sorts here (stable ones).
    pending.par_sort_unstable_by_key(|p| (p.cs, p.tile, p.tensor, p.size, p.start, p.end, p.edge));
    let mut out = SharedInputs { regions: Vec::new(), assign: Vec::with_capacity(pending.len()), counts };
    let mut i = 0;
    while i < pending.len() {
        let p = &pending[i];
        let (start, mut end) = (p.start, p.end);
        let mut j = i + 1;
        while j < pending.len() {
            let q = &pending[j];
            if (q.cs, q.tile, q.tensor, q.size) != (p.cs, p.tile, p.tensor, p.size) || q.start > end {
                break;
            }
            end = end.max(q.end);
            j += 1;
        }
        let r = out.regions.len() as u32;
        for q in &pending[i..j] {
            out.assign.push((q.edge, r, (q.start - start) * q.size));
        }
        out.regions.push(Pending { start, end, edge: u32::MAX, ..*p });
        i = j;
    }
    out.assign.par_sort_unstable_by_key(|a| a.0);
    (out, found)
}

/// Whether an edge whose elements are the one segment `s` on its own tile
/// can be passed in place: always, unless it asks for an alignment
/// (`MinAlign`) that its offset in its mapping interval does not keep once
/// the interval starts aligned. Such an edge gets a buffer instead.
fn in_place_aligned(mapping: &TileMapping, e: &EdgeAt<'_>, s: &Segment) -> bool {
    let start = mapping.tensors[s.tensor][s.interval as usize].start;
    e.min_align == 0 || ((s.start - start) * e.elem_size).is_multiple_of(e.min_align)
}

/// Whether segments are one increasing run of one tensor.
fn one_run(segs: &[Segment]) -> bool {
    segs.windows(2).all(|w| w[1].tensor == w[0].tensor && w[1].start == w[0].start + w[0].len)
}

/// Adds a buffer of `count` elements on `tile` for compute set `cs`, with
/// the moves that fill it from `segs` (`fill`) and scatter it back
/// (`drain`); returns its index.
#[allow(clippy::too_many_arguments)]
fn push_buffer(
    plan: &mut ExchangePlan,
    tile: TileId,
    cs: ComputeSetId,
    size: u64,
    count: u64,
    segs: &[Segment],
    fill: bool,
    drain: bool,
) -> BufferId {
    let b = plan.buffers.push(Buffer { tile, bytes: count * size, owner: Owner::ComputeSet(cs), align: 0 });
    let x = plan.compute_sets.get_mut(cs);
    let mut pos = 0u64;
    for s in segs {
        let t = Loc::Tensor { tensor: s.tensor, interval: s.interval, elem: s.start };
        let bl = Loc::Buffer { buffer: b, byte: pos * size };
        if fill {
            x.ins.push(Move { src: t, dst: bl, bytes: s.len * size });
        }
        if drain {
            x.outs.push(Move { src: bl, dst: t, bytes: s.len * size });
        }
        pos += s.len;
    }
    b
}

/// Adds a shared input region's buffer and its exchange-in moves, one per
/// mapping interval it crosses; returns the buffer.
fn push_region(mapping: &TileMapping, plan: &mut ExchangePlan, p: &Pending) -> BufferId {
    let b = plan.buffers.push(Buffer {
        tile: p.tile,
        bytes: (p.end - p.start) * p.size,
        owner: Owner::ComputeSet(p.cs),
        align: 0,
    });
    let ivs = &mapping.tensors[p.tensor];
    let x = plan.compute_sets.get_mut(p.cs);
    let mut k = mapping.interval_of(p.tensor, p.start);
    let mut s = p.start;
    while s < p.end {
        let e = p.end.min(ivs[k].end);
        x.ins.push(Move {
            src: Loc::Tensor { tensor: p.tensor, interval: k as u32, elem: s },
            dst: Loc::Buffer { buffer: b, byte: (s - p.start) * p.size },
            bytes: (e - s) * p.size,
        });
        s = e;
        k += 1;
    }
    b
}

fn check_conflicts(
    graph: &Graph,
    spans: &Spans,
    cs: usize,
    writes: &mut [Access],
    reads: &mut [Access],
    errs: &mut Collector,
) {
    let cs_name = &graph.compute_sets[ir::ComputeSetId(cs as u32)].name;
    let elem = |a: &Access| {
        let t = &graph.tensors[a.tensor];
        if t.shape.is_empty() {
            t.name.clone()
        } else {
            format!("{}[{}]", t.name, flat_to_index(&t.shape, a.start))
        }
    };
    writes.par_sort_by_key(|a| (a.tensor, a.start, a.vertex));
    let mut reported = 0;
    let mut prev: Option<usize> = None; // index of the write reaching furthest
    for i in 0..writes.len() {
        if let Some(p) = prev {
            let (a, b) = (&writes[p], &writes[i]);
            if a.tensor == b.tensor && b.start < a.end {
                if reported < 5 {
                    let at = Access { start: b.start, ..*b };
                    let msg = if a.vertex == b.vertex {
                        format!(
                            "vertex {} writes element {} twice in compute set `{cs_name}`",
                            b.vertex,
                            elem(&at)
                        )
                    } else {
                        format!(
                            "vertices {} and {} both write element {} in compute set `{cs_name}`",
                            a.vertex,
                            b.vertex,
                            elem(&at)
                        )
                    };
                    errs.push(
                        ir::Diagnostic::error(spans.field(b.vertex, b.field as usize), msg)
                            .with_label("this edge writes it")
                            .with_secondary(spans.field(a.vertex, a.field as usize), "and so does this one")
                            .in_iteration(spans.vertex_iterations.get(b.vertex.index())),
                    );
                }
                reported += 1;
            }
            if a.tensor != b.tensor || b.end > a.end {
                prev = Some(i);
            }
        } else {
            prev = Some(i);
        }
    }
    if reported > 0 {
        return;
    }
    // Writes are now disjoint and sorted: a read overlaps a write only if
    // it overlaps the last write starting before its end.
    reads.par_sort_by_key(|a| (a.tensor, a.start, a.vertex));
    for r in reads.iter() {
        let j = writes.partition_point(|w| (w.tensor, w.start) < (r.tensor, r.end));
        let Some(w) = j.checked_sub(1).map(|j| &writes[j]) else { continue };
        if w.tensor != r.tensor || w.end <= r.start {
            continue;
        }
        // The same elements in the same order through an input edge and
        // an output edge (`y[i] = f(x[i])` in place, which Poplar programs
        // write): element i is read through one and written through the
        // other at the same index, as an InOut edge would be.
        if w.vertex == r.vertex {
            let fields = &graph.vertices[r.vertex].fields;
            let value = |f: u32| fields.get(f as usize).map(|f| &f.value);
            if value(r.field).is_some() && value(r.field) == value(w.field) {
                continue;
            }
        }
        reported += 1;
        if reported > 5 {
            continue;
        }
        let at = Access { start: w.start.max(r.start), ..*w };
        let d = if w.vertex == r.vertex {
            // One vertex reading, through an `Input` edge, an element it
            // writes through another edge: what it reads depends on the
            // order its code (and its workers) do the work, and an edge
            // passed through a buffer would not even see the write. An
            // `InOut` edge is the one way a codelet says that it reads and
            // writes the same elements.
            ir::Diagnostic::error(
                spans.field(r.vertex, r.field as usize),
                format!(
                    "vertex {} reads element {} through one edge and writes it through another in compute set \
                     `{cs_name}`",
                    r.vertex,
                    elem(&at),
                ),
            )
            .with_note(
                "what it reads would depend on the order of its work; connect the elements to one InOut field, \
                 or write to another tensor",
            )
        } else {
            ir::Diagnostic::error(
                spans.field(r.vertex, r.field as usize),
                format!(
                    "vertex {} reads element {} that vertex {} writes in the same compute set `{cs_name}`",
                    r.vertex,
                    elem(&at),
                    w.vertex
                ),
            )
        };
        errs.push(
            d.with_label("this edge reads it")
                .with_secondary(spans.field(w.vertex, w.field as usize), "this edge writes it")
                .in_iteration(spans.vertex_iterations.get(r.vertex.index())),
        );
    }
}

/// A flat index as PIR subscripts (`1, 2`).
pub fn flat_to_index(shape: &[u64], mut i: u64) -> String {
    let mut idx = vec![0u64; shape.len()];
    for k in (0..shape.len()).rev() {
        let d = shape[k].max(1);
        idx[k] = i % d;
        i /= d;
    }
    idx.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

fn schedule_copies(
    graph: &Graph,
    spans: &Spans,
    mapping: &TileMapping,
    plan: &mut ExchangePlan,
    errs: &mut Collector,
) {
    let bodies: Vec<(bool, u32, &[Stmt])> = graph
        .programs
        .iter()
        .map(|(p, prog)| (true, p.0, prog.body.as_slice()))
        .chain(graph.functions.iter().map(|(f, prog)| (false, f.0, prog.body.as_slice())))
        .collect();
    for (is_prog, id, body) in bodies {
        let mut index = 0usize;
        walk_stmts(body, &mut |s| {
            let span = if is_prog {
                spans.program_stmt(ir::ProgramId(id), index)
            } else {
                spans.function_stmt(ir::FunctionId(id), index)
            };
            index += 1;
            if let Stmt::Copy { src: CopyEnd::Tensor(src), dst: CopyEnd::Tensor(dst), id } = s {
                let phases = plan_copy(graph, mapping, plan, src, dst).unwrap_or_else(|msg| {
                    errs.push(ir::Diagnostic::error(span, msg));
                    Vec::new()
                });
                plan.copy_stmts.set(*id, phases);
            }
        });
    }
}

fn plan_copy(
    graph: &Graph,
    mapping: &TileMapping,
    plan: &mut ExchangePlan,
    src: &View,
    dst: &View,
) -> Result<Vec<CopyId>, String> {
    let elem_of = |v: &View| v.pieces.first().map(|p| graph.tensors[p.tensor].elem);
    let (se, de) = (elem_of(src), elem_of(dst));
    if let (Some(a), Some(b)) = (se, de) {
        if a != b {
            return Err(format!("copy from {} elements to {} elements", a, b));
        }
    }
    for t in dst.tensors() {
        if graph.tensors[t].kind == ir::TensorKind::Const {
            return Err(format!("copy writes to constant tensor `{}`", graph.tensors[t].name));
        }
    }
    if src.num_elements() != dst.num_elements() {
        return Err(format!("copy of {} elements into {}", src.num_elements(), dst.num_elements()));
    }
    let Some(elem) = se else { return Ok(Vec::new()) };
    let size = u64::from(elem.size());
    if dst.repeats_elements() {
        return Err("the copy's destination names an element more than once".into());
    }
    let mut ss = Vec::new();
    mapping.segments(src, |s| ss.push(s));
    let mut ds = Vec::new();
    mapping.segments(dst, |s| ds.push(s));
    let tl =
        |s: &Segment, off: u64| Loc::Tensor { tensor: s.tensor, interval: s.interval, elem: s.start + off };
    if !src.overlaps(dst) {
        return Ok(vec![plan.copies.push(zip_moves(&ss, &ds, size, &tl, &tl))]);
    }
    let first = plan.copies.next_key();
    // Through temporary buffers on the destination tiles.
    let mut bufs = Vec::with_capacity(ds.len());
    for d in &ds {
        bufs.push(plan.buffers.push(Buffer {
            tile: d.tile,
            bytes: d.len * size,
            owner: Owner::Copy(first),
            align: 0,
        }));
    }
    // The temporaries as pseudo-segments: the buffer index stands in the interval field.
    let temp: Vec<Segment> =
        ds.iter().zip(&bufs).map(|(d, &b)| Segment { interval: b.0, start: 0, ..*d }).collect();
    let bl = |s: &Segment, off: u64| Loc::Buffer { buffer: BufferId(s.interval), byte: off * size };
    let fill = plan.copies.push(zip_moves(&ss, &temp, size, &tl, &bl));
    let drain = plan.copies.push(zip_moves(&temp, &ds, size, &bl, &tl));
    Ok(vec![fill, drain])
}

/// Pairs two segment sequences of equal total length into moves.
fn zip_moves(
    a: &[Segment],
    b: &[Segment],
    size: u64,
    la: &dyn Fn(&Segment, u64) -> Loc,
    lb: &dyn Fn(&Segment, u64) -> Loc,
) -> Vec<Move> {
    let mut out = Vec::new();
    let (mut i, mut j, mut oi, mut oj) = (0, 0, 0u64, 0u64);
    while i < a.len() && j < b.len() {
        let n = (a[i].len - oi).min(b[j].len - oj);
        out.push(Move { src: la(&a[i], oi), dst: lb(&b[j], oj), bytes: n * size });
        oi += n;
        oj += n;
        if oi == a[i].len {
            i += 1;
            oi = 0;
        }
        if oj == b[j].len {
            j += 1;
            oj = 0;
        }
    }
    out
}

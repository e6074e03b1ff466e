//! `lower_tile` and `lower_programs`: from the side tables to the image's
//! structures, with every address final.
//!
//! Per tile: the memory size, initial contents (the codelet objects'
//! static storage, where not all zero; initialised tensors, one
//! segment per mapped interval, all-zero values left out since the runtime
//! zeroes memory; the vertex states and vector-list descriptor arrays as one
//! segment) and the vertex instances, grouped by compute set. Vertex state
//! encoding (docs/codelets.md, "The ABI"; offsets from `linker::gp::Field`): a scalar edge is
//! its u32 address, a vector edge its address and, when its layout stores one, its count, a vector
//! list the address of its (address, count) array and the item count, a
//! plain field its value converted to the field's type. Moves become byte
//! transfers sorted by destination, contiguous ones merged. Statements
//! become steps; `undef` becomes nothing, nested blocks are flattened.

use std::sync::Mutex;

use rayon::prelude::*;

use ir::{ComputeSetId, EntityRef, FieldValue, Graph, Init, Stmt, TensorId, VertexId, View};
use linker::gp;
use linker::image::{
    self, ComputeSet, Exchange, Handle, Program, Region, ScalarRef, Segment, Step, TileImage, TileWork,
    Transfer, VertexInstance,
};
use linker::link::{Unlinked, UsedType};

use crate::exchange::{EdgeLoc, ExchangePlan, Loc, Move};
use crate::ids::TileId;
use crate::layout::MemoryLayout;
use crate::mapping::TileMapping;
use crate::resolve::Resolved;
use crate::Codelets;

/// The inputs every lowering step reads.
struct Ctx<'a> {
    graph: &'a Graph,
    resolved: &'a Resolved,
    codelets: &'a Codelets,
    mapping: &'a TileMapping,
    plan: &'a ExchangePlan,
    layout: &'a MemoryLayout,
}

impl Ctx<'_> {
    fn tensor_addr(&self, t: TensorId, interval: u32, elem: u64) -> (u32, u64) {
        let iv = self.mapping.tensors[t][interval as usize];
        let size = u64::from(self.graph.tensors[t].elem.size());
        (iv.tile.0, u64::from(self.layout.tensor_addr[t][interval as usize]) + (elem - iv.start) * size)
    }

    fn loc(&self, l: Loc) -> (u32, u64) {
        match l {
            Loc::Tensor { tensor, interval, elem } => self.tensor_addr(tensor, interval, elem),
            Loc::Buffer { buffer, byte } => {
                let b = &self.plan.buffers[buffer];
                (b.tile.0, u64::from(self.layout.buffer_addr[buffer]) + byte)
            }
        }
    }

    fn edge_addr(&self, l: EdgeLoc) -> u32 {
        match l {
            EdgeLoc::Empty => 0,
            EdgeLoc::Tensor { tensor, interval, elem } => self.tensor_addr(tensor, interval, elem).1 as u32,
            EdgeLoc::Buffer { buffer, byte } => self.layout.buffer_addr[buffer] + byte as u32,
        }
    }

    fn exchange(&self, moves: &[Move]) -> Exchange {
        // Over rayon's threads, a compute set's moves being millions at
        // most sizes: the collected order and the sort's (destinations are
        // unique: no two moves write one byte) are the same on any number.
        let mut transfers: Vec<Transfer> = moves
            .par_iter()
            .with_min_len(1 << 14)
            .filter(|m| m.bytes > 0)
            .map(|m| {
                let (st, so) = self.loc(m.src);
                let (dt, d) = self.loc(m.dst);
                Transfer {
                    src_tile: st,
                    src_offset: so as u32,
                    dst_tile: dt,
                    dst_offset: d as u32,
                    bytes: m.bytes as u32,
                }
            })
            .collect();
        transfers.par_sort_unstable_by_key(|t| (t.dst_tile, t.dst_offset));
        // Merged in place (a compute set may have ten million transfers):
        // `t` joins the last kept one `l` when it continues it on both ends.
        transfers.dedup_by(|t, l| {
            let joins = l.dst_tile == t.dst_tile
                && l.src_tile == t.src_tile
                && l.dst_offset + l.bytes == t.dst_offset
                && l.src_offset + l.bytes == t.src_offset;
            if joins {
                l.bytes += t.bytes;
            }
            joins
        });
        transfers.shrink_to_fit();
        Exchange { transfers }
    }

    /// The view's elements as tile regions, in order, contiguous ones merged.
    fn regions(&self, view: &View) -> Vec<Region> {
        let mut out: Vec<Region> = Vec::new();
        self.mapping.segments(view, |s| {
            let (tile, off) = self.tensor_addr(s.tensor, s.interval, s.start);
            let bytes = (s.len * u64::from(self.graph.tensors[s.tensor].elem.size())) as u32;
            match out.last_mut() {
                Some(r) if r.tile == tile && u64::from(r.offset + r.bytes) == off => r.bytes += bytes,
                _ => out.push(Region { tile, offset: off as u32, bytes }),
            }
        });
        out
    }

    /// The element type of a view's tensors.
    fn elem_of(&self, view: &View) -> gp::ElemType {
        view.pieces.first().map_or(gp::ElemType::Float, |p| self.graph.tensors[p.tensor].elem)
    }

    /// The name of the first tensor a view shows (names a step).
    fn out_name(&self, view: &View) -> &str {
        view.pieces.first().map_or("collective", |p| self.graph.tensors[p.tensor].name.as_str())
    }

    fn scalar(&self, view: &View) -> ScalarRef {
        let mut first = None;
        self.mapping.segments(view, |s| {
            if first.is_none() {
                first = Some(s);
            }
        });
        match first {
            Some(s) => {
                let (tile, off) = self.tensor_addr(s.tensor, s.interval, s.start);
                ScalarRef { tile, offset: off as u32, elem: self.graph.tensors[s.tensor].elem }
            }
            None => ScalarRef { tile: 0, offset: 0, elem: gp::ElemType::Int },
        }
    }
}

/// Lowers everything but the code segment.
pub fn lower<'a>(
    graph: &Graph,
    resolved: &Resolved,
    codelets: &'a Codelets,
    mapping: &TileMapping,
    plan: &ExchangePlan,
    layout: &MemoryLayout,
) -> Unlinked<'a> {
    let cx = Ctx { graph, resolved, codelets, mapping, plan, layout };
    let n = mapping.num_tiles as usize;

    // Vertex instances, grouped by compute set, and the compute sets.
    // Sized exactly: grown by doubling, ten million vertices' lists touch
    // twice the memory they keep.
    let mut per_tile = vec![0usize; n];
    for v in graph.vertices.keys() {
        per_tile[mapping.vertex_tiles[v].index()] += 1;
    }
    let mut instances: Vec<Vec<VertexInstance>> = per_tile.iter().map(|&k| Vec::with_capacity(k)).collect();
    let mut compute_sets = Vec::with_capacity(graph.compute_sets.len());
    let mut touched: Vec<u32> = Vec::new();
    let mut start = vec![0u32; n];
    for (cs, c) in graph.compute_sets.iter() {
        touched.clear();
        for &v in &c.vertices {
            let t = mapping.vertex_tiles[v].index();
            if let Err(pos) = touched.binary_search(&(t as u32)) {
                touched.insert(pos, t as u32);
                start[t] = instances[t].len() as u32;
            }
            instances[t].push(VertexInstance {
                vertex_type: resolved.vertex_type[v].0,
                state: layout.vertex_state[v],
                id: v.0,
                cycles: graph.vertices[v].cycles,
            });
        }
        let tiles = touched
            .iter()
            .map(|&t| TileWork { tile: t, start: start[t as usize], end: instances[t as usize].len() as u32 })
            .collect();
        let x = &plan.compute_sets[cs];
        let mut lowered = ComputeSet {
            name: c.name.clone(),
            tiles,
            exchange_in: cx.exchange(&x.ins),
            exchange_out: cx.exchange(&x.outs),
            in_by_tile: false,
        };
        lowered.in_by_tile = in_by_tile(&cx, cs, &c.vertices, &lowered);
        compute_sets.push(lowered);
    }
    let states = vertex_states(&cx);

    // Tensor initial values per tile.
    let mut inits: Vec<Vec<Segment>> = vec![Vec::new(); n];
    // Every tile's copy of the objects' static storage.
    for (obj, at) in codelets.objects.iter().zip(&layout.statics) {
        let bytes = &obj.statics.init;
        if let Some(offset) = *at {
            if bytes.iter().any(|&x| x != 0) {
                inits.iter_mut().for_each(|i| i.push(Segment { offset, bytes: bytes.clone() }));
            }
        }
    }
    let mut replica_index = Vec::new();
    for (t, tensor) in graph.tensors.iter() {
        let Some(init) = &tensor.init else { continue };
        if let Init::ReplicationIndex = init {
            let regions = cx.regions(&View::whole(t, &tensor.shape));
            replica_index.push(image::ReplicaIndex { elem: tensor.elem, regions });
            continue;
        }
        if let Init::Splat(b) = init {
            if b.iter().all(|&x| x == 0) {
                continue;
            }
        }
        let size = tensor.elem.size() as usize;
        for (iv, &offset) in mapping.tensors[t].iter().zip(&layout.tensor_addr[t]) {
            let len = (iv.end - iv.start) as usize * size;
            let bytes = match init {
                Init::Splat(b) => b.iter().copied().cycle().take(len).collect::<Vec<u8>>(),
                Init::ReplicationIndex => continue,
                Init::Values(b) => {
                    let s = iv.start as usize * size;
                    b.get(s..s + len).map(|x| x.to_vec()).unwrap_or_else(|| vec![0; len])
                }
            };
            if bytes.iter().all(|&x| x == 0) {
                continue;
            }
            inits[iv.tile.index()].push(Segment { offset, bytes });
        }
    }

    let tiles: Vec<TileImage> = instances
        .into_par_iter()
        .zip(inits)
        .zip(states)
        .enumerate()
        .map(|(t, ((vertices, init), state))| lower_tile(&cx, t, vertices, init, state))
        .collect();

    let copies = plan.copies.values().map(|m| cx.exchange(m)).collect();
    let (programs, functions) = lower_programs(&cx);
    let tg = &graph.target;
    let target = image::Target {
        name: tg.preset.name().to_string(),
        ipus: tg.ipus,
        tiles_per_ipu: tg.tiles_per_ipu,
        bytes_per_tile: u64::from(tg.bytes_per_tile),
        workers: tg.workers,
        clock_mhz: f64::from(tg.clock_mhz),
        exchange_bytes_per_cycle: tg.exchange_bytes_per_cycle,
        sync_cycles: tg.sync_cycles,
        replicas: tg.replication_factor,
        links: tg.links,
    };
    let vertex_types = resolved
        .types
        .iter()
        .map(|(t, r)| UsedType {
            source: &codelets.objects[r.object as usize].source,
            vertex_type: resolved.type_info(codelets, t),
            isa: codelets.objects[r.object as usize].isa,
            statics: layout.statics[r.object as usize].unwrap_or(0),
        })
        .collect();
    let handles = graph
        .host_handles
        .values()
        .map(|h| Handle {
            name: h.name.clone(),
            to_device: h.direction == ir::HostDirection::ToDevice,
            elem: h.elem,
            shape: h.view.shape.clone(),
            regions: cx.regions(&h.view),
        })
        .collect();
    let streams = graph
        .streams
        .values()
        .map(|s| image::Stream {
            name: s.name.clone(),
            to_device: s.direction == ir::HostDirection::ToDevice,
            elem: s.elem,
            shape: s.shape.clone(),
        })
        .collect();
    let remote_buffers = graph
        .remote_buffers
        .values()
        .map(|r| image::RemoteBuffer {
            name: r.name.clone(),
            elem: r.elem,
            shape: r.shape.clone(),
            repeats: u32::try_from(r.repeats).unwrap_or(u32::MAX),
        })
        .collect();
    Unlinked {
        target,
        vertex_types,
        tiles,
        compute_sets,
        copies,
        programs,
        functions,
        handles,
        streams,
        remote_buffers,
        replica_index,
    }
}

/// Every tile's vertex states and descriptor arrays (its memory from
/// `states_base` to `arena_base`), written vertex by vertex in id order
/// over rayon's threads. Walking each tile's vertices instead reads the
/// graph, the plan and the layout, all stored by vertex id, at a stride
/// of the tile count: a cache miss at every table for every vertex (most
/// of this pass at ten million vertices). A vertex's bytes are its own
/// (no two vertices' states or descriptors overlap), so the order the
/// threads write them in leaves the same bytes.
fn vertex_states(cx: &Ctx<'_>) -> Vec<Vec<u8>> {
    let regions: Vec<Mutex<Vec<u8>>> = cx
        .layout
        .tiles
        .values()
        .map(|m| Mutex::new(vec![0u8; (m.arena_base - m.states_base) as usize]))
        .collect();
    let ids: Vec<VertexId> = cx.graph.vertices.keys().collect();
    // One scratch vector per thread for plain fields' bytes, not an
    // allocation per field of ten million vertices.
    ids.par_iter().with_min_len(4096).for_each_init(Vec::new, |scratch, &v| {
        let t = cx.mapping.vertex_tiles[v];
        let base = cx.layout.tiles[t].states_base;
        // A poisoned lock only means another vertex's writer panicked,
        // which the pass reports anyway; the bytes are still plain bytes.
        let mut region = regions[t.index()].lock().unwrap_or_else(|e| e.into_inner());
        write_state(cx, v, base, &mut region, scratch);
    });
    regions.into_iter().map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner())).collect()
}

/// One tile's image: memory size, initial contents (`region`: its vertex
/// states, from [`vertex_states`]), vertex instances.
fn lower_tile(
    cx: &Ctx<'_>,
    tile: usize,
    vertices: Vec<VertexInstance>,
    mut init: Vec<Segment>,
    mut region: Vec<u8>,
) -> TileImage {
    let mem = &cx.layout.tiles[TileId::new(tile)];
    // Trailing padding before the arena need not be stored.
    let used = region.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    region.truncate(used);
    if !region.is_empty() {
        init.push(Segment { offset: mem.states_base as u32, bytes: region });
    }
    init.sort_by_key(|s| s.offset);
    TileImage { mem_size: mem.total as u32, init, vertices }
}

fn put(region: &mut [u8], at: u64, bytes: &[u8]) {
    let at = at as usize;
    if let Some(dst) = region.get_mut(at..at + bytes.len()) {
        dst.copy_from_slice(bytes);
    }
}

/// Whether compute set `cs` (its `vertices`, lowered as `lowered`) may run
/// its exchange in tile by tile ([`ComputeSet::in_by_tile`]): the library
/// expansion created it (so its vertices too, all of the library's types),
/// every transfer goes to a tile with vertices, and no transfer
/// reads a byte an output edge of a vertex covers (reading an element a
/// vertex of the set writes is already an error; the bytes are checked
/// too, whatever the layout places where). User codelets keep the whole
/// exchange before compute: their code could write anywhere on their tile,
/// and a transfer reading it would then depend on thread timing.
fn in_by_tile(cx: &Ctx<'_>, cs: ComputeSetId, vertices: &[VertexId], lowered: &ComputeSet) -> bool {
    let transfers = &lowered.exchange_in.transfers;
    let Some(library) = cx.codelets.library else { return false };
    if transfers.is_empty() || cs.index() < library.first_compute_set {
        return false;
    }
    let has_work = |t: u32| lowered.tiles.binary_search_by_key(&t, |w| w.tile).is_ok();
    if !transfers.iter().all(|tr| has_work(tr.dst_tile)) {
        return false;
    }
    // The bytes the vertices may write, as (tile, start, end).
    let mut writes: Vec<(u32, u64, u64)> = Vec::new();
    for &v in vertices {
        let r = &cx.resolved.types[cx.resolved.vertex_type[v]];
        if r.object as usize != library.object {
            return false;
        }
        let vt = cx.resolved.vertex_info(cx.codelets, v);
        let tile = cx.mapping.vertex_tiles[v].index() as u32;
        for e in cx.plan.vertex_edges(v) {
            let f = &vt.fields[e.field as usize];
            if f.direction.is_some_and(|d| d != gp::Direction::Input) && e.count > 0 {
                let start = u64::from(cx.edge_addr(e.loc));
                writes.push((tile, start, start + e.count * u64::from(f.elem.size())));
            }
        }
    }
    // Merged into disjoint runs, a read meets a write if and only if the
    // last run starting before the read's end reaches past its start.
    writes.sort_unstable();
    let mut runs: Vec<(u32, u64, u64)> = Vec::with_capacity(writes.len());
    for w in writes {
        match runs.last_mut() {
            Some(l) if l.0 == w.0 && w.1 <= l.2 => l.2 = l.2.max(w.2),
            _ => runs.push(w),
        }
    }
    transfers.iter().all(|tr| {
        let (lo, hi) = (u64::from(tr.src_offset), u64::from(tr.src_offset) + u64::from(tr.bytes));
        let after = runs.partition_point(|w| (w.0, w.1) < (tr.src_tile, hi));
        after == 0 || runs[after - 1].0 != tr.src_tile || runs[after - 1].2 <= lo
    })
}

/// Writes vertex `v`'s state and descriptor arrays into the tile's state
/// region (which starts at tile address `base`); `scratch` holds a plain
/// field's bytes on their way.
fn write_state(cx: &Ctx<'_>, v: VertexId, base: u64, region: &mut [u8], scratch: &mut Vec<u8>) {
    let vt = cx.resolved.vertex_info(cx.codelets, v);
    let vx = &cx.graph.vertices[v];
    let state = u64::from(cx.layout.vertex_state[v]) - base;
    let edges = cx.plan.vertex_edges(v);
    let mut e = 0usize;
    let mut desc = u64::from(cx.layout.descriptors[v]);
    for (k, f) in vt.fields.iter().enumerate() {
        let at = state + u64::from(f.offset);
        match f.kind {
            gp::FieldKind::Plain => {
                if let FieldValue::Literal(lit) = vx.fields[cx.resolved.field_source(v, k)].value {
                    scratch.clear();
                    vocab::encode(f.elem, lit.into(), scratch);
                    scratch.resize(f.size.min(8) as usize, 0);
                    put(region, at, scratch);
                }
            }
            gp::FieldKind::Scalar | gp::FieldKind::Vector(_) => {
                let (addr, count) = match edges.get(e) {
                    Some(x) if x.field == k as u32 => {
                        e += 1;
                        let addr = cx.edge_addr(x.loc);
                        // `exchange` and `layout` place such edges aligned.
                        debug_assert!(f.min_align == 0 || x.count == 0 || addr.is_multiple_of(f.min_align));
                        (addr, x.count)
                    }
                    _ => (0, 0),
                };
                put(region, at, &addr.to_le_bytes());
                if let Some(c) = f.count_offset() {
                    put(region, at + u64::from(c), &(count as u32).to_le_bytes());
                }
            }
            gp::FieldKind::ScalarList(_) => {
                let array = desc;
                let mut items = 0u32;
                while let Some(x) = edges.get(e).filter(|x| x.field == k as u32) {
                    put(region, desc - base, &cx.edge_addr(x.loc).to_le_bytes());
                    desc += 4;
                    items += 1;
                    e += 1;
                }
                put(region, at, &(array as u32).to_le_bytes());
                if let Some(c) = f.count_offset() {
                    put(region, at + u64::from(c), &items.to_le_bytes());
                }
            }
            gp::FieldKind::VectorList(_) => {
                let array = desc;
                let mut items = 0u32;
                while let Some(x) = edges.get(e).filter(|x| x.field == k as u32) {
                    let addr = cx.edge_addr(x.loc);
                    debug_assert!(f.min_align == 0 || x.count == 0 || addr.is_multiple_of(f.min_align));
                    let mut pair = addr.to_le_bytes().to_vec();
                    pair.extend_from_slice(&(x.count as u32).to_le_bytes());
                    put(region, desc - base, &pair);
                    desc += 8;
                    items += 1;
                    e += 1;
                }
                put(region, at, &(array as u32).to_le_bytes());
                if let Some(c) = f.count_offset() {
                    put(region, at + u64::from(c), &items.to_le_bytes());
                }
            }
        }
    }
}

/// Lowers the entry programs and the functions.
fn lower_programs(cx: &Ctx<'_>) -> (Vec<Program>, Vec<Program>) {
    let lower = |p: &ir::Program| Program { name: p.name.clone(), body: lower_body(cx, &p.body) };
    let programs = cx.graph.programs.values().map(lower).collect();
    let functions = cx.graph.functions.values().map(lower).collect();
    (programs, functions)
}

fn lower_body(cx: &Ctx<'_>, body: &[Stmt]) -> Vec<Step> {
    let mut out = Vec::new();
    for s in body {
        lower_stmt(cx, s, &mut out);
    }
    out
}

fn lower_stmt(cx: &Ctx<'_>, s: &Stmt, out: &mut Vec<Step>) {
    use ir::CopyEnd as E;
    match s {
        Stmt::Copy { src, dst, id } => match (src, dst) {
            (E::Tensor(_), E::Tensor(_)) => {
                out.extend(cx.plan.copy_stmts.get(*id).iter().map(|c| Step::Copy(c.0)))
            }
            (E::Stream(st), E::Tensor(v)) => {
                out.push(Step::StreamIn { stream: st.0, regions: cx.regions(v) })
            }
            (E::Tensor(v), E::Stream(st)) => {
                out.push(Step::StreamOut { stream: st.0, regions: cx.regions(v) })
            }
            (E::Remote(rb, rep), E::Tensor(v)) => {
                out.push(Step::RemoteRead { buffer: rb.0, repeat: *rep as u32, regions: cx.regions(v) })
            }
            (E::Tensor(v), E::Remote(rb, rep)) => {
                out.push(Step::RemoteWrite { buffer: rb.0, repeat: *rep as u32, regions: cx.regions(v) })
            }
            // The checker rejects the other combinations.
            _ => {}
        },
        Stmt::Execute(cs) => out.push(Step::Execute(cs.0)),
        Stmt::Print { label, view, style } => out.push(Step::Print {
            label: label.clone(),
            style: *style,
            elem: cx.elem_of(view),
            shape: view.shape.clone(),
            regions: cx.regions(view),
        }),
        Stmt::Repeat { count, body } => out.push(Step::Repeat { count: *count, body: lower_body(cx, body) }),
        Stmt::While { cond, pred, until, body } => {
            let cond = lower_body(cx, cond);
            let body = lower_body(cx, body);
            out.push(Step::While { cond, pred: cx.scalar(pred), until: *until, body })
        }
        Stmt::If { pred, then, else_ } => {
            let then = lower_body(cx, then);
            let otherwise = lower_body(cx, else_);
            out.push(Step::If { pred: cx.scalar(pred), then, otherwise })
        }
        Stmt::Switch { selector, cases, default } => {
            let cases = cases.iter().map(|(k, b)| (*k, lower_body(cx, b))).collect();
            let default = lower_body(cx, default);
            out.push(Step::Switch { selector: cx.scalar(selector), cases, default })
        }
        Stmt::Undef(_) => {}
        Stmt::Sync => out.push(Step::Sync),
        Stmt::Call(f) => out.push(Step::Call(f.0)),
        Stmt::Collective(op) => {
            if let ir::OpKind::Collective { input, kind, op: reduce, group } = &op.kind {
                out.push(Step::Collective(Box::new(image::Collective {
                    label: format!("{}.{}", cx.out_name(&op.out), kind.name()),
                    kind: *kind,
                    op: *reduce,
                    group: *group,
                    elem: cx.elem_of(input),
                    input: cx.regions(input),
                    output: cx.regions(&op.out),
                })))
            }
        }
        // Expanded into compute sets by `ops::expand` before any pass runs.
        Stmt::Op(_) => {}
        Stmt::Block(body) => {
            for s in body {
                lower_stmt(cx, s, out);
            }
        }
        Stmt::Named { name, body } => {
            out.push(Step::Block { name: name.clone(), body: lower_body(cx, body) })
        }
    }
}

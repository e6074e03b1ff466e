//! `layout_memory`: the tile address of every tensor interval, vertex
//! state, vector-list descriptor array and exchange buffer, and the memory
//! each tile needs, by category.
//!
//! Each tile's memory, from address 0: the static storage of the codelet
//! objects the graph uses (`gp::Statics`, one object after another in
//! object order, the same addresses on every tile, each tile its own copy;
//! reported as variables, which is what they are), variables, then
//! constants (each
//! mapped interval contiguous and naturally aligned, or at the `MinAlign`
//! of a vector edge passed in place, in tensor id order),
//! vertex states (by vertex id, at the codelet's state alignment), the
//! vector-list descriptor arrays (pairs of u32 address and count), one
//! exchange arena shared by every compute set and copy (buffers of one owner
//! never live at the same time as another owner's, so the arena is as large
//! as the largest owner's buffers; each buffer 8-byte aligned, or at its
//! edge's `MinAlign`), and the worker stacks (the largest stack
//! of a vertex type on the tile, times the workers). Categories follow the
//! Poplar memory report. Code is not in tile memory in this model (it lives
//! in the image's shared segment), so it is reported but not counted.
//! More than `bytes_per_tile` on any tile is an error naming each tile with
//! its breakdown, unless out of memory is allowed.

use ir::{EntityRef, Graph, PrimaryMap, SecondaryMap, Spans, TensorId, TensorKind, VertexId};
use linker::gp;

use crate::error::{Stage, StageError};
use crate::exchange::{ExchangePlan, Owner};
use crate::ids::{BufferId, TileId};
use crate::mapping::TileMapping;
use crate::resolve::Resolved;
use crate::Codelets;

/// Bytes per category on one tile, and the addresses of its regions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileMemory {
    /// Codelet objects' static storage (reported with the variables).
    pub statics: u64,
    pub variable: u64,
    pub constant: u64,
    pub vertex_state: u64,
    pub descriptors: u64,
    pub exchange: u64,
    pub stack: u64,
    /// Alignment padding.
    pub gaps: u64,
    /// Everything: the tile's memory size.
    pub total: u64,
    /// Start of the vertex states (end of the tensors).
    pub states_base: u64,
    /// Start of the exchange arena.
    pub arena_base: u64,
    /// Start of the stacks.
    pub stack_base: u64,
    /// Vertices on the tile.
    pub vertices: u64,
}

impl TileMemory {
    /// The categories as (Poplar report name, bytes), in a fixed order.
    pub fn categories(&self) -> [(&'static str, u64); 7] {
        [
            ("variable", self.statics + self.variable),
            ("constant", self.constant),
            ("vertexInstanceState", self.vertex_state),
            ("vectorListDescriptor", self.descriptors),
            ("message", self.exchange),
            ("stack", self.stack),
            ("padding", self.gaps),
        ]
    }
}

/// The result of [`layout_memory`].
#[derive(Clone, Debug, Default)]
pub struct MemoryLayout {
    /// Per tensor, per mapping interval: its tile address.
    pub tensor_addr: SecondaryMap<TensorId, Vec<u32>>,
    /// Per vertex: the address of its state.
    pub vertex_state: SecondaryMap<VertexId, u32>,
    /// Per vertex: the address of its descriptor arrays (0 when it has no vector list).
    pub descriptors: SecondaryMap<VertexId, u32>,
    /// Per vertex: the bytes of its descriptor arrays.
    pub descriptor_bytes: SecondaryMap<VertexId, u32>,
    /// Per buffer: its address.
    pub buffer_addr: SecondaryMap<BufferId, u32>,
    /// Per tile.
    pub tiles: PrimaryMap<TileId, TileMemory>,
    /// Per codelet object (index in `Codelets::objects`): the tile address
    /// of its static storage on every tile (none when it has none or the
    /// graph uses none of its vertex types).
    pub statics: Vec<Option<u32>>,
}

fn align(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

fn addr(x: u64) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

/// Lays out every tile. Returns the layout and, when a tile overflows, the
/// out-of-memory error (the layout is complete either way, for reports).
pub fn layout_memory(
    graph: &Graph,
    spans: &Spans,
    resolved: &Resolved,
    codelets: &Codelets,
    mapping: &TileMapping,
    plan: &ExchangePlan,
) -> (MemoryLayout, Option<StageError>) {
    let n = mapping.num_tiles as usize;
    let mut tiles = vec![TileMemory::default(); n];
    let mut out = MemoryLayout::default();
    // The static storage of each object the graph uses, from address 0.
    let mut statics_end = 0u64;
    out.statics = vec![None; codelets.objects.len()];
    let mut used = vec![false; codelets.objects.len()];
    for r in resolved.types.values() {
        used[r.object as usize] = true;
    }
    for (o, obj) in codelets.objects.iter().enumerate() {
        if used[o] && !obj.statics.init.is_empty() {
            let at = align(statics_end, u64::from(obj.statics.align));
            out.statics[o] = Some(addr(at));
            statics_end = at + obj.statics.init.len() as u64;
        }
    }
    for m in &mut tiles {
        m.statics = statics_end;
    }
    let mut cur = vec![statics_end; n];
    // Tensors: variables first, then constants.
    for kind in [TensorKind::Var, TensorKind::Const] {
        for (t, tensor) in graph.tensors.iter() {
            if tensor.kind != kind {
                continue;
            }
            let size = u64::from(tensor.elem.size());
            let addrs = out.tensor_addr.get_mut(t);
            for (k, iv) in mapping.tensors[t].iter().enumerate() {
                let tile = iv.tile.index();
                // An edge passed in place may ask for more (`MinAlign`).
                let want = plan.interval_align.get(&(t, k as u32)).copied().unwrap_or(0);
                let at = align(cur[tile], size.max(want));
                tiles[tile].gaps += at - cur[tile];
                let bytes = (iv.end - iv.start) * size;
                addrs.push(addr(at));
                cur[tile] = at + bytes;
                match kind {
                    TensorKind::Var => tiles[tile].variable += bytes,
                    TensorKind::Const => tiles[tile].constant += bytes,
                }
            }
        }
    }
    for (t, m) in tiles.iter_mut().enumerate() {
        m.states_base = cur[t];
    }

    // Vertex states, then descriptor arrays, per tile in vertex order.
    let mut stack = vec![0u64; n];
    for v in graph.vertices.keys() {
        let vt = resolved.vertex_info(codelets, v);
        let tile = mapping.vertex_tiles[v].index();
        let a = u64::from(vt.state_align.max(1));
        let at = align(cur[tile], a);
        tiles[tile].gaps += at - cur[tile];
        out.vertex_state.set(v, addr(at));
        cur[tile] = at + u64::from(vt.state_size);
        tiles[tile].vertex_state += u64::from(vt.state_size);
        tiles[tile].vertices += 1;
        stack[tile] = stack[tile].max(u64::from(vt.stack_size));
    }
    for v in graph.vertices.keys() {
        let vt = resolved.vertex_info(codelets, v);
        if !has_descriptor(vt) {
            continue;
        }
        // An (address, count) pair per sub-vector; an address per scalar item.
        let bytes: u64 = plan
            .vertex_edges(v)
            .iter()
            .map(|e| match vt.fields[e.field as usize].kind {
                gp::FieldKind::VectorList(_) => 8,
                gp::FieldKind::ScalarList(_) => 4,
                _ => 0,
            })
            .sum();
        let tile = mapping.vertex_tiles[v].index();
        let at = align(cur[tile], 4);
        tiles[tile].gaps += at - cur[tile];
        out.descriptors.set(v, addr(at));
        out.descriptor_bytes.set(v, addr(bytes));
        cur[tile] = at + bytes;
        tiles[tile].descriptors += bytes;
    }

    // The exchange arena: per tile, per owner, a bump allocator from 0.
    let mut arena: Vec<Vec<(Owner, u64)>> = vec![Vec::new(); n];
    let mut rel = Vec::with_capacity(plan.buffers.len());
    // Per tile, the largest alignment a buffer asks for beyond 8 bytes: the
    // arena starts at it, so offsets aligned in the arena stay aligned.
    let mut arena_align = vec![8u64; n];
    for b in plan.buffers.values() {
        let slots = &mut arena[b.tile.index()];
        let slot = match slots.iter().rposition(|s| s.0 == b.owner) {
            Some(i) => i,
            None => {
                slots.push((b.owner, 0));
                slots.len() - 1
            }
        };
        let at = align(slots[slot].1, b.align.max(8));
        arena_align[b.tile.index()] = arena_align[b.tile.index()].max(b.align);
        rel.push(at);
        slots[slot].1 = at + b.bytes;
    }
    for t in 0..n {
        let base = align(cur[t], arena_align[t]);
        tiles[t].gaps += base - cur[t];
        tiles[t].arena_base = base;
        let size = arena[t].iter().map(|s| s.1).max().unwrap_or(0);
        tiles[t].exchange = size;
        cur[t] = base + size;
        let s = stack[t] * u64::from(graph.target.workers);
        if s > 0 {
            let sb = align(cur[t], 8);
            tiles[t].gaps += sb - cur[t];
            tiles[t].stack_base = sb;
            tiles[t].stack = s;
            cur[t] = sb + s;
        } else {
            tiles[t].stack_base = cur[t];
        }
        tiles[t].total = cur[t];
    }
    for ((id, b), &r) in plan.buffers.iter().zip(&rel) {
        out.buffer_addr.set(id, addr(tiles[b.tile.index()].arena_base + r));
    }
    out.tiles = tiles.into_iter().collect();

    // Out of memory?
    let limit = u64::from(graph.target.bytes_per_tile);
    let over: Vec<(TileId, &TileMemory)> = out.tiles.iter().filter(|(_, m)| m.total > limit).collect();
    if over.is_empty() {
        return (out, None);
    }
    let mut d = match spans.target {
        Some(s) => ir::Diagnostic::error(s, String::new()),
        None => ir::Diagnostic::error_no_span(String::new()),
    };
    d.message = format!(
        "out of memory: {} tile{} need{} more than the target's {limit} bytes per tile",
        over.len(),
        if over.len() == 1 { "" } else { "s" },
        if over.len() == 1 { "s" } else { "" }
    );
    for (t, m) in over.iter().take(16) {
        let parts: Vec<String> =
            m.categories().iter().filter(|c| c.1 > 0).map(|(k, b)| format!("{k} {b}")).collect();
        d = d.with_note(format!("{t}: {} bytes ({})", m.total, parts.join(", ")));
    }
    if over.len() > 16 {
        d = d.with_note(format!("and {} more tiles", over.len() - 16));
    }
    d = d.with_note("map tensors over more tiles, or pass --allow-out-of-memory to get the profile");
    (out, Some(StageError::new(Stage::Memory, vec![d])))
}

/// Whether a vertex of this type gets a descriptor block beside its state:
/// one (address, count) pair per sub-vector of its vector lists and one
/// address per item of its vectors of one-element edges.
pub fn has_descriptor(vt: &gp::VertexType) -> bool {
    vt.fields.iter().any(|f| matches!(f.kind, gp::FieldKind::VectorList(_) | gp::FieldKind::ScalarList(_)))
}

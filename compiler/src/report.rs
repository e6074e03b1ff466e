//! `--report`: the graph profile of the Poplar user guide ("Graph profile"),
//! as `report::schema::GraphProfile`, the struct every reader parses: the
//! target (with its sync delays), graph counts, vertex types, compute sets,
//! internal, IPU-to-IPU and host exchanges (bytes each tile really sends
//! and receives, and its cycles), the program structure (flattened, with
//! `children` indices) and memory ([`memory`]: by tile, by category, region
//! and overlap, by compute set and by vertex type). Arrays indexed by tile
//! have one entry per tile.
//!
//! Programs and exchanges are numbered by `linker::profile::ProgramTree`,
//! the numbering the runtime's execution profile uses for `programTrace`
//! and its steps, so the two profiles' indices and names agree. Compute
//! cycles are measured by the simulator, not estimated here, so
//! `computeSets.cycleEstimates` is left out; `poplar-run` on `sim` fills
//! it in (`runtime::profile`).
//!
//! Beyond the guide's keys, `variables` lists each tensor's bytes on the
//! tiles that hold it (sparse `[tile, bytes]` pairs), `memory.byTile.vertices`
//! counts vertices per tile and `vertexTypes.codeSizes` gives each type's
//! code bytes, for `poplar-report`'s per-tile view. `imageHash` is the
//! content hash of the linked image (its `prog.exe` bytes), which the
//! execution profile of a run of it carries too.

mod memory;

use ::report::schema::{
    ComputeSets, Exchanges, GraphCounts, GraphProfile, GraphTarget, OtherExchanges, ProgramNode, VertexTypes,
};
use ir::{FieldValue, Graph};
use linker::link::Unlinked;
use linker::profile::{self as numbering, ExchangeSource, NodeKind, ProgramTree, TreeInput};

use crate::exchange::ExchangePlan;
use crate::layout::MemoryLayout;
use crate::mapping::TileMapping;
use crate::resolve::Resolved;
use crate::Codelets;

/// The programs of an unlinked image as both profiles number them.
pub fn program_tree(u: &Unlinked<'_>) -> ProgramTree {
    ProgramTree::new(&TreeInput {
        programs: &u.programs,
        functions: &u.functions,
        compute_sets: u
            .compute_sets
            .iter()
            .map(|c| {
                (c.name.as_str(), !c.exchange_in.transfers.is_empty(), !c.exchange_out.transfers.is_empty())
            })
            .collect(),
        streams: u.streams.iter().map(|s| s.name.as_str()).collect(),
        remote_buffers: u.remote_buffers.iter().map(|b| b.name.as_str()).collect(),
    })
}

fn program_node(n: &numbering::Node) -> ProgramNode {
    let mut p = ProgramNode {
        kind: String::new(),
        children: n.children.clone(),
        name: n.name.clone(),
        exchange: None,
        compute_set: None,
        repeat_count: None,
        target: None,
    };
    p.kind = match n.kind {
        NodeKind::Sequence => "Sequence",
        NodeKind::DoExchange(x) => {
            p.exchange = Some(x);
            "DoExchange"
        }
        NodeKind::OnTileExecute(c) => {
            p.compute_set = Some(c);
            "OnTileExecute"
        }
        NodeKind::StreamCopy(x) => {
            p.exchange = Some(x);
            "StreamCopy"
        }
        NodeKind::Repeat(count) => {
            p.repeat_count = Some(count);
            "Repeat"
        }
        NodeKind::RepeatWhile { until: false } => "RepeatWhileTrue",
        NodeKind::RepeatWhile { until: true } => "RepeatWhileFalse",
        NodeKind::IfElse => "IfElse",
        NodeKind::Switch => "Switch",
        NodeKind::Call(f) => {
            p.target = Some(f);
            "Call"
        }
        NodeKind::Sync => "Sync",
        NodeKind::GlobalExchange => "GlobalExchange",
        NodeKind::Block => "Block",
    }
    .to_string();
    p
}

/// Internal exchanges: bytes each tile sends and receives, and its cycles.
fn exchanges(u: &Unlinked<'_>, tree: &ProgramTree, num_tiles: usize) -> Exchanges {
    let bpc = u.target.exchange_bytes_per_cycle;
    let mut x = Exchanges {
        names: Vec::new(),
        bytes_sent_by_tile: Vec::new(),
        bytes_received_by_tile: Vec::new(),
        cycles_by_tile: Vec::new(),
    };
    for (name, source) in &tree.exchanges {
        let transfers = match *source {
            ExchangeSource::Pre(c) => &u.compute_sets[c as usize].exchange_in,
            ExchangeSource::Post(c) => &u.compute_sets[c as usize].exchange_out,
            ExchangeSource::Copy(c) => &u.copies[c as usize],
        };
        let (mut sent, mut received, mut cycles) =
            (vec![0; num_tiles], vec![0; num_tiles], vec![0; num_tiles]);
        for (t, s, r) in transfers.bytes_by_tile() {
            sent[t as usize] = s;
            received[t as usize] = r;
            cycles[t as usize] = linker::cost::exchange_tile_cycles(s, r, bpc);
        }
        x.names.push(name.clone());
        x.bytes_sent_by_tile.push(sent);
        x.bytes_received_by_tile.push(received);
        x.cycles_by_tile.push(cycles);
    }
    x
}

/// Host exchanges: every tile taking part waits for the whole transfer.
fn host_exchanges(u: &Unlinked<'_>, tree: &ProgramTree, num_tiles: usize) -> OtherExchanges {
    let mut x = OtherExchanges::default();
    for h in &tree.host_exchanges {
        let cycles = linker::cost::host_transfer_cycles(h.bytes(), u.target.clock_mhz);
        let (mut sent, mut received, mut est) = (vec![0; num_tiles], vec![0; num_tiles], vec![0; num_tiles]);
        for (t, b) in h.bytes_by_tile() {
            if h.to_device {
                received[t as usize] = b;
            } else {
                sent[t as usize] = b;
            }
            est[t as usize] = cycles;
        }
        x.names.push(h.name.clone());
        x.bytes_sent_by_tile.push(sent);
        x.bytes_received_by_tile.push(received);
        x.estimated_cycles_by_tile.push(est);
    }
    x
}

/// The graph profile, before linking: [`to_json`] writes it once the
/// image's hash is known.
pub fn graph_profile(
    graph: &Graph,
    resolved: &Resolved,
    codelets: &Codelets,
    plan: &ExchangePlan,
    mapping: &TileMapping,
    layout: &MemoryLayout,
    u: &Unlinked<'_>,
) -> GraphProfile {
    let tg = &graph.target;
    let num_tiles = tg.total_tiles() as usize;
    let target = GraphTarget {
        kind: if tg.preset == ir::Preset::Cpu { "CPU" } else { "IPU_MODEL" }.into(),
        name: tg.preset.name().into(),
        bytes_per_ipu: u64::from(tg.bytes_per_tile) * u64::from(tg.tiles_per_ipu),
        bytes_per_tile: u64::from(tg.bytes_per_tile),
        clock_frequency: f64::from(tg.clock_mhz) * 1e6,
        num_ipus: tg.ipus,
        tiles_per_ipu: tg.tiles_per_ipu,
        num_tiles: num_tiles as u32,
        num_worker_contexts: tg.workers,
        total_memory: u64::from(tg.bytes_per_tile) * num_tiles as u64,
        // The simulator's sync costs every tile the same `sync_cycles`.
        relative_sync_delay_by_tile: vec![0; tg.tiles_per_ipu as usize],
        min_sync_delay: u64::from(tg.sync_cycles),
    };
    let num_edges: usize = graph
        .vertices
        .values()
        .flat_map(|v| v.fields.iter())
        .map(|f| match &f.value {
            FieldValue::Edge(_) => 1,
            FieldValue::EdgeList(l) => l.len(),
            FieldValue::Literal(_) => 0,
        })
        .sum();
    let counts = GraphCounts {
        num_compute_sets: graph.compute_sets.len() as u64,
        num_edges: num_edges as u64,
        num_vars: graph.tensors.len() as u64,
        num_vertices: graph.vertices.len() as u64,
    };
    let types: Vec<&linker::gp::VertexType> =
        resolved.types.keys().map(|t| resolved.type_info(codelets, t)).collect();
    let vertex_types = VertexTypes {
        names: types.iter().map(|t| t.name.clone()).collect(),
        sizes: types.iter().map(|t| u64::from(t.state_size)).collect(),
        code_sizes: types.iter().map(|t| t.plain.code.len() as u64).collect(),
    };
    let mut compute_sets = ComputeSets {
        names: Vec::new(),
        vertex_counts: Vec::new(),
        vertex_types: Vec::new(),
        cycle_estimates: None,
    };
    for c in graph.compute_sets.values() {
        let mut counts: Vec<(u32, u64)> = Vec::new();
        for &v in &c.vertices {
            let t = resolved.vertex_type[v].0;
            match counts.iter_mut().find(|x| x.0 == t) {
                Some(x) => x.1 += 1,
                None => counts.push((t, 1)),
            }
        }
        counts.sort();
        compute_sets.names.push(c.name.clone());
        compute_sets.vertex_types.push(counts.iter().map(|x| x.0).collect());
        compute_sets.vertex_counts.push(counts.iter().map(|x| x.1).collect());
    }

    let tree = program_tree(u);
    let _ = plan;
    GraphProfile {
        image_hash: None,
        target,
        graph: counts,
        vertex_types,
        compute_sets,
        exchanges: exchanges(u, &tree, num_tiles),
        external_exchanges: OtherExchanges::default(),
        host_exchanges: host_exchanges(u, &tree, num_tiles),
        programs: tree.nodes.iter().map(program_node).collect(),
        control_programs: tree.control.clone(),
        function_programs: tree.functions.clone(),
        memory: memory::memory(graph, resolved, codelets, mapping, layout, &types),
        variables: memory::variables(graph, mapping),
        optimization_info: Default::default(),
    }
}

/// The graph profile as pretty JSON text, with the content hash of the
/// image linked from it (none when the graph does not fit: no image), so
/// that a reader can tell which execution profiles belong with it.
pub fn to_json(mut profile: GraphProfile, image: Option<&linker::image::Image>) -> String {
    profile.image_hash = image.map(linker::image::Image::content_hash);
    let mut s = serde_json::to_string_pretty(&profile).unwrap_or_default();
    s.push('\n');
    s
}

//! `--report`: the graph profile of the Poplar user guide ("Graph profile"):
//! target, graph counts, vertex types, compute sets, exchanges (bytes sent
//! and received by tile, per internal exchange), the program structure
//! (flattened, with `children` indices), and memory by tile and by
//! category. Arrays indexed by tile have one entry per tile. Cycle estimates
//! are the simulator's business and are left out. Beyond the guide's keys,
//! `variables` lists each tensor's bytes on the tiles that hold it (sparse
//! `[tile, bytes]` pairs), `memory.byTile.vertices` counts vertices per tile
//! and `vertexTypes.codeSizes` gives each type's code bytes, for
//! `poplar-report`'s per-tile view.

use serde_json::{json, Value};

use ir::{FieldValue, Graph};
use linker::image::{Exchange, Step};
use linker::link::Unlinked;

use crate::exchange::ExchangePlan;
use crate::layout::MemoryLayout;
use crate::mapping::TileMapping;
use crate::resolve::Resolved;
use crate::Codelets;

struct Programs {
    list: Vec<Value>,
    exchanges: Vec<(String, Exchange)>,
}

impl Programs {
    fn push(&mut self, v: Value) -> usize {
        self.list.push(v);
        self.list.len() - 1
    }

    fn exchange(&mut self, name: String, x: &Exchange) -> usize {
        self.exchanges.push((name, x.clone()));
        self.exchanges.len() - 1
    }

    fn seq(&mut self, u: &Unlinked<'_>, body: &[Step]) -> usize {
        let children: Vec<usize> = body.iter().map(|s| self.step(u, s)).collect();
        self.push(json!({"type": "Sequence", "children": children}))
    }

    fn step(&mut self, u: &Unlinked<'_>, s: &Step) -> usize {
        match s {
            Step::Execute(c) => {
                let cs = &u.compute_sets[*c as usize];
                let mut children = Vec::new();
                if !cs.exchange_in.transfers.is_empty() {
                    let x = self.exchange(format!("{}/ExchangePre", cs.name), &cs.exchange_in);
                    children.push(self.push(json!({"type": "DoExchange", "exchange": x, "name": format!("{}/ExchangePre", cs.name)})));
                }
                children.push(self.push(json!({"type": "OnTileExecute", "computeSet": c})));
                if !cs.exchange_out.transfers.is_empty() {
                    let x = self.exchange(format!("{}/ExchangePost", cs.name), &cs.exchange_out);
                    children.push(self.push(json!({"type": "DoExchange", "exchange": x, "name": format!("{}/ExchangePost", cs.name)})));
                }
                self.push(json!({"type": "Sequence", "children": children}))
            }
            Step::Copy(c) => {
                let x = self.exchange(format!("copy{c}"), &u.copies[*c as usize]);
                self.push(json!({"type": "DoExchange", "exchange": x, "name": format!("copy{c}")}))
            }
            Step::StreamIn { stream, .. } | Step::StreamOut { stream, .. } => {
                self.push(json!({"type": "StreamCopy", "name": u.streams[*stream as usize].name}))
            }
            Step::RemoteRead { buffer, .. } | Step::RemoteWrite { buffer, .. } => {
                self.push(json!({"type": "StreamCopy", "name": u.remote_buffers[*buffer as usize].name}))
            }
            Step::Print { label, .. } => {
                self.push(json!({"type": "StreamCopy", "name": format!("print {label}")}))
            }
            Step::Repeat { count, body } => {
                let b = self.seq(u, body);
                self.push(json!({"type": "Repeat", "repeatCount": count, "children": [b]}))
            }
            Step::While { cond, body, .. } => {
                let c = self.seq(u, cond);
                let b = self.seq(u, body);
                self.push(json!({"type": "RepeatWhileTrue", "children": [c, b]}))
            }
            Step::If { then, otherwise, .. } => {
                let a = self.seq(u, then);
                let b = self.seq(u, otherwise);
                self.push(json!({"type": "IfElse", "children": [a, b]}))
            }
            Step::Switch { cases, default, .. } => {
                let mut children: Vec<usize> = cases.iter().map(|(_, b)| self.seq(u, b)).collect();
                children.push(self.seq(u, default));
                self.push(json!({"type": "Switch", "children": children}))
            }
            Step::Call(f) => self.push(json!({"type": "Call", "target": f})),
            Step::Sync => self.push(json!({"type": "Sync"})),
        }
    }
}

/// The graph profile as pretty JSON text.
pub fn graph_profile(
    graph: &Graph,
    resolved: &Resolved,
    codelets: &Codelets,
    plan: &ExchangePlan,
    mapping: &TileMapping,
    layout: &MemoryLayout,
    u: &Unlinked<'_>,
) -> String {
    let tg = &graph.target;
    let num_tiles = tg.total_tiles() as usize;
    let target = json!({
        "type": if tg.preset == ir::Preset::Cpu { "CPU" } else { "IPU_MODEL" },
        "name": tg.preset.name(),
        "bytesPerIPU": u64::from(tg.bytes_per_tile) * u64::from(tg.tiles_per_ipu),
        "bytesPerTile": tg.bytes_per_tile,
        "clockFrequency": f64::from(tg.clock_mhz) * 1e6,
        "numIPUs": tg.ipus,
        "tilesPerIPU": tg.tiles_per_ipu,
        "numTiles": num_tiles,
        "numWorkerContexts": tg.workers,
        "totalMemory": u64::from(tg.bytes_per_tile) * num_tiles as u64,
    });
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
    let graph_info = json!({
        "numComputeSets": graph.compute_sets.len(),
        "numEdges": num_edges,
        "numVars": graph.tensors.len(),
        "numVertices": graph.vertices.len(),
    });
    let types: Vec<&linker::gp::VertexType> =
        (0..resolved.types.len() as u32).map(|t| resolved.type_info(codelets, t)).collect();
    let vertex_types = json!({
        "names": types.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
        "sizes": types.iter().map(|t| t.state_size).collect::<Vec<_>>(),
        "codeSizes": types.iter().map(|t| t.plain.code.len()).collect::<Vec<_>>(),
    });
    let mut cs_names = Vec::new();
    let mut cs_counts = Vec::new();
    let mut cs_types = Vec::new();
    for c in graph.compute_sets.values() {
        let mut counts: Vec<(u32, u64)> = Vec::new();
        for &v in &c.vertices {
            let t = resolved.vertex_type[ir::EntityRef::index(v)];
            match counts.iter_mut().find(|x| x.0 == t) {
                Some(x) => x.1 += 1,
                None => counts.push((t, 1)),
            }
        }
        counts.sort();
        cs_names.push(c.name.clone());
        cs_types.push(counts.iter().map(|x| x.0).collect::<Vec<_>>());
        cs_counts.push(counts.iter().map(|x| x.1).collect::<Vec<_>>());
    }
    let compute_sets = json!({"names": cs_names, "vertexCounts": cs_counts, "vertexTypes": cs_types});

    let mut progs = Programs { list: Vec::new(), exchanges: Vec::new() };
    let mut control = Vec::new();
    for p in &u.programs {
        control.push(progs.seq(u, &p.body));
    }
    let mut functions = Vec::new();
    for p in &u.functions {
        functions.push(progs.seq(u, &p.body));
    }
    let mut sent = Vec::new();
    let mut received = Vec::new();
    let mut cycles = Vec::new();
    let mut names = Vec::new();
    for (name, x) in &progs.exchanges {
        let mut s = vec![0u64; num_tiles];
        let mut r = vec![0u64; num_tiles];
        for t in &x.transfers {
            s[t.src_tile as usize] += u64::from(t.bytes);
            r[t.dst_tile as usize] += u64::from(t.bytes);
        }
        let bw = u64::from(tg.exchange_bytes_per_cycle.max(1));
        cycles.push(s.iter().zip(&r).map(|(a, b)| (*a.max(b)).div_ceil(bw)).collect::<Vec<_>>());
        sent.push(s);
        received.push(r);
        names.push(name.clone());
    }
    let exchanges = json!({
        "names": names,
        "bytesSentByTile": sent,
        "bytesReceivedByTile": received,
        "cyclesByTile": cycles,
    });

    let tiles = &layout.tiles;
    let limit = u64::from(tg.bytes_per_tile);
    let totals: Vec<u64> = tiles.iter().map(|m| m.total).collect();
    let by_tile = json!({
        "total": tiles.iter().map(|m| m.total - m.gaps).collect::<Vec<_>>(),
        "totalIncludingGaps": totals,
        "overflowed": totals.iter().map(|&t| t.saturating_sub(limit)).collect::<Vec<_>>(),
        "vertices": tiles.iter().map(|m| m.vertices).collect::<Vec<_>>(),
    });
    let mut by_category = serde_json::Map::new();
    let cats = tiles.first().map(|m| m.categories().map(|c| c.0)).unwrap_or_default();
    for (i, name) in cats.iter().enumerate() {
        let per_tile: Vec<u64> = tiles.iter().map(|m| m.categories()[i].1).collect();
        by_category.insert((*name).to_string(), json!({"total": per_tile}));
    }
    let code: u64 = types.iter().map(|t| (t.plain.code.len() + t.counting.code.len()) as u64).sum();
    by_category.insert(
        "vertexCode".into(),
        json!({"total": code, "note": "shared code segment, not in tile memory"}),
    );
    let memory = json!({"byTile": by_tile, "byCategory": by_category});
    let _ = plan;
    let variables: Vec<Value> = graph
        .tensors
        .iter()
        .map(|(t, tensor)| {
            let size = u64::from(tensor.elem.size_in_bytes());
            let mut on_tile: Vec<(u32, u64)> = Vec::new();
            for iv in &mapping.tensors[ir::EntityRef::index(t)] {
                let bytes = (iv.end - iv.start) * size;
                match on_tile.iter_mut().find(|x| x.0 == iv.tile) {
                    Some(x) => x.1 += bytes,
                    None => on_tile.push((iv.tile, bytes)),
                }
            }
            on_tile.sort_unstable();
            json!({
                "name": tensor.name,
                "kind": if tensor.kind == ir::TensorKind::Const { "constant" } else { "variable" },
                "bytes": tensor.num_elements() * size,
                "tiles": on_tile.iter().map(|&(t, b)| [u64::from(t), b]).collect::<Vec<_>>(),
            })
        })
        .collect();

    let profile = json!({
        "target": target,
        "optimizationInfo": {},
        "graph": graph_info,
        "vertexTypes": vertex_types,
        "computeSets": compute_sets,
        "exchanges": exchanges,
        "programs": progs.list,
        "controlPrograms": control,
        "functionPrograms": functions,
        "memory": memory,
        "variables": variables,
    });
    let mut s = serde_json::to_string_pretty(&profile).unwrap_or_default();
    s.push('\n');
    s
}

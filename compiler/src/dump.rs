//! Stable text dumps of every stage (`--dump mapping|exchange|memory|program|image`).
//!
//! Each dump lists entities ordered by id (tensors, vertices, compute sets,
//! tiles, programs), never by hash order, so two compilations of the same
//! input dump identically and golden tests can diff them.

use std::fmt::Write as _;

use ir::{EntityRef, Graph, VertexId};
use linker::image::{Exchange, Image, Region, ScalarRef, Step};
use linker::link::Unlinked;

use crate::exchange::{EdgeLoc, ExchangePlan, Loc, Move, Owner};
use crate::layout::MemoryLayout;
use crate::mapping::TileMapping;
use crate::resolve::Resolved;
use crate::Codelets;

fn shape(s: &[u64]) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("[{}]", s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))
    }
}

/// `--dump mapping`: each tensor's intervals, each vertex's tile.
pub fn mapping(graph: &Graph, _resolved: &Resolved, m: &TileMapping) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "tensors");
    for (t, tensor) in graph.tensors.iter() {
        let _ = writeln!(o, "  {t} {}: {}{}", tensor.name, tensor.elem, shape(&tensor.shape));
        for iv in &m.tensors[t] {
            let _ = writeln!(o, "    [{}:{}] -> {}", iv.start, iv.end, iv.tile);
        }
    }
    let _ = writeln!(o, "vertices");
    for (v, vx) in graph.vertices.iter() {
        let cs = &graph.compute_sets[vx.compute_set].name;
        let how = if vx.tile.is_some() { "" } else { " (placed)" };
        let _ = writeln!(o, "  {v} {} in {cs} -> {}{how}", vx.vtype, m.vertex_tiles[v]);
    }
    o
}

fn loc(graph: &Graph, plan: &ExchangePlan, l: Loc) -> String {
    match l {
        Loc::Tensor { tensor, elem, .. } => format!("{}[{elem}]", graph.tensors[tensor].name),
        Loc::Buffer { buffer, byte } => {
            format!("{buffer}+{byte} ({})", plan.buffers[buffer].tile)
        }
    }
}

fn moves(o: &mut String, graph: &Graph, plan: &ExchangePlan, what: &str, ms: &[Move]) {
    if ms.is_empty() {
        return;
    }
    let _ = writeln!(o, "    {what}:");
    for m in ms {
        let _ = writeln!(
            o,
            "      {} -> {}: {} bytes",
            loc(graph, plan, m.src),
            loc(graph, plan, m.dst),
            m.bytes
        );
    }
}

/// `--dump exchange`: per compute set, how each edge is passed, and the moves.
pub fn exchange(graph: &Graph, resolved: &Resolved, codelets: &Codelets, plan: &ExchangePlan) -> String {
    let mut o = String::new();
    for (cs, c) in graph.compute_sets.iter() {
        let _ = writeln!(o, "{cs} {}", c.name);
        for &v in &c.vertices {
            let vt = resolved.vertex_info(codelets, v);
            let _ = writeln!(o, "  {v} {}", vt.name);
            for e in plan.vertex_edges(v) {
                let f = &vt.fields[e.field as usize];
                let item = if matches!(
                    f.kind,
                    linker::gp::FieldKind::VectorList(_) | linker::gp::FieldKind::ScalarList(_)
                ) {
                    format!("[{}]", e.item)
                } else {
                    String::new()
                };
                let how = match e.loc {
                    EdgeLoc::Empty => "empty".to_string(),
                    EdgeLoc::Tensor { tensor, elem, .. } => {
                        format!("in place at {}[{elem}]", graph.tensors[tensor].name)
                    }
                    EdgeLoc::Buffer { buffer: b, byte } => {
                        let buf = &plan.buffers[b];
                        let at = if byte == 0 { String::new() } else { format!("+{byte}") };
                        format!("buffer {b}{at} ({} bytes on {})", buf.bytes, buf.tile)
                    }
                };
                let s = if e.count == 1 { "" } else { "s" };
                let _ = writeln!(o, "    {}{item}: {} element{s}, {how}", f.name, e.count);
            }
        }
        let x = &plan.compute_sets[cs];
        moves(&mut o, graph, plan, "exchange in", &x.ins);
        moves(&mut o, graph, plan, "exchange out", &x.outs);
    }
    for (i, c) in plan.copies.iter() {
        let _ = writeln!(o, "{i}");
        moves(&mut o, graph, plan, "moves", c);
    }
    o
}

/// `--dump memory`: per tile, the breakdown by category and every allocation by address.
pub fn memory(graph: &Graph, m: &TileMapping, plan: &ExchangePlan, layout: &MemoryLayout) -> String {
    let n = layout.tiles.len();
    let mut items: Vec<Vec<(u64, String)>> = vec![Vec::new(); n];
    for (t, tensor) in graph.tensors.iter() {
        let size = u64::from(tensor.elem.size());
        let kind = match tensor.kind {
            ir::TensorKind::Var => "variable",
            ir::TensorKind::Const => "constant",
        };
        for (iv, &a) in m.tensors[t].iter().zip(&layout.tensor_addr[t]) {
            let a = u64::from(a);
            let b = (iv.end - iv.start) * size;
            items[iv.tile.index()]
                .push((a, format!("{kind} {}[{}:{}] {b} bytes", tensor.name, iv.start, iv.end)));
        }
    }
    for v in graph.vertices.keys() {
        let tile = m.vertex_tiles[v].index();
        items[tile].push((u64::from(layout.vertex_state[v]), format!("vertex state {v}")));
        let d = layout.descriptors[v];
        if d != 0 {
            items[tile].push((u64::from(d), format!("vector-list descriptors {}", VertexId(v.0))));
        }
    }
    for (b, buf) in plan.buffers.iter() {
        let owner = match buf.owner {
            Owner::ComputeSet(c) => graph.compute_sets[c].name.clone(),
            Owner::Copy(c) => c.to_string(),
        };
        items[buf.tile.index()]
            .push((u64::from(layout.buffer_addr[b]), format!("buffer {b} of {owner} {} bytes", buf.bytes)));
    }
    let mut o = String::new();
    let limit = graph.target.bytes_per_tile;
    let total: u64 = layout.tiles.values().map(|t| t.total).sum();
    let max = layout.tiles.values().map(|t| t.total).max().unwrap_or(0);
    let _ = writeln!(o, "total {total} bytes, largest tile {max} of {limit} bytes");
    for (t, mem) in layout.tiles.iter() {
        if mem.total == 0 {
            continue;
        }
        let cats: Vec<String> =
            mem.categories().iter().filter(|c| c.1 > 0).map(|(k, b)| format!("{k} {b}")).collect();
        let _ = writeln!(o, "{t}: {} bytes ({})", mem.total, cats.join(", "));
        let items = &mut items[t.index()];
        items.sort();
        for (a, what) in items.iter() {
            let _ = writeln!(o, "  {a:#07x} {what}");
        }
        if mem.exchange > 0 {
            let _ = writeln!(o, "  arena {:#07x}..{:#07x}", mem.arena_base, mem.arena_base + mem.exchange);
        }
        if mem.stack > 0 {
            let _ = writeln!(o, "  stack {:#07x}..{:#07x}", mem.stack_base, mem.stack_base + mem.stack);
        }
    }
    o
}

fn regions(rs: &[Region]) -> String {
    rs.iter().map(|r| format!("{}:{:#x}+{}", r.tile, r.offset, r.bytes)).collect::<Vec<_>>().join(" ")
}

fn scalar(s: &ScalarRef) -> String {
    format!("{:?} at {}:{:#x}", s.elem, s.tile, s.offset)
}

fn steps(o: &mut String, depth: usize, body: &[Step]) {
    let pad = "  ".repeat(depth);
    for s in body {
        match s {
            Step::Execute(c) => {
                let _ = writeln!(o, "{pad}execute cs{c}");
            }
            Step::Copy(c) => {
                let _ = writeln!(o, "{pad}copy copy{c}");
            }
            Step::StreamIn { stream, regions: r } => {
                let _ = writeln!(o, "{pad}stream in stream{stream} -> {}", regions(r));
            }
            Step::StreamOut { stream, regions: r } => {
                let _ = writeln!(o, "{pad}stream out {} -> stream{stream}", regions(r));
            }
            Step::RemoteRead { buffer, repeat, regions: r } => {
                let _ = writeln!(o, "{pad}remote read rb{buffer}[{repeat}] -> {}", regions(r));
            }
            Step::RemoteWrite { buffer, repeat, regions: r } => {
                let _ = writeln!(o, "{pad}remote write {} -> rb{buffer}[{repeat}]", regions(r));
            }
            Step::Print { label, style, elem, shape: sh, regions: r } => {
                let _ = writeln!(o, "{pad}print {style:?} {label:?} {elem:?}{} {}", shape(sh), regions(r));
            }
            Step::Repeat { count, body } => {
                let _ = writeln!(o, "{pad}repeat {count}");
                steps(o, depth + 1, body);
            }
            Step::While { cond, pred, until, body } => {
                let _ = writeln!(o, "{pad}while");
                steps(o, depth + 1, cond);
                let _ = writeln!(o, "{pad}pred {}{}", if *until { "!" } else { "" }, scalar(pred));
                steps(o, depth + 1, body);
            }
            Step::If { pred, then, otherwise } => {
                let _ = writeln!(o, "{pad}if {}", scalar(pred));
                steps(o, depth + 1, then);
                let _ = writeln!(o, "{pad}else");
                steps(o, depth + 1, otherwise);
            }
            Step::Switch { selector, cases, default } => {
                let _ = writeln!(o, "{pad}switch {}", scalar(selector));
                for (k, b) in cases {
                    let _ = writeln!(o, "{pad}case {k}");
                    steps(o, depth + 1, b);
                }
                let _ = writeln!(o, "{pad}default");
                steps(o, depth + 1, default);
            }
            Step::Call(f) => {
                let _ = writeln!(o, "{pad}call fn{f}");
            }
            Step::Sync => {
                let _ = writeln!(o, "{pad}sync");
            }
            Step::Block { name, body } => {
                let _ = writeln!(o, "{pad}block {name:?}");
                steps(o, depth + 1, body);
            }
            Step::Collective(c) => {
                let op = c.op.map_or(String::new(), |op| format!(" {}", op.name()));
                let _ = writeln!(
                    o,
                    "{pad}{}{op} group={} {:?} {} -> {}",
                    c.kind.name(),
                    c.group,
                    c.elem,
                    regions(&c.input),
                    regions(&c.output)
                );
            }
        }
    }
}

fn exchange_text(o: &mut String, what: &str, x: &Exchange) {
    if x.transfers.is_empty() {
        return;
    }
    let _ = writeln!(o, "  {what}:");
    for t in &x.transfers {
        let _ = writeln!(
            o,
            "    {}:{:#x} -> {}:{:#x} {} bytes",
            t.src_tile, t.src_offset, t.dst_tile, t.dst_offset, t.bytes
        );
    }
}

/// `--dump program`: the per-tile work of each compute set, byte transfers,
/// copies and the control programs, before linking.
pub fn program(u: &Unlinked<'_>) -> String {
    let mut o = String::new();
    for (i, cs) in u.compute_sets.iter().enumerate() {
        let _ = writeln!(o, "cs{i} {}", cs.name);
        for w in &cs.tiles {
            let ids: Vec<String> = u.tiles[w.tile as usize].vertices[w.start as usize..w.end as usize]
                .iter()
                .map(|v| format!("v{}", v.id))
                .collect();
            let _ = writeln!(o, "  tile {}: {}", w.tile, ids.join(" "));
        }
        exchange_text(&mut o, exchange_in_label(cs.in_by_tile), &cs.exchange_in);
        exchange_text(&mut o, "exchange out", &cs.exchange_out);
    }
    for (i, c) in u.copies.iter().enumerate() {
        let _ = writeln!(o, "copy{i}");
        exchange_text(&mut o, "transfers", c);
    }
    for (i, p) in u.programs.iter().enumerate() {
        let _ = writeln!(o, "program {i} {}", p.name);
        steps(&mut o, 1, &p.body);
    }
    for (i, p) in u.functions.iter().enumerate() {
        let _ = writeln!(o, "function fn{i} {}", p.name);
        steps(&mut o, 1, &p.body);
    }
    o
}

/// How `--dump` heads a compute set's exchange in.
fn exchange_in_label(by_tile: bool) -> &'static str {
    match by_tile {
        true => "exchange in, tile by tile",
        false => "exchange in",
    }
}

/// `--dump image`: the linked image's structure (sizes and offsets, not code bytes).
pub fn image(img: &Image) -> String {
    let mut o = String::new();
    let t = &img.target;
    let _ = writeln!(
        o,
        "target {} ipus={} tiles_per_ipu={} bytes_per_tile={} workers={} clock_mhz={} exchange_bytes_per_cycle={} sync_cycles={}",
        t.name, t.ipus, t.tiles_per_ipu, t.bytes_per_tile, t.workers, t.clock_mhz, t.exchange_bytes_per_cycle, t.sync_cycles
    );
    if t.replicas > 1 {
        let _ = writeln!(o, "replicas {}", t.replicas);
    }
    let _ = writeln!(o, "code {} bytes, {} relocations", img.code.len(), img.relocs.len());
    for (i, vt) in img.vertex_types.iter().enumerate() {
        let _ = writeln!(
            o,
            "  type {i} {} ({:?}) plain {:#x}+{} counting {:#x}+{} from {}",
            vt.name, vt.base, vt.plain.0, vt.plain.1, vt.counting.0, vt.counting.1, vt.source
        );
    }
    for (n, tile) in img.tiles.iter().enumerate() {
        if tile.mem_size == 0 && tile.vertices.is_empty() {
            continue;
        }
        let _ = writeln!(o, "tile {n}: mem_size {}, {} vertices", tile.mem_size, tile.vertices.len());
        for s in &tile.init {
            let _ = writeln!(o, "  init {:#07x}+{}", s.offset, s.bytes.len());
        }
        for v in &tile.vertices {
            let cycles = v.cycles.map(|c| format!(" cycles {c}")).unwrap_or_default();
            let _ = writeln!(o, "  v{} type {} state {:#07x}{cycles}", v.id, v.vertex_type, v.state);
        }
    }
    for (i, cs) in img.compute_sets.iter().enumerate() {
        let tiles: Vec<String> =
            cs.tiles.iter().map(|w| format!("{}:{}..{}", w.tile, w.start, w.end)).collect();
        let _ = writeln!(o, "cs{i} {}: tiles {}", cs.name, tiles.join(" "));
        exchange_text(&mut o, exchange_in_label(cs.in_by_tile), &cs.exchange_in);
        exchange_text(&mut o, "exchange out", &cs.exchange_out);
    }
    for (i, c) in img.copies.iter().enumerate() {
        let _ = writeln!(o, "copy{i}");
        exchange_text(&mut o, "transfers", c);
    }
    for (i, p) in img.programs.iter().enumerate() {
        let _ = writeln!(o, "program {i} {}", p.name);
        steps(&mut o, 1, &p.body);
    }
    for (i, p) in img.functions.iter().enumerate() {
        let _ = writeln!(o, "function fn{i} {}", p.name);
        steps(&mut o, 1, &p.body);
    }
    for h in &img.handles {
        let dir = if h.to_device { "write" } else { "read" };
        let _ =
            writeln!(o, "handle {dir} {:?} {:?}{} {}", h.name, h.elem, shape(&h.shape), regions(&h.regions));
    }
    for (i, s) in img.streams.iter().enumerate() {
        let dir = if s.to_device { "from host" } else { "to host" };
        let _ = writeln!(o, "stream{i} {:?} {:?}{} {dir}", s.name, s.elem, shape(&s.shape));
    }
    for (i, r) in img.remote_buffers.iter().enumerate() {
        let _ = writeln!(o, "rb{i} {:?} {:?}{} x {}", r.name, r.elem, shape(&r.shape), r.repeats);
    }
    o
}

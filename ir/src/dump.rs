//! A stable, human-readable dump of a [`Graph`], ordered by id.
//!
//! Unlike [`crate::print`], the dump shows the resolved data: ids, target
//! figures, init summaries and every view's pieces (`t0@5[4x1]`: tensor t0
//! from flat element 5, 4 elements with stride 1).

use std::fmt::Write;

use crate::graph::*;
use crate::print::{float_str, mapping_str, quote, type_str, value_str};
use crate::view::View;

fn view_dump(g: &Graph, v: &View) -> String {
    let mut o = format!("{:?}", v.shape);
    o.push_str(" =");
    if v.pieces.is_empty() {
        o.push_str(" (empty)");
    }
    for p in &v.pieces {
        let name = g.tensors.get(p.tensor).map(|t| t.name.as_str()).unwrap_or("?");
        let _ = write!(o, " {}({name})@{}", p.tensor, p.offset);
        if !p.dims.is_empty() {
            let d: Vec<String> = p.dims.iter().map(|(n, s)| format!("{n}x{s}")).collect();
            let _ = write!(o, "[{}]", d.join(","));
        }
    }
    o
}

fn init_dump(t: &Tensor) -> String {
    let size = t.elem.size();
    let val = |b: &[u8]| value_str(vocab::decode(t.elem, b));
    match &t.init {
        None => "none".into(),
        Some(Init::Splat(b)) => format!("splat {}", val(b)),
        Some(Init::ReplicationIndex) => "replication_index".into(),
        Some(Init::Values(b)) => {
            let n = b.len() / size as usize;
            let shown: Vec<String> = (0..n.min(8))
                .filter_map(|i| t.init.as_ref()?.element_bytes(i as u64, size))
                .map(val)
                .collect();
            format!("values({n}) [{}{}]", shown.join(", "), if n > 8 { ", …" } else { "" })
        }
    }
}

fn stmts(o: &mut String, g: &Graph, body: &[Stmt], d: usize) {
    for s in body {
        for _ in 0..d {
            o.push_str("  ");
        }
        match s {
            Stmt::Copy { src, dst, .. } => {
                let end = |e: &CopyEnd| match e {
                    CopyEnd::Tensor(v) => view_dump(g, v),
                    CopyEnd::Stream(s) => format!("{s} {}", quote(&g.streams[*s].name)),
                    CopyEnd::Remote(r, i) => format!("{r} {}[{i}]", quote(&g.remote_buffers[*r].name)),
                };
                let _ = writeln!(o, "copy {} -> {}", end(src), end(dst));
            }
            Stmt::Execute(c) => {
                let _ = writeln!(o, "execute {c} ({})", g.compute_sets[*c].name);
            }
            Stmt::Print { label, view, style } => {
                let layout = if *style == vocab::PrintStyle::Poplar { "poplar " } else { "" };
                let _ = writeln!(o, "print {layout}{} {}", quote(label), view_dump(g, view));
            }
            Stmt::Repeat { count, body } => {
                let _ = writeln!(o, "repeat {count}");
                stmts(o, g, body, d + 1);
            }
            Stmt::While { cond, pred, until, body } => {
                o.push_str("while\n");
                stmts(o, g, cond, d + 1);
                for _ in 0..d {
                    o.push_str("  ");
                }
                let _ = writeln!(o, "pred {}{}", if *until { "!" } else { "" }, view_dump(g, pred));
                stmts(o, g, body, d + 1);
            }
            Stmt::If { pred, then, else_ } => {
                let _ = writeln!(o, "if {}", view_dump(g, pred));
                stmts(o, g, then, d + 1);
                for _ in 0..d {
                    o.push_str("  ");
                }
                o.push_str("else\n");
                stmts(o, g, else_, d + 1);
            }
            Stmt::Switch { selector, cases, default } => {
                let _ = writeln!(o, "switch {}", view_dump(g, selector));
                for (k, b) in cases {
                    for _ in 0..=d {
                        o.push_str("  ");
                    }
                    let _ = writeln!(o, "case {k}");
                    stmts(o, g, b, d + 2);
                }
                for _ in 0..=d {
                    o.push_str("  ");
                }
                o.push_str("default\n");
                stmts(o, g, default, d + 2);
            }
            Stmt::Undef(v) => {
                let _ = writeln!(o, "undef {}", view_dump(g, v));
            }
            Stmt::Sync => o.push_str("sync\n"),
            Stmt::Call(f) => {
                let _ = writeln!(o, "call {f} ({})", g.functions[*f].name);
            }
            Stmt::Block(b) => {
                o.push_str("block\n");
                stmts(o, g, b, d + 1);
            }
            Stmt::Named { name, body } => {
                let _ = writeln!(o, "block {name:?}");
                stmts(o, g, body, d + 1);
            }
            Stmt::Op(op) => {
                let _ = writeln!(o, "op {}: {}", op.word(), crate::ops::op_str(op, &|v| view_dump(g, v)));
            }
            Stmt::Collective(op) => {
                let _ = writeln!(o, "collective: {}", crate::ops::op_str(op, &|v| view_dump(g, v)));
            }
        }
    }
}

/// Dumps a graph as stable text.
pub fn dump(g: &Graph) -> String {
    let mut o = String::new();
    let t = &g.target;
    let _ = writeln!(
        o,
        "target {}: ipus {}, tiles_per_ipu {}, total_tiles {}, bytes_per_tile {}, workers {}, clock_mhz {}, exchange_bytes_per_cycle {}, sync_cycles {}",
        t.preset.name(), t.ipus, t.tiles_per_ipu, t.total_tiles(), t.bytes_per_tile, t.workers, t.clock_mhz, t.exchange_bytes_per_cycle, t.sync_cycles
    );
    if t.replication_factor > 1 {
        let _ = writeln!(o, "replication_factor {}", t.replication_factor);
    }
    for (key, word) in t.links.non_default() {
        let _ = writeln!(o, "{key} {word}");
    }
    for (id, c) in g.codelets.iter() {
        let opts: Vec<String> = c.options.iter().map(|s| quote(s)).collect();
        let _ = writeln!(o, "{id} {} [{}]", quote(&c.path), opts.join(", "));
    }
    for (id, tn) in g.tensors.iter() {
        let kind = if tn.kind == TensorKind::Const { "const" } else { "var" };
        let _ = writeln!(
            o,
            "{id} {kind} {}: {} ({} elements), init {}",
            tn.name,
            type_str(tn.elem, &tn.shape),
            tn.num_elements(),
            init_dump(tn)
        );
    }
    for (i, m) in g.mappings.iter().enumerate() {
        let _ = writeln!(o, "map{i} {} -> {}", view_dump(g, &m.view), mapping_str(&m.mapping));
    }
    for (id, h) in g.host_handles.iter() {
        let dir = if h.direction == HostDirection::ToDevice { "write" } else { "read" };
        let _ = writeln!(o, "{id} {dir} {} {}", quote(&h.name), view_dump(g, &h.view));
    }
    for (id, s) in g.streams.iter() {
        let dir = if s.direction == HostDirection::ToHost { "to host" } else { "from host" };
        let _ = writeln!(o, "{id} {}: {} {dir}", quote(&s.name), type_str(s.elem, &s.shape));
    }
    for (id, r) in g.remote_buffers.iter() {
        let _ = writeln!(o, "{id} {}: {} x {}", quote(&r.name), type_str(r.elem, &r.shape), r.repeats);
    }
    for (id, cs) in g.compute_sets.iter() {
        let _ = writeln!(o, "{id} {} ({} vertices)", cs.name, cs.vertices.len());
        for &v in &cs.vertices {
            let vx = &g.vertices[v];
            let tile = vx.tile.map_or("auto".to_string(), |t| t.to_string());
            let cyc = vx.cycles.map_or(String::new(), |c| format!(", cycles {c}"));
            let _ = writeln!(o, "  {v} {}: tile {tile}{cyc}", vx.vtype);
            for f in &vx.fields {
                let val = match &f.value {
                    FieldValue::Edge(view) => format!("edge {}", view_dump(g, view)),
                    FieldValue::EdgeList(vs) => {
                        let s: Vec<String> = vs.iter().map(|x| view_dump(g, x)).collect();
                        format!("edges [{}]", s.join("; "))
                    }
                    FieldValue::Literal(Literal::Int(i)) => format!("int {i}"),
                    FieldValue::Literal(Literal::Float(x)) => format!("float {}", float_str(*x)),
                    FieldValue::Literal(Literal::Bool(b)) => format!("bool {b}"),
                };
                let _ = writeln!(o, "    {} = {val}", f.name);
            }
        }
    }
    for (id, f) in g.functions.iter() {
        let _ = writeln!(o, "{id} function {}", f.name);
        stmts(&mut o, g, &f.body, 1);
    }
    for (id, p) in g.programs.iter() {
        let _ = writeln!(o, "{id} program {}", p.name);
        stmts(&mut o, g, &p.body, 1);
    }
    o
}

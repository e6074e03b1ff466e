//! The canonical PIR printer: `parse_and_check(print(g)).graph == g`.
//!
//! Items print in a fixed order (target, codelets, tensors, mappings, host
//! handles, streams, remote buffers, compute sets, functions, programs),
//! each kind in id order, so ids survive a round trip. `for` loops are
//! already expanded. Views print as the simplest form that re-parses to the
//! same pieces: a tensor name, a slice, an element, or else the `affine(t,
//! offset, [[size, stride], …])` extension; several pieces are joined with
//! `concat` and reshaped to the view's shape.

use std::fmt::Write;

use crate::graph::*;
use crate::types::ElemType;
use crate::view::{Piece, View};
use vocab::{TemplateArg, VertexName};

/// Prints a graph as canonical PIR text.
pub fn print(g: &Graph) -> String {
    let mut o = String::new();
    let t = &g.target;
    let ov = t.overrides();
    let links = t.links.non_default();
    if ov.is_empty() && links.is_empty() {
        let _ = writeln!(o, "target {}", t.preset.name());
    } else {
        let numbers = ov.iter().map(|(k, v)| format!("{k} = {v}"));
        let kv: Vec<String> = numbers.chain(links.iter().map(|(k, w)| format!("{k} = {w}"))).collect();
        let _ = writeln!(o, "target {}({})", t.preset.name(), kv.join(", "));
    }
    for c in g.codelets.values() {
        let _ = write!(o, "codelets {}", quote(&c.path));
        if !c.options.is_empty() {
            let opts: Vec<String> = c.options.iter().map(|s| quote(s)).collect();
            let _ = write!(o, " [{}]", opts.join(", "));
        }
        o.push('\n');
    }
    for tn in g.tensors.values() {
        let kw = if tn.kind == TensorKind::Const { "const" } else { "var" };
        let _ = write!(o, "{kw} {}: {}", tn.name, type_str(tn.elem, &tn.shape));
        if let Some(init) = &tn.init {
            o.push_str(" = ");
            init_str(&mut o, tn.elem, &tn.shape, init);
        }
        o.push('\n');
    }
    for m in &g.mappings {
        let _ = writeln!(o, "map {} -> {}", view_str(g, &m.view), mapping_str(&m.mapping));
    }
    for h in g.host_handles.values() {
        let tn = view_str(g, &h.view);
        match h.direction {
            HostDirection::ToDevice => {
                let _ = writeln!(o, "host_write {} -> {tn}", quote(&h.name));
            }
            HostDirection::ToHost => {
                let _ = writeln!(o, "host_read {} <- {tn}", quote(&h.name));
            }
        }
    }
    for s in g.streams.values() {
        let dir = if s.direction == HostDirection::ToHost { "to" } else { "from" };
        let _ = writeln!(o, "stream {}: {} {dir} host", quote(&s.name), type_str(s.elem, &s.shape));
    }
    for r in g.remote_buffers.values() {
        let _ =
            writeln!(o, "remote_buffer {}: {} x {}", quote(&r.name), type_str(r.elem, &r.shape), r.repeats);
    }
    for cs in g.compute_sets.values() {
        let _ = writeln!(o, "compute_set {} {{", cs.name);
        for &v in &cs.vertices {
            o.push_str("  ");
            vertex_str(&mut o, g, &g.vertices[v]);
            o.push('\n');
        }
        o.push_str("}\n");
    }
    for f in g.functions.values() {
        let _ = write!(o, "function {} ", f.name);
        block(&mut o, g, &f.body, 0);
        o.push('\n');
    }
    for p in g.programs.values() {
        let _ = write!(o, "program {} ", p.name);
        block(&mut o, g, &p.body, 0);
        o.push('\n');
    }
    o
}

/// A string literal with `"` and `\` escaped.
pub fn quote(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// `float[2, 3]` (no brackets for rank 0).
pub fn type_str(e: ElemType, shape: &[u64]) -> String {
    if shape.is_empty() {
        e.name().to_string()
    } else {
        format!("{}{}", e.name(), list(shape))
    }
}

fn list<T: ToString>(xs: &[T]) -> String {
    let v: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    format!("[{}]", v.join(", "))
}

/// A floating-point literal that re-parses to the same `f64`.
pub fn float_str(f: f64) -> String {
    if f.is_nan() {
        // The sign of a NaN survives in initial values' bytes.
        if f.is_sign_negative() { "-nan" } else { "nan" }.into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        let s = format!("{f:?}");
        if s.contains(['.', 'e', 'E']) {
            s
        } else {
            format!("{s}.0")
        }
    }
}

fn scalar_str(elem: ElemType, b: &[u8]) -> String {
    value_str(vocab::decode(elem, b))
}

/// An element value as PIR writes it (`bool`s as 0 and 1).
pub fn value_str(v: vocab::Value) -> String {
    match v {
        vocab::Value::Int(i) => i.to_string(),
        vocab::Value::Bool(b) => u8::from(b).to_string(),
        vocab::Value::Float(f) => float_str(f),
    }
}

fn init_str(o: &mut String, elem: ElemType, shape: &[u64], init: &Init) {
    match init {
        Init::Splat(b) => o.push_str(&scalar_str(elem, b)),
        Init::ReplicationIndex => o.push_str("replication_index"),
        Init::Values(b) => {
            let size = elem.size() as usize;
            let mut pos = 0usize;
            nested(o, elem, shape, b, size, &mut pos);
        }
    }
}

fn nested(o: &mut String, elem: ElemType, shape: &[u64], b: &[u8], size: usize, pos: &mut usize) {
    match shape.split_first() {
        None => {
            let s = b.get(*pos..*pos + size).unwrap_or(&[]);
            o.push_str(&scalar_str(elem, s));
            *pos += size;
        }
        Some((&d, rest)) => {
            o.push('[');
            for i in 0..d {
                if i > 0 {
                    o.push_str(", ");
                }
                nested(o, elem, rest, b, size, pos);
            }
            o.push(']');
        }
    }
}

/// `tile 3`, `tiles 0..16`, `linear`, `linear(grain = 4)`.
pub fn mapping_str(m: &Mapping) -> String {
    match m {
        Mapping::Tile(t) => format!("tile {t}"),
        Mapping::Tiles(a, b) => format!("tiles {a}..{b}"),
        Mapping::Linear { grain: 1 } => "linear".into(),
        Mapping::Linear { grain } => format!("linear(grain = {grain})"),
    }
}

/// A vertex type name in PIR spelling: the canonical name's C++ element
/// types become PIR's scalar types, so the printed name parses back to the
/// same canonical name.
pub fn vtype_pir(vtype: &str) -> String {
    match VertexName::parse(vtype) {
        Ok(name) => {
            let mut o = String::with_capacity(vtype.len() + 8);
            name_pir(&mut o, &name);
            o
        }
        // Not made by the lowering; printed as it is.
        Err(_) => vtype.to_string(),
    }
}

fn name_pir(o: &mut String, name: &VertexName) {
    o.push_str(&name.path);
    if name.args.is_empty() {
        return;
    }
    o.push('<');
    for (i, a) in name.args.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        match a {
            TemplateArg::Type(t) => o.push_str(type_word_pir(t)),
            TemplateArg::Name(n) => name_pir(o, n),
            a => {
                let _ = write!(o, "{a}");
            }
        }
    }
    o.push('>');
}

/// One word that PIR reads back as C++ scalar type `t`: PIR's name of the
/// element type whose C++ spelling it is, else a C++ name PIR passes
/// through (`long` alone would read as PIR's 64-bit `long long`).
fn type_word_pir(t: &'static str) -> &'static str {
    match ElemType::PIR.into_iter().find(|e| e.cpp_name() == t) {
        Some(e) => e.name(),
        None => match t {
            "long" => "int64_t",
            "unsigned long" => "uint64_t",
            "signed char" => "int8_t",
            t => t,
        },
    }
}

fn vertex_str(o: &mut String, g: &Graph, v: &Vertex) {
    let _ = write!(o, "vertex {}", vtype_pir(&v.vtype));
    if let Some(t) = v.tile {
        let _ = write!(o, " @ tile {t}");
    }
    o.push_str(" {");
    for (i, f) in v.fields.iter().enumerate() {
        o.push_str(if i == 0 { " " } else { ", " });
        let _ = write!(o, "{} = ", f.name);
        match &f.value {
            FieldValue::Edge(view) => o.push_str(&view_str(g, view)),
            FieldValue::EdgeList(vs) => {
                let s: Vec<String> = vs.iter().map(|x| view_str(g, x)).collect();
                let _ = write!(o, "[{}]", s.join(", "));
            }
            FieldValue::Literal(Literal::Int(i)) => {
                let _ = write!(o, "{i}");
            }
            FieldValue::Literal(Literal::Float(x)) => o.push_str(&float_str(*x)),
            FieldValue::Literal(Literal::Bool(b)) => {
                let _ = write!(o, "{b}");
            }
        }
    }
    o.push_str(if v.fields.is_empty() { "}" } else { " }" });
    if let Some(c) = v.cycles {
        let _ = write!(o, " cycles {c}");
    }
}

/// A piece as an expression, with the expression's shape.
fn piece_str(g: &Graph, p: &Piece) -> (String, Vec<u64>) {
    let t = &g.tensors[p.tensor];
    let n = p.len();
    if p.offset == 0 && p.is_contiguous() && n == t.num_elements() {
        return (t.name.clone(), t.shape.clone());
    }
    if p.dims.is_empty() {
        if t.shape.is_empty() {
            return (t.name.clone(), Vec::new());
        }
        let mut idx = vec![0u64; t.shape.len()];
        let mut r = p.offset;
        for k in (0..t.shape.len()).rev() {
            idx[k] = r % t.shape[k];
            r /= t.shape[k];
        }
        return (format!("{}{}", t.name, list(&idx)), Vec::new());
    }
    if let [(size, stride)] = p.dims[..] {
        if stride > 0 {
            let base = if t.shape.len() == 1 { t.name.clone() } else { format!("flatten({})", t.name) };
            let a = p.offset;
            let b = a + (size - 1) * stride as u64 + 1;
            let s =
                if stride == 1 { format!("{base}[{a}:{b}]") } else { format!("{base}[{a}:{b}:{stride}]") };
            return (s, vec![size]);
        }
    }
    let dims: Vec<String> = p.dims.iter().map(|(n, s)| format!("[{n}, {s}]")).collect();
    (format!("affine({}, {}, [{}])", t.name, p.offset, dims.join(", ")), p.dims.iter().map(|d| d.0).collect())
}

/// A view as a PIR tensor expression that re-parses to the same view.
pub fn view_str(g: &Graph, v: &View) -> String {
    let (expr, shape) = match v.pieces.as_slice() {
        [] => {
            let name = g.tensors.values().next().map(|t| t.name.as_str()).unwrap_or("_");
            (format!("affine({name}, 0, [[0, 1]])"), vec![0])
        }
        [p] => piece_str(g, p),
        ps => {
            let mut parts = Vec::with_capacity(ps.len());
            let mut total = 0;
            for p in ps {
                let (s, sh) = piece_str(g, p);
                total += p.len();
                parts.push(if sh.len() == 1 { s } else { format!("flatten({s})") });
            }
            (format!("concat({})", parts.join(", ")), vec![total])
        }
    };
    if shape == v.shape {
        expr
    } else {
        format!("reshape({expr}, {})", list(&v.shape))
    }
}

fn indent(o: &mut String, n: usize) {
    for _ in 0..n {
        o.push_str("  ");
    }
}

fn block(o: &mut String, g: &Graph, body: &[Stmt], depth: usize) {
    if body.is_empty() {
        o.push_str("{}");
        return;
    }
    o.push_str("{\n");
    for s in body {
        indent(o, depth + 1);
        stmt(o, g, s, depth + 1);
        o.push('\n');
    }
    indent(o, depth);
    o.push('}');
}

fn copy_end(g: &Graph, e: &CopyEnd) -> String {
    match e {
        CopyEnd::Tensor(v) => view_str(g, v),
        CopyEnd::Stream(s) => quote(&g.streams[*s].name),
        CopyEnd::Remote(r, i) => format!("{}[{i}]", quote(&g.remote_buffers[*r].name)),
    }
}

fn stmt(o: &mut String, g: &Graph, s: &Stmt, d: usize) {
    match s {
        Stmt::Copy { src, dst, .. } => {
            let _ = write!(o, "copy {} -> {}", copy_end(g, src), copy_end(g, dst));
        }
        Stmt::Execute(c) => {
            let _ = write!(o, "execute {}", g.compute_sets[*c].name);
        }
        Stmt::Print { label, view, style } => {
            let layout = if *style == vocab::PrintStyle::Poplar { "poplar " } else { "" };
            let _ = write!(o, "print {layout}{} {}", quote(label), view_str(g, view));
        }
        Stmt::Repeat { count, body } => {
            let _ = write!(o, "repeat {count} ");
            block(o, g, body, d);
        }
        Stmt::While { cond, pred, until, body } => {
            o.push_str("while ");
            block(o, g, cond, d);
            let _ = write!(o, " {}{} ", if *until { "!" } else { "" }, view_str(g, pred));
            block(o, g, body, d);
        }
        Stmt::If { pred, then, else_ } => {
            let _ = write!(o, "if {} ", view_str(g, pred));
            block(o, g, then, d);
            if !else_.is_empty() {
                o.push_str(" else ");
                block(o, g, else_, d);
            }
        }
        Stmt::Switch { selector, cases, default } => {
            let _ = writeln!(o, "switch {} {{", view_str(g, selector));
            for (k, b) in cases {
                indent(o, d + 1);
                let _ = write!(o, "case {k} ");
                block(o, g, b, d + 1);
                o.push('\n');
            }
            if !default.is_empty() {
                indent(o, d + 1);
                o.push_str("default ");
                block(o, g, default, d + 1);
                o.push('\n');
            }
            indent(o, d);
            o.push('}');
        }
        Stmt::Undef(v) => {
            let _ = write!(o, "undef {}", view_str(g, v));
        }
        Stmt::Sync => o.push_str("sync"),
        Stmt::Call(f) => {
            let _ = write!(o, "call {}", g.functions[*f].name);
        }
        Stmt::Block(b) => block(o, g, b, d),
        Stmt::Named { name, body } => {
            let _ = write!(o, "block {} ", quote(name));
            block(o, g, body, d);
        }
        Stmt::Op(op) | Stmt::Collective(op) => o.push_str(&crate::ops::op_str(op, &|v| view_str(g, v))),
    }
}

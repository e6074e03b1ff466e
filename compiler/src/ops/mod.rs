//! Expansion of library operations (`ir::Stmt::Op`) into what the rest of
//! the compiler already knows: tensors' tile mappings, compute sets of
//! vertices and `execute` statements, plus the C++ of the vertex types they
//! use, compiled by `popc` in-process like any codelet file.
//!
//! It runs first, on the checked graph, and returns a new graph in which no
//! operation remains, so every later pass, dump and profile sees ordinary
//! compute sets named after the operation (`v3.add`, `m4.matmul`). Mapping
//! rules: an operation's output that no `map` statement names is mapped like
//! its first full-shape operand (elementwise), next to its data (reduce), or
//! by the matmul planner; elementwise work then follows the output's mapping,
//! one vertex per contiguous run of output on a tile, split over the six
//! workers (a `MultiVertex`). An operation with a tile set of its own
//! (`tiles a..b { … }`, an operation of a virtual graph) places everything
//! it makes there: new outputs and scratch tensors on those tiles, its
//! vertices on them too (work whose data lives elsewhere runs on one of
//! them, [`ir::TileSet::place`], and the exchange fetches the data). See
//! `docs/pir-ops.md`.

mod alias;
mod codegen;
mod dynamic;
mod map;
mod matmul;
mod random;
mod reduce;

use std::collections::BTreeSet;

use ir::{
    ComputeSet, EntityRef, Field, FieldValue, Graph, Mapping, Name, Op, OpKind, Span, Spans, Stmt, TensorId,
    Vertex, View,
};

use crate::error::{Stage, StageError};
use crate::mapping::{self, Interval, TileMapping};
use crate::Options;

pub use matmul::Plan;

/// The result of [`expand`]: a graph without operations, and the library
/// codelets it needs (C++ text for `popc`, and the vertex types to ask for).
pub struct Expansion {
    pub graph: Graph,
    pub spans: Spans,
    pub source: String,
    pub vertex_types: Vec<String>,
    /// One line per matmul: the planner's choice (for `--dump ops`).
    pub plans: Vec<String>,
}

/// Whether the graph has any operation to expand.
pub fn has_ops(graph: &Graph) -> bool {
    let mut found = false;
    let bodies = graph.programs.values().chain(graph.functions.values());
    for p in bodies {
        ir::walk_stmts(&p.body, &mut |s| found |= matches!(s, Stmt::Op(_)));
    }
    found
}

/// Expands every operation of `graph`. Errors point at the operation.
pub fn expand(graph: &Graph, spans: &Spans, opts: &Options) -> Result<Expansion, StageError> {
    // The mapping the user wrote (unmapped tensors get a provisional linear
    // mapping; operation outputs among them are decided below).
    let quiet = Options { strict_mapping: false, ..opts.clone() };
    let (tm, _) = mapping::map_tiles(graph, spans, &quiet)?;
    let mut user_mapped = vec![false; graph.tensors.len()];
    for m in &graph.mappings {
        for t in m.view.tensors() {
            user_mapped[t.index()] = true;
        }
    }
    let mut x = Expander {
        tiles: ir::TileSet::all(graph.total_tiles()),
        graph: graph.clone(),
        spans: spans.clone(),
        tm,
        user_mapped,
        code: codegen::Library::default(),
        cs_names: graph.compute_sets.values().map(|c| c.name.clone()).collect(),
        plans: Vec::new(),
        errors: Vec::new(),
    };
    let progs: Vec<_> = graph.programs.keys().collect();
    for p in progs {
        let body = std::mem::take(&mut x.graph.programs[p].body);
        let old = spans.program_stmts.get(p).clone();
        let mut new_spans = Vec::new();
        let b = x.body(&body, &old, &mut 0, &mut new_spans);
        x.graph.programs[p].body = b;
        x.spans.program_stmts.set(p, new_spans);
    }
    let funcs: Vec<_> = graph.functions.keys().collect();
    for f in funcs {
        let body = std::mem::take(&mut x.graph.functions[f].body);
        let old = spans.function_stmts.get(f).clone();
        let mut new_spans = Vec::new();
        let b = x.body(&body, &old, &mut 0, &mut new_spans);
        x.graph.functions[f].body = b;
        x.spans.function_stmts.set(f, new_spans);
    }
    if !x.errors.is_empty() {
        return Err(StageError::new(Stage::Ops, x.errors));
    }
    let (source, vertex_types) = x.code.finish();
    Ok(Expansion { graph: x.graph, spans: x.spans, source, vertex_types, plans: x.plans })
}

/// State of one expansion.
pub(crate) struct Expander {
    pub graph: Graph,
    pub spans: Spans,
    /// Every tensor's intervals, kept up to date as outputs get mapped.
    pub tm: TileMapping,
    user_mapped: Vec<bool>,
    pub code: codegen::Library,
    cs_names: BTreeSet<String>,
    pub plans: Vec<String>,
    pub errors: Vec<ir::Diagnostic>,
    /// The tiles the operation being expanded may use.
    pub tiles: ir::TileSet,
}

impl Expander {
    /// Rewrites a statement list, keeping the pre-order span table in step.
    fn body(&mut self, body: &[Stmt], old: &[Span], pos: &mut usize, out_spans: &mut Vec<Span>) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(body.len());
        for s in body {
            let span = old.get(*pos).copied().unwrap_or_default();
            *pos += 1;
            let slot = out_spans.len();
            out_spans.push(span);
            let new = match s {
                Stmt::Op(op) => {
                    let steps = self.op(op, span);
                    match steps.len() {
                        1 => steps.into_iter().next().unwrap_or(Stmt::Sync),
                        _ => {
                            out_spans.extend(std::iter::repeat_n(span, steps.len()));
                            Stmt::Block(steps)
                        }
                    }
                }
                Stmt::Repeat { count, body } => {
                    Stmt::Repeat { count: *count, body: self.body(body, old, pos, out_spans) }
                }
                Stmt::Block(b) => Stmt::Block(self.body(b, old, pos, out_spans)),
                Stmt::Named { name, body } => {
                    Stmt::Named { name: name.clone(), body: self.body(body, old, pos, out_spans) }
                }
                Stmt::While { cond, pred, until, body } => {
                    let cond = self.body(cond, old, pos, out_spans);
                    let body = self.body(body, old, pos, out_spans);
                    Stmt::While { cond, pred: pred.clone(), until: *until, body }
                }
                Stmt::If { pred, then, else_ } => {
                    let then = self.body(then, old, pos, out_spans);
                    let else_ = self.body(else_, old, pos, out_spans);
                    Stmt::If { pred: pred.clone(), then, else_ }
                }
                Stmt::Switch { selector, cases, default } => {
                    let cases = cases.iter().map(|(k, b)| (*k, self.body(b, old, pos, out_spans))).collect();
                    let default = self.body(default, old, pos, out_spans);
                    Stmt::Switch { selector: selector.clone(), cases, default }
                }
                other => other.clone(),
            };
            let _ = slot;
            out.push(new);
        }
        out
    }

    /// The statements one operation becomes.
    fn op(&mut self, op: &Op, span: Span) -> Vec<Stmt> {
        let total = self.graph.total_tiles();
        self.tiles = match &op.tiles {
            Some(set) if set.end() > total => {
                let d = ir::Diagnostic::error(
                    span,
                    format!("the operation's tiles {set} are not all on the target, which has {total} tiles"),
                );
                self.errors.push(d);
                return Vec::new();
            }
            Some(set) => set.clone(),
            None => ir::TileSet::all(total),
        };
        if let OpKind::Collective { input, .. } = &op.kind {
            // The runtime reads the whole input before it writes the
            // output: nothing to expand, only an output to place.
            if let Some(t) = self.unmapped_output(&op.out) {
                let n = self.graph.tensors[t].num_elements();
                let elem = self.graph.tensors[t].elem;
                let intervals = match n == input.num_elements() {
                    true => self.like_or_linear(input, n, grain(elem)),
                    false => self.linear(n, grain(elem)),
                };
                self.set_mapping(t, intervals, span);
            }
            return vec![Stmt::Collective(Box::new(op.clone()))];
        }
        let r = alias::resolve(self, op, span).and_then(|r| {
            let mut steps = r.before;
            steps.extend(self.op_in_order(&r.op, span)?);
            if let Some((dst, tmp)) = r.after {
                steps.extend(alias::copy(self, &dst, &tmp, span)?);
            }
            Ok(steps)
        });
        match r {
            Ok(v) => v,
            Err(d) => {
                self.errors.push(d);
                Vec::new()
            }
        }
    }

    /// The statements one operation becomes, once [`alias::resolve`] has
    /// made sure it reads no element it writes before reading it.
    fn op_in_order(&mut self, op: &Op, span: Span) -> Result<Vec<Stmt>, ir::Diagnostic> {
        match &op.kind {
            OpKind::Map(e) => map::expand(self, op, e, span),
            OpKind::Reduce { input, op: r, dims } => reduce::expand(self, op, input, *r, dims, span),
            OpKind::MatMul { a, b } => matmul::expand(self, op, a, b, span),
            OpKind::DynamicSlice { input, offsets, dims, sizes } => {
                dynamic::expand_slice(self, op, input, offsets, dims, sizes, span)
            }
            OpKind::DynamicUpdate { update, offsets, dims, sizes } => {
                dynamic::expand_update(self, op, update, offsets, dims, sizes, span)
            }
            OpKind::Collective { .. } => Ok(vec![Stmt::Collective(Box::new(op.clone()))]),
            OpKind::Random { dist, seed, modifier, like, .. } => {
                random::expand(self, op, dist, seed, modifier, like, span)
            }
        }
    }

    /// The written tensor when `op` writes a whole tensor nobody mapped and
    /// no earlier operation has mapped: the operation decides its mapping.
    pub fn unmapped_output(&self, out: &View) -> Option<TensorId> {
        let (t, start, len) = out.is_contiguous_single_tensor()?;
        let tn = &self.graph.tensors[t];
        (start == 0 && len == tn.num_elements() && !self.user_mapped[t.index()]).then_some(t)
    }

    /// Maps tensor `t` by `intervals` (sorted, covering): records it for
    /// later operations and adds `map` statements for the compiler.
    pub fn set_mapping(&mut self, t: TensorId, intervals: Vec<Interval>, span: Span) {
        let mut merged: Vec<Interval> = Vec::with_capacity(intervals.len());
        for iv in intervals {
            if iv.start == iv.end {
                continue;
            }
            match merged.last_mut() {
                Some(l) if l.tile == iv.tile && l.end == iv.start => l.end = iv.end,
                _ => merged.push(iv),
            }
        }
        let n = self.graph.tensors[t].num_elements();
        let whole = View::whole(t, &[n]);
        for iv in &merged {
            let sub = whole
                .index(&[ir::Subscript::Slice {
                    start: Some(iv.start as i64),
                    end: Some(iv.end as i64),
                    step: None,
                }])
                .unwrap_or_else(|_| whole.clone());
            let sub = View { shape: vec![iv.end - iv.start], pieces: sub.pieces };
            self.graph.mappings.push(ir::MapStmt { view: sub, mapping: Mapping::Tile(iv.tile.0) });
            self.spans.mappings.push(span);
        }
        self.tm.tensors.set(t, merged);
        self.user_mapped[t.index()] = true;
    }

    /// A new compute set named after the operation (`v3.add`), unique.
    pub fn compute_set(&mut self, base: &str, span: Span) -> ir::ComputeSetId {
        let mut name = base.to_string();
        let mut k = 2;
        while self.cs_names.contains(&name) {
            name = format!("{base}#{k}");
            k += 1;
        }
        self.cs_names.insert(name.clone());
        let id = self.graph.compute_sets.push(ComputeSet { name, vertices: Vec::new() });
        self.spans.compute_sets.set(id, span);
        id
    }

    /// Adds a vertex on `tile` to compute set `cs`.
    pub fn vertex(
        &mut self,
        cs: ir::ComputeSetId,
        vtype: &Name,
        tile: u32,
        fields: Vec<(&str, FieldValue)>,
        span: Span,
    ) {
        let n = fields.len();
        let fields =
            fields.into_iter().map(|(name, value)| Field { name: Name::from(name), value }).collect();
        let v = self.graph.vertices.push(Vertex {
            vtype: vtype.clone(),
            compute_set: cs,
            tile: Some(tile),
            fields,
            cycles: None,
        });
        self.graph.compute_sets[cs].vertices.push(v);
        self.spans.vertices.set(v, span);
        self.spans.set_fields(v, std::iter::repeat_n(span, n));
    }

    /// A new tensor (partials, scratch), mapped by `intervals`.
    pub fn scratch(
        &mut self,
        name: &str,
        elem: ir::ElemType,
        n: u64,
        intervals: Vec<Interval>,
        span: Span,
    ) -> TensorId {
        let mut nm = name.to_string();
        let mut k = 2;
        while self.graph.tensor_by_name(&nm).is_some() {
            nm = format!("{name}#{k}");
            k += 1;
        }
        let id = self.graph.tensors.push(ir::Tensor {
            name: nm,
            kind: ir::TensorKind::Var,
            elem,
            shape: vec![n],
            init: None,
        });
        self.spans.tensors.set(id, span);
        self.tm.tensors.set(id, Vec::new());
        self.user_mapped.push(false);
        self.set_mapping(id, intervals, span);
        id
    }

    /// The view's elements as runs on one tile each, in the view's order:
    /// (the operation's tile for work on the run, position of the run's
    /// first element in the view, length).
    pub fn tile_runs(&self, view: &View) -> Vec<(u32, u64, u64)> {
        let mut runs = Vec::new();
        let mut pos = 0;
        self.tm.segments(view, |s| {
            runs.push((self.tiles.place(s.tile.0), pos, s.len));
            pos += s.len;
        });
        runs
    }

    /// `n` elements spread linearly over the operation's tiles in grains
    /// of `grain`.
    pub fn linear(&self, n: u64, grain: u64) -> Vec<Interval> {
        let mut ivs = map::linear_intervals(n, grain, self.tiles.len());
        for iv in &mut ivs {
            iv.tile = crate::ids::TileId(self.tiles.nth(iv.tile.0));
        }
        ivs
    }

    /// `n` elements mapped like `like` (a view of `n` elements) when all of
    /// it is on the operation's tiles, else linearly over them.
    pub fn like_or_linear(&self, like: &View, n: u64, grain: u64) -> Vec<Interval> {
        let ivs = map::intervals_like(self, like);
        if ivs.iter().all(|iv| self.tiles.contains(iv.tile.0)) {
            ivs
        } else {
            self.linear(n, grain)
        }
    }

    /// The name of the tensor an output view writes, for compute set names.
    pub fn out_name(&self, out: &View) -> String {
        out.tensors().first().map(|t| self.graph.tensors[*t].name.clone()).unwrap_or_else(|| "op".into())
    }
}

/// `v[a:b]` of a rank-1 view.
pub(crate) fn slice(v: &View, a: u64, b: u64) -> View {
    v.index(&[ir::Subscript::Slice { start: Some(a as i64), end: Some(b as i64), step: None }])
        .unwrap_or_else(|_| v.clone())
}

/// Grain of linear mappings the library chooses: 16 bytes of elements.
pub(crate) fn grain(elem: ir::ElemType) -> u64 {
    (16 / elem.size() as u64).max(1)
}

/// No includes beyond `popc`'s built-in headers.
struct BuiltinOnly;

impl popc::IncludeResolver for BuiltinOnly {
    fn read(&self, _path: &str) -> Option<String> {
        None
    }
}

/// Compiles the generated library with `popc`. `Err` is rendered text.
pub fn compile_library(source: &str, vertex_types: &[String]) -> Result<linker::gp::Object, String> {
    let opts = popc::Options::from_args(&[]).map_err(|e| e.to_string())?;
    popc::compile("<pir-ops>", source, &opts, &BuiltinOnly, vertex_types).map_err(|d| d.render())
}

/// `--dump ops`: each matmul's plan and the library's vertex types.
pub fn dump(x: &Expansion) -> String {
    let mut o = String::new();
    for p in &x.plans {
        o.push_str(p);
        o.push('\n');
    }
    for v in &x.vertex_types {
        o.push_str("vertex type ");
        o.push_str(v);
        o.push('\n');
    }
    o
}

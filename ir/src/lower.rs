//! Lowering: from the syntax tree to a checked [`Graph`].
//!
//! Expands `for` loops (items, vertices and statements), resolves names
//! (items may appear in any order; each name is declared once: tensors,
//! compute sets, functions and programs share one namespace, host handles,
//! streams and remote buffers another), evaluates integer expressions with
//! checked arithmetic, computes [`View`]s, and checks shapes, element counts,
//! types of copies, initial values, mapping tiles, predicates and calls.
//! Errors are collected; lowering goes on with the next item after an error
//! so that one run reports several independent problems.
//!
//! Expansion is capped at [`EXPANSION_LIMIT`] loop iterations plus produced
//! items, vertices and statements, so a runaway `for` is an error, not a hang.

use std::collections::HashMap;
use std::sync::Arc;

use crate::ast::{self, BinOp, CsItem, Expr, ExprKind, For, Item, MappingAst, Sub, TArg};
use crate::diag::{Diagnostic, Span, Spans};
use crate::graph::*;
use crate::target::{Preset, Target};
use crate::types::ElemType;
use crate::view::{checked_num_elements, Subscript, View};
use vocab::Value;

mod expr;
mod ops;
mod program;

/// The expansion budget of one file: each `for` iteration costs 1 and each
/// produced item, vertex or statement costs [`ENTITY_COST`]; more than
/// 100,000,000 in total is an error (so at most 6.25M vertices, which bounds
/// memory, and a runaway loop fails fast instead of hanging).
pub const EXPANSION_LIMIT: u64 = 100_000_000;

/// Budget units one produced item, vertex or statement costs.
pub const ENTITY_COST: u64 = 16;

/// Errors after which lowering stops.
pub const MAX_ERRORS: usize = 50;

/// How many recently interned names [`Lowerer::intern`] checks first.
const RECENT_NAMES: usize = 8;

/// Marker: a diagnostic has been recorded.
#[derive(Debug)]
pub struct Reported;

type R<T> = Result<T, Reported>;

#[derive(Clone, Copy, Debug)]
enum Sym {
    Tensor(TensorId),
    ComputeSet(ComputeSetId),
    Function(FunctionId),
    Program(ProgramId),
}

#[derive(Clone, Copy, Debug)]
enum StrSym {
    Handle(HostHandleId),
    Stream(StreamId),
    Remote(RemoteBufferId),
}

struct Lowerer {
    graph: Graph,
    spans: Spans,
    errors: Vec<Diagnostic>,
    syms: HashMap<String, (Sym, Span)>,
    strs: HashMap<String, (StrSym, Span)>,
    env: Vec<(String, i64)>,
    budget: u64,
    aborted: bool,
    names: HashMap<String, Name>,
    /// Whole views of tensors, for `t[…]`.
    whole_views: Vec<Option<View>>,
    /// A few recently interned names, checked before `names`.
    recent_names: Vec<Name>,
    /// Scratch buffer for vertex type names.
    name_buf: String,
    /// Call sites per function: (caller, callee, span).
    calls: Vec<(Option<FunctionId>, FunctionId, Span)>,
    current_fn: Option<FunctionId>,
    handles_declared: u32,
    /// The target the caller imposes (overrides from outside the file).
    forced_target: Option<Target>,
}

/// Lowers parsed items; `Err` holds the diagnostics. `target`, when given,
/// replaces the file's target (after the file's is checked), so that
/// `target.num_tiles` and the other properties read the final target.
pub fn lower(items: &[Item<'_>], target: Option<&Target>) -> Result<(Graph, Spans), Vec<Diagnostic>> {
    let mut l = Lowerer {
        graph: Graph::default(),
        spans: Spans::default(),
        errors: Vec::new(),
        syms: HashMap::new(),
        strs: HashMap::new(),
        env: Vec::new(),
        budget: 0,
        aborted: false,
        names: HashMap::new(),
        whole_views: Vec::new(),
        recent_names: Vec::new(),
        name_buf: String::new(),
        calls: Vec::new(),
        current_fn: None,
        handles_declared: 0,
        forced_target: target.cloned(),
    };
    l.declare_target(items);
    // Expand item-level `for` loops into (item, loop environment) pairs.
    let mut flat: Vec<(&Item<'_>, Vec<(String, i64)>)> = Vec::new();
    for it in items {
        l.expand_items(it, &mut flat);
        if l.aborted {
            break;
        }
    }
    if !l.aborted {
        l.declare(&flat);
    }
    if !l.aborted {
        // Programs and functions first: a tensor an operation defines
        // (`v3 = v1 + v2`) may be named by any item.
        // Diagnostics are put back in file order of their items.
        let bodies = |it: &Item<'_>| matches!(it, Item::Program { .. } | Item::Function { .. });
        let first = l.errors.len();
        let mut origin: Vec<usize> = Vec::new();
        for pass in [true, false] {
            for (i, (it, env)) in flat.iter().enumerate().filter(|(_, (it, _))| bodies(it) == pass) {
                l.env = env.clone();
                l.define(it);
                origin.resize(l.errors.len() - first, i);
                if l.aborted {
                    break;
                }
            }
            if l.aborted {
                break;
            }
        }
        origin.resize(l.errors.len() - first, usize::MAX);
        let mut tagged: Vec<(usize, Diagnostic)> = origin.into_iter().zip(l.errors.drain(first..)).collect();
        tagged.sort_by_key(|(i, _)| *i);
        l.errors.extend(tagged.into_iter().map(|(_, d)| d));
    }
    if !l.aborted {
        l.check_recursion();
    }
    if l.errors.is_empty() {
        Ok((l.graph, l.spans))
    } else {
        Err(l.errors)
    }
}

fn elem_type(s: &str) -> ElemType {
    ElemType::from_pir(s).unwrap_or(ElemType::Float)
}

fn shape_str(shape: &[u64]) -> String {
    let p: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", p.join(", "))
}

impl Lowerer {
    fn error(&mut self, d: Diagnostic) -> Reported {
        if self.aborted {
            return Reported;
        }
        // One error per position and message: a loop's other iterations
        // are counted in the first one's note.
        if let Some(e) = self.errors.iter_mut().find(|e| e.primary == d.primary && e.message == d.message) {
            e.count_repeat(0);
            return Reported;
        }
        let d = if d.repeats.is_none() && !self.env.is_empty() {
            let it: Vec<String> = self.env.iter().map(|(n, v)| format!("{n} = {v}")).collect();
            d.in_iteration(Some(it.join(", ")))
        } else {
            d
        };
        self.errors.push(d);
        if self.errors.len() >= MAX_ERRORS {
            self.errors.push(Diagnostic::error_no_span(format!("too many errors ({MAX_ERRORS}); stopping")));
            self.aborted = true;
        }
        Reported
    }

    fn err(&mut self, span: Span, msg: impl Into<String>) -> Reported {
        self.error(Diagnostic::error(span, msg))
    }

    /// The error for an unknown name (`unknown {what} `name``) with the
    /// closest declared name of that kind (`candidates`) as a suggestion.
    /// The candidates are only looked at the first time: a loop repeats it.
    fn unknown(
        &mut self,
        span: Span,
        what: &str,
        name: &str,
        candidates: impl FnOnce(&Lowerer) -> Vec<String>,
    ) -> Reported {
        let d = Diagnostic::error(span, format!("unknown {what} `{name}`"));
        if self.aborted || self.errors.iter().any(|e| e.primary == d.primary && e.message == d.message) {
            return self.error(d);
        }
        let mut names = candidates(self);
        names.sort_unstable();
        let d = match spelling::did_you_mean(name, names.iter().map(String::as_str)) {
            Some(s) => d.with_note(format!("help: did you mean `{s}`?")),
            None => d,
        };
        self.error(d)
    }

    /// Declared names of one kind, for [`Lowerer::unknown`].
    fn sym_names(&self, kind: fn(&Sym) -> bool) -> Vec<String> {
        self.syms.iter().filter(|(_, (s, _))| kind(s)).map(|(n, _)| n.clone()).collect()
    }

    /// Counts one produced entity; errors past the limit.
    fn tick(&mut self, span: Span) -> R<()> {
        self.charge(span, ENTITY_COST)
    }

    /// Counts `units` of expansion work; errors past the limit.
    fn charge(&mut self, span: Span, units: u64) -> R<()> {
        if self.aborted {
            return Err(Reported);
        }
        self.budget = self.budget.saturating_add(units);
        if self.budget > EXPANSION_LIMIT {
            let r = self.err(
                span,
                format!("expansion limit exceeded: more than {EXPANSION_LIMIT} units (a loop iteration costs 1, an item, vertex or statement {ENTITY_COST})"),
            );
            self.aborted = true;
            return Err(r);
        }
        Ok(())
    }

    fn intern(&mut self, s: &str) -> Name {
        // Vertex type and field names repeat: look at the recently used ones
        // before hashing.
        if let Some(n) = self.recent_names.iter().find(|n| &***n == s) {
            return n.clone();
        }
        let n = match self.names.get(s) {
            Some(n) => n.clone(),
            None => {
                let n: Name = Arc::from(s);
                self.names.insert(s.to_string(), n.clone());
                n
            }
        };
        if self.recent_names.len() >= RECENT_NAMES {
            self.recent_names.remove(0);
        }
        self.recent_names.push(n.clone());
        n
    }

    /// Evaluates a loop's bounds and charges its iterations up front.
    /// The bounds of `for v in lo..hi { body }`, charging its iterations.
    /// Before anything is expanded, the work the loop surely implies (its
    /// iterations times what `body` surely costs each time, nested loops
    /// with literal bounds multiplied out) is checked against the budget, so
    /// a loop nest past the limit fails at once instead of after building
    /// millions of entities.
    fn loop_range<T: LoopItem>(&mut self, f: &For<'_, T>) -> R<(i64, i64)> {
        let lo = self.eval_int(&f.lo);
        let hi = self.eval_int(&f.hi);
        let (lo, hi) = (lo?, hi?);
        let n = u64::try_from((hi as i128 - lo as i128).max(0)).unwrap_or(u64::MAX);
        let span = f.lo.span.to(f.hi.span);
        let ahead = n.saturating_mul(1 + sure_units(&f.body));
        if self.budget.saturating_add(ahead) > EXPANSION_LIMIT {
            return self.charge(span, ahead).map(|()| (lo, hi));
        }
        self.charge(span, n)?;
        Ok((lo, hi))
    }

    fn expand_items<'a, 's>(&mut self, it: &'a Item<'s>, out: &mut Vec<(&'a Item<'s>, Vec<(String, i64)>)>) {
        if self.aborted {
            return;
        }
        match it {
            Item::For(f) => {
                let Ok((lo, hi)) = self.loop_range(f) else { return };
                for i in lo..hi {
                    self.env.push((f.var.name.to_string(), i));
                    for b in &f.body {
                        self.expand_items(b, out);
                    }
                    self.env.pop();
                    if self.aborted {
                        return;
                    }
                }
            }
            _ => {
                if self.tick(item_span(it)).is_ok() {
                    out.push((it, self.env.clone()));
                }
            }
        }
    }

    fn declare_sym(&mut self, name: &ast::Ident<'_>, sym: Sym) -> R<()> {
        if let Some((_, prev)) = self.syms.get(name.name) {
            let prev = *prev;
            return Err(self.error(
                Diagnostic::error(name.span, format!("`{}` is declared more than once", name.name))
                    .with_secondary(prev, "first declared here"),
            ));
        }
        self.syms.insert(name.name.to_string(), (sym, name.span));
        Ok(())
    }

    fn declare_str(&mut self, name: &str, span: Span, sym: StrSym) -> R<()> {
        if let Some((_, prev)) = self.strs.get(name) {
            let prev = *prev;
            return Err(self.error(
                Diagnostic::error(span, format!("\"{name}\" is declared more than once"))
                    .with_secondary(prev, "first declared here"),
            ));
        }
        self.strs.insert(name.to_string(), (sym, span));
        Ok(())
    }

    fn eval_shape(&mut self, ty: &ast::TypeAst<'_>) -> R<Vec<u64>> {
        let mut shape = Vec::new();
        let mut bad = false;
        for e in &ty.shape {
            match self.eval_int(e) {
                Ok(d) if d >= 0 => shape.push(d as u64),
                Ok(d) => {
                    self.err(e.span, format!("dimension {d} is negative"));
                    bad = true;
                }
                Err(_) => bad = true,
            }
        }
        if bad {
            return Err(Reported);
        }
        if checked_num_elements(&shape).is_none() {
            return Err(self
                .err(ty.span, format!("shape {} has too many elements (at most 2^48)", shape_str(&shape))));
        }
        Ok(shape)
    }

    /// The target, before anything else (loop bounds and shapes may read
    /// its properties): the file's top-level `target` items.
    fn declare_target(&mut self, items: &[Item<'_>]) {
        let mut target_span: Option<Span> = None;
        for it in items {
            if let Item::Target { preset, keys, span } = it {
                if let Some(prev) = target_span {
                    self.error(
                        Diagnostic::error(*span, "more than one `target` item")
                            .with_secondary(prev, "first target here"),
                    );
                    continue;
                }
                target_span = Some(*span);
                self.spans.target = Some(*span);
                let Some(p) = Preset::from_name(preset.name) else {
                    self.err(
                        preset.span,
                        format!("unknown target preset `{}` (expected mk1, mk2, bow or cpu)", preset.name),
                    );
                    continue;
                };
                let mut t = Target::preset(p);
                let mut seen: Vec<&str> = Vec::new();
                for (k, v) in keys {
                    if seen.contains(&k.name) {
                        self.err(k.span, format!("target key `{}` is given twice", k.name));
                        continue;
                    }
                    seen.push(k.name);
                    let Ok(val) = self.eval_int(v) else { continue };
                    let Ok(val) = u32::try_from(val) else {
                        self.err(v.span, format!("target value {val} is out of range (1 to {})", u32::MAX));
                        continue;
                    };
                    if let Err(m) = t.set(k.name, val) {
                        let sp = if t.get(k.name).is_some() { v.span } else { k.span };
                        self.err(sp, m);
                    }
                }
                if let Err(m) = t.check() {
                    self.err(*span, m);
                }
                self.graph.target = t;
            }
        }
        if let Some(t) = &self.forced_target {
            self.graph.target = t.clone();
        }
    }

    /// First pass: every name, so items may come in any order.
    fn declare(&mut self, flat: &[(&Item<'_>, Vec<(String, i64)>)]) {
        for (it, env) in flat {
            if let (Item::Target { span, .. }, false) = (it, env.is_empty()) {
                self.env = env.clone();
                self.err(*span, "a `target` item cannot be inside a `for` loop");
            }
        }
        for (it, env) in flat {
            if self.aborted {
                return;
            }
            self.env = env.clone();
            match it {
                Item::Decl(d) => {
                    let id = self.graph.tensors.next_key();
                    if self.declare_sym(&d.name, Sym::Tensor(id)).is_err() {
                        continue;
                    }
                    let shape = self.eval_shape(&d.ty).unwrap_or_default();
                    self.graph.tensors.push(Tensor {
                        name: d.name.name.to_string(),
                        kind: if d.is_const { TensorKind::Const } else { TensorKind::Var },
                        elem: elem_type(d.ty.scalar),
                        shape,
                        init: None,
                    });
                    self.spans.tensors.set(id, d.span);
                }
                Item::ComputeSet { name, span, .. } => {
                    let id = self.graph.compute_sets.next_key();
                    if self.declare_sym(name, Sym::ComputeSet(id)).is_ok() {
                        self.graph
                            .compute_sets
                            .push(ComputeSet { name: name.name.to_string(), vertices: Vec::new() });
                        self.spans.compute_sets.set(id, *span);
                    }
                }
                Item::Function { name, span, .. } => {
                    let id = self.graph.functions.next_key();
                    if self.declare_sym(name, Sym::Function(id)).is_ok() {
                        self.graph.functions.push(Program { name: name.name.to_string(), body: Vec::new() });
                        self.spans.functions.set(id, *span);
                    }
                }
                Item::Program { name, span, .. } => {
                    let id = self.graph.programs.next_key();
                    if self.declare_sym(name, Sym::Program(id)).is_ok() {
                        self.graph.programs.push(Program { name: name.name.to_string(), body: Vec::new() });
                        self.spans.programs.set(id, *span);
                    }
                }
                Item::Stream { name, ty, to_host, span } => {
                    let id = self.graph.streams.next_key();
                    if self.declare_str(name, *span, StrSym::Stream(id)).is_ok() {
                        let shape = self.eval_shape(ty).unwrap_or_default();
                        self.graph.streams.push(Stream {
                            name: name.clone(),
                            elem: elem_type(ty.scalar),
                            shape,
                            direction: if *to_host { HostDirection::ToHost } else { HostDirection::ToDevice },
                        });
                        self.spans.streams.set(id, *span);
                    }
                }
                Item::Remote { name, ty, repeats, span } => {
                    let id = self.graph.remote_buffers.next_key();
                    if self.declare_str(name, *span, StrSym::Remote(id)).is_ok() {
                        let shape = self.eval_shape(ty).unwrap_or_default();
                        let reps = match self.eval_int(repeats) {
                            Ok(r) if r >= 1 => r as u64,
                            Ok(r) => {
                                self.err(
                                    repeats.span,
                                    format!("a remote buffer needs at least one repeat, not {r}"),
                                );
                                1
                            }
                            Err(_) => 1,
                        };
                        self.graph.remote_buffers.push(RemoteBuffer {
                            name: name.clone(),
                            elem: elem_type(ty.scalar),
                            shape,
                            repeats: reps,
                        });
                        self.spans.remote_buffers.set(id, *span);
                    }
                }
                Item::HostIo { name, span, .. } => {
                    let id = HostHandleId(self.handles_declared);
                    self.handles_declared += 1;
                    // The tensor is resolved in the second pass.
                    let _ = self.declare_str(name, *span, StrSym::Handle(id));
                }
                Item::Target { .. } | Item::Codelets { .. } | Item::Map { .. } | Item::For(_) => {}
            }
        }
    }

    /// Second pass: everything that refers to names.
    fn define(&mut self, it: &Item<'_>) {
        match it {
            Item::Target { .. } | Item::For(_) => {}
            Item::Codelets { path, options, span } => {
                let id =
                    self.graph.codelets.push(CodeletRef { path: path.clone(), options: options.clone() });
                self.spans.codelets.set(id, *span);
            }
            Item::Decl(d) => {
                let Some((Sym::Tensor(id), sp)) = self.syms.get(d.name.name).copied() else { return };
                if sp != d.name.span {
                    return; // a duplicate, already reported
                }
                if let Some(m) = &d.mapping {
                    if let Ok(mapping) = self.lower_mapping(m) {
                        let t = &self.graph.tensors[id];
                        let view = View::whole(id, &t.shape);
                        self.spans.mapping_iterations.record(self.graph.mappings.len(), &self.env);
                        self.graph.mappings.push(MapStmt { view, mapping });
                        self.spans.mappings.push(d.span);
                    }
                }
                if let Some(init) = &d.init {
                    let (elem, shape) = {
                        let t = &self.graph.tensors[id];
                        (t.elem, t.shape.clone())
                    };
                    if let Ok(v) = self.lower_init(init, elem, &shape) {
                        self.graph.tensors[id].init = Some(v);
                    }
                } else if d.is_const {
                    self.err(d.span, format!("const `{}` needs an initial value", d.name.name));
                }
            }
            Item::Map { view, mapping, span } => {
                let v = self.eval_view(view);
                let m = self.lower_mapping(mapping);
                if let (Ok((v, _)), Ok(m)) = (v, m) {
                    self.spans.mapping_iterations.record(self.graph.mappings.len(), &self.env);
                    self.graph.mappings.push(MapStmt { view: v, mapping: m });
                    self.spans.mappings.push(*span);
                }
            }
            Item::HostIo { name, tensor, write, span } => {
                let Some((StrSym::Handle(id), sp)) = self.strs.get(name).copied() else { return };
                if sp != *span {
                    return;
                }
                let Ok(t) = self.tensor_named(tensor) else { return };
                if id != self.graph.host_handles.next_key() {
                    return; // an earlier handle failed; errors are already reported
                }
                self.graph.host_handles.push(HostHandle {
                    name: name.clone(),
                    tensor: t,
                    direction: if *write { HostDirection::ToDevice } else { HostDirection::ToHost },
                });
                self.spans.host_handles.set(id, *span);
            }
            Item::Stream { .. } | Item::Remote { .. } => {}
            Item::ComputeSet { name, body, .. } => {
                let Some((Sym::ComputeSet(id), sp)) = self.syms.get(name.name).copied() else { return };
                if sp != name.span {
                    return;
                }
                let mut vs = Vec::new();
                if self.env.is_empty() {
                    // A top-level compute set is lowered once: free its
                    // syntax tree vertex by vertex while the graph grows.
                    let body = std::mem::take(&mut *body.borrow_mut());
                    vs.reserve(body.len());
                    for b in body {
                        self.lower_cs_item(id, &b, &mut vs);
                        drop(b);
                        if self.aborted {
                            return;
                        }
                    }
                } else {
                    for b in body.borrow().iter() {
                        self.lower_cs_item(id, b, &mut vs);
                        if self.aborted {
                            return;
                        }
                    }
                }
                self.graph.compute_sets[id].vertices = vs;
            }
            Item::Function { name, body, .. } => {
                let Some((Sym::Function(id), sp)) = self.syms.get(name.name).copied() else { return };
                if sp != name.span {
                    return;
                }
                self.current_fn = Some(id);
                let mut spans = Vec::new();
                let b = self.lower_block(body, &mut spans);
                self.current_fn = None;
                self.graph.functions[id].body = b;
                self.spans.function_stmts.set(id, spans);
            }
            Item::Program { name, body, .. } => {
                let Some((Sym::Program(id), sp)) = self.syms.get(name.name).copied() else { return };
                if sp != name.span {
                    return;
                }
                self.current_fn = None;
                let mut spans = Vec::new();
                let b = self.lower_block(body, &mut spans);
                self.graph.programs[id].body = b;
                self.spans.program_stmts.set(id, spans);
            }
        }
    }

    fn tensor_named(&mut self, n: &ast::Ident<'_>) -> R<TensorId> {
        match self.syms.get(n.name) {
            Some((Sym::Tensor(t), _)) => Ok(*t),
            Some(_) => Err(self.err(n.span, format!("`{}` is not a tensor", n.name))),
            None => {
                Err(self.unknown(n.span, "tensor", n.name, |l| l.sym_names(|s| matches!(s, Sym::Tensor(_)))))
            }
        }
    }

    fn lower_mapping(&mut self, m: &MappingAst<'_>) -> R<Mapping> {
        let total = self.graph.target.total_tiles();
        let check_tile = |l: &mut Lowerer, e: &Expr<'_>, t: i64, end: bool| -> R<u32> {
            let limit = if end { total as i64 } else { total as i64 - 1 };
            if t < 0 || t > limit {
                let d = tile_out_of_range(e.span, t, total);
                return Err(l.error(if end {
                    d.with_label(format!("tiles end at {t} (exclusive)"))
                } else {
                    d
                }));
            }
            Ok(t as u32)
        };
        match m {
            MappingAst::Tile(e) => {
                let t = self.eval_int(e)?;
                Ok(Mapping::Tile(check_tile(self, e, t, false)?))
            }
            MappingAst::Tiles(a, b) => {
                let x = self.eval_int(a)?;
                let y = self.eval_int(b)?;
                let x = check_tile(self, a, x, false)?;
                let y = check_tile(self, b, y, true)?;
                if x >= y {
                    return Err(self.err(a.span.to(b.span), format!("tile range {x}..{y} is empty")));
                }
                Ok(Mapping::Tiles(x, y))
            }
            MappingAst::Linear(None, _) => Ok(Mapping::Linear { grain: 1 }),
            MappingAst::Linear(Some(kv), _) => {
                let (k, v) = &**kv;
                if k.name != "grain" {
                    return Err(
                        self.err(k.span, format!("unknown mapping option `{}` (expected `grain`)", k.name))
                    );
                }
                let g = self.eval_int(v)?;
                if g < 1 {
                    return Err(self.err(v.span, format!("grain must be at least 1, not {g}")));
                }
                Ok(Mapping::Linear { grain: g as u64 })
            }
        }
    }

    // ---- compute sets ----

    fn lower_cs_item(&mut self, cs: ComputeSetId, it: &CsItem<'_>, out: &mut Vec<VertexId>) {
        match it {
            CsItem::For(f) => self.for_loop(f, |l, b: &CsItem<'_>| l.lower_cs_item(cs, b, out)),
            CsItem::Vertex(v) => {
                if self.tick(v.span).is_err() {
                    return;
                }
                if let Ok(id) = self.lower_vertex(cs, v) {
                    out.push(id);
                }
            }
        }
    }

    fn for_loop<T: LoopItem>(&mut self, f: &For<'_, T>, mut body: impl FnMut(&mut Lowerer, &T)) {
        let Ok((lo, hi)) = self.loop_range(f) else { return };
        for i in lo..hi {
            self.env.push((f.var.name.to_string(), i));
            for b in &f.body {
                body(self, b);
                if self.aborted {
                    break;
                }
            }
            self.env.pop();
            if self.aborted {
                return;
            }
        }
    }

    fn vtype_name(&mut self, t: &ast::VType<'_>, out: &mut String) -> R<()> {
        out.push_str(&t.path);
        if let Some(args) = &t.args {
            out.push('<');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match a {
                    TArg::Scalar(s) => out.push_str(elem_type(s).cpp_name()),
                    TArg::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                    TArg::Type(t) => self.vtype_name(t, out)?,
                    TArg::Expr(e) => match &e.kind {
                        ExprKind::Name(n) if self.lookup_var(n).is_none() => out.push_str(n),
                        ExprKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                        _ => {
                            let v = self.eval_int(e)?;
                            out.push_str(&v.to_string());
                        }
                    },
                }
            }
            out.push('>');
        }
        Ok(())
    }

    fn lower_vertex(&mut self, cs: ComputeSetId, v: &ast::VertexAst<'_>) -> R<VertexId> {
        let vtype = if v.vtype.args.is_none() {
            self.intern(&v.vtype.path)
        } else {
            let mut name = std::mem::take(&mut self.name_buf);
            name.clear();
            let r = self.vtype_name(&v.vtype, &mut name);
            let vtype = r.map(|()| self.intern(&name));
            self.name_buf = name;
            vtype?
        };
        let tile = match &v.tile {
            None => None,
            Some(e) => {
                let t = self.eval_int(e)?;
                let total = self.graph.target.total_tiles();
                if t < 0 || t >= total as i64 {
                    return Err(self.error(tile_out_of_range(e.span, t, total)));
                }
                Some(t as u32)
            }
        };
        let cycles = match &v.cycles {
            None => None,
            Some(e) => {
                let c = self.eval_int(e)?;
                if c < 0 {
                    return Err(self.err(e.span, format!("cycles must not be negative, not {c}")));
                }
                Some(c as u64)
            }
        };
        let mut fields: Vec<Field> = Vec::with_capacity(v.fields.len());
        let mut bad = false;
        for (i, ast::FieldAst(fname, val, _)) in v.fields.iter().enumerate() {
            if let Some(j) = v.fields[..i].iter().position(|f| f.0.name == fname.name) {
                let prev = v.fields[j].0.span;
                self.error(
                    Diagnostic::error(fname.span, format!("field `{}` is set twice", fname.name))
                        .with_secondary(prev, "first set here"),
                );
                bad = true;
                continue;
            }
            match self.lower_field(val) {
                Ok(value) => fields.push(Field { name: self.intern(fname.name), value }),
                Err(_) => bad = true,
            }
        }
        if bad {
            return Err(Reported);
        }
        let id = self.graph.vertices.push(Vertex { vtype, compute_set: cs, tile, fields, cycles });
        self.spans.vertices.set(id, v.span);
        self.spans.set_fields(id, v.fields.iter().map(|f| f.2));
        self.spans.vertex_iterations.record(id.0 as usize, &self.env);
        Ok(id)
    }

    fn lower_field(&mut self, e: &Expr<'_>) -> R<FieldValue> {
        match &e.kind {
            ExprKind::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                let mut bad = false;
                for it in items {
                    match self.eval_view(it) {
                        Ok((v, _)) => out.push(v),
                        Err(_) => bad = true,
                    }
                }
                if bad {
                    Err(Reported)
                } else {
                    Ok(FieldValue::EdgeList(out))
                }
            }
            ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Int(_)
            | ExprKind::Neg(_)
            | ExprKind::Bin(..) => Ok(FieldValue::Literal(match self.eval_value(e)? {
                Value::Float(f) => Literal::Float(f),
                Value::Bool(b) => Literal::Bool(b),
                Value::Int(i) => Literal::Int(
                    i64::try_from(i).map_err(|_| self.err(e.span, format!("integer {i} is out of range")))?,
                ),
            })),
            ExprKind::Name(n) if self.lookup_var(n).is_some() && !self.syms.contains_key(*n) => {
                Ok(FieldValue::Literal(Literal::Int(self.eval_int(e)?)))
            }
            ExprKind::Call(c) if c.0.name == "min" || c.0.name == "max" => {
                Ok(FieldValue::Literal(Literal::Int(self.eval_int(e)?)))
            }
            ExprKind::TargetProp(_) => Ok(FieldValue::Literal(Literal::Int(self.eval_int(e)?))),
            _ => Ok(FieldValue::Edge(self.eval_view(e)?.0)),
        }
    }
}

/// A tile number past the target's. The message does not name the tile, so
/// a loop's iterations share one diagnostic; the label does.
fn tile_out_of_range(span: Span, tile: i64, total: u32) -> Diagnostic {
    Diagnostic::error(
        span,
        format!("tile out of range: the target has {total} tiles (0 to {})", total.saturating_sub(1)),
    )
    .with_label(format!("tile {tile}"))
}

fn item_span(it: &Item<'_>) -> Span {
    match it {
        Item::Target { span, .. }
        | Item::Codelets { span, .. }
        | Item::Map { span, .. }
        | Item::HostIo { span, .. }
        | Item::Stream { span, .. }
        | Item::Remote { span, .. }
        | Item::ComputeSet { span, .. }
        | Item::Function { span, .. }
        | Item::Program { span, .. } => *span,
        Item::Decl(d) => d.span,
        Item::For(f) => f.span,
    }
}

fn stmt_span(s: &ast::Stmt<'_>) -> Span {
    use ast::Stmt as S;
    match s {
        S::Copy { span, .. }
        | S::Print { span, .. }
        | S::Repeat { span, .. }
        | S::While { span, .. }
        | S::If { span, .. }
        | S::Switch { span, .. }
        | S::Assign { span, .. }
        | S::Fill { span, .. } => *span,
        S::Execute(_, sp)
        | S::OpCall(_, sp)
        | S::Undef(_, sp)
        | S::Sync(sp)
        | S::Call(_, sp)
        | S::Block(_, sp) => *sp,
        S::For(f) => f.span,
    }
}

/// An item a `for` may repeat (items, compute set members, statements), as
/// [`sure_units`] sees it.
trait LoopItem: Sized {
    /// The item as a loop, if it is one.
    fn as_for(&self) -> Option<&For<'_, Self>>;
    /// Budget units expanding the item surely costs, loops aside.
    fn own_units(&self) -> u64 {
        0
    }
}

impl LoopItem for Item<'_> {
    fn as_for(&self) -> Option<&For<'_, Self>> {
        match self {
            Item::For(f) => Some(f),
            _ => None,
        }
    }
}

impl LoopItem for CsItem<'_> {
    fn as_for(&self) -> Option<&For<'_, Self>> {
        match self {
            CsItem::For(f) => Some(f),
            CsItem::Vertex(_) => None,
        }
    }
    fn own_units(&self) -> u64 {
        match self {
            CsItem::Vertex(_) => ENTITY_COST,
            CsItem::For(_) => 0,
        }
    }
}

impl LoopItem for ast::Stmt<'_> {
    fn as_for(&self) -> Option<&For<'_, Self>> {
        match self {
            ast::Stmt::For(f) => Some(f),
            _ => None,
        }
    }
}

/// Budget units one pass over `body` surely costs: each item's own units,
/// and for a nested loop with literal bounds its iterations times its body's
/// units (a loop whose bounds depend on anything else counts nothing: this
/// is a lower bound, so it never rejects a file the expansion would accept).
fn sure_units<T: LoopItem>(body: &[T]) -> u64 {
    body.iter().fold(0u64, |sum, item| {
        let units = match item.as_for() {
            Some(f) => match (&f.lo.kind, &f.hi.kind) {
                (ExprKind::Int(lo), ExprKind::Int(hi)) => {
                    hi.saturating_sub(*lo).saturating_mul(1 + sure_units(&f.body))
                }
                _ => 0,
            },
            None => item.own_units(),
        };
        sum.saturating_add(units)
    })
}

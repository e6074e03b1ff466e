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
//! Expansion has a budget (by default [`EXPANSION_LIMIT`]) for what `for`
//! loops and views that repeat elements make beyond what the text writes
//! out, so a runaway `for` is an error, not a hang, while a file that is
//! merely large costs nothing of it.
//!
//! This file holds the lowerer's state, its entry point and error
//! reporting; `expand` expands loops, `decl` declares and defines items,
//! `vertex` lowers compute sets' vertices, `expr` evaluates expressions and
//! views, `program` lowers program bodies, `ops` the tensor operations.

use std::collections::HashMap;

use crate::ast::{self, BinOp, CsItem, Expr, ExprKind, For, Item, MappingAst, Sub, TArg};
use crate::diag::{Diagnostic, Span, Spans};
use crate::graph::*;
use crate::split;
use crate::target::{Preset, Target};
use crate::types::ElemType;
use crate::view::{checked_num_elements, Subscript, View};
use vocab::Value;

mod decl;
mod expand;
mod expr;
mod ops;
mod program;
mod vertex;

/// The default expansion budget of one file ([`CheckOptions::expansion_limit`]
/// sets another). It is charged for what loops and repetition make beyond
/// the text: each `for` iteration costs 1; each item, vertex or statement a
/// loop makes, each run of consecutive elements a `map` places after its
/// first, and each element of a view that repeats elements (per use) cost
/// [`ENTITY_COST`]. What the text writes out itself is free: its size
/// already bounds it. Past the budget lowering stops with an error, so a
/// runaway loop fails fast instead of hanging or exhausting memory (the
/// default allows fewer than 6.25M entities made by loops).
pub const EXPANSION_LIMIT: u64 = 100_000_000;

/// Budget units one entity made by a loop or a repetition costs.
pub const ENTITY_COST: u64 = 16;

/// What a caller sets for checking a file beyond its text.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The target imposed from outside the file (the file's `target` item
    /// with overrides applied), replacing the file's once that is checked,
    /// so that `target.num_tiles` and the other properties read the final
    /// target.
    pub target: Option<Target>,
    /// The expansion budget ([`EXPANSION_LIMIT`] by default).
    pub expansion_limit: u64,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions { target: None, expansion_limit: EXPANSION_LIMIT }
    }
}

/// Errors after which lowering stops.
pub const MAX_ERRORS: usize = 50;

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
    /// The most `budget` may reach.
    limit: u64,
    aborted: bool,
    names: Interner,
    /// Whole views of tensors, for `t[…]`.
    whole_views: Vec<Option<View>>,
    /// Scratch buffer for vertex type names.
    name_buf: String,
    /// Call sites per function: (caller, callee, span).
    calls: Vec<(Option<FunctionId>, FunctionId, Span)>,
    current_fn: Option<FunctionId>,
    handles_declared: u32,
    /// The target the caller imposes (overrides from outside the file).
    forced_target: Option<Target>,
    /// The tiles of the innermost `tiles a..b { … }` being lowered: the
    /// operations inside carry them.
    op_tiles: Option<crate::ops::TileSet>,
}

/// Lowers parsed items under `opts`; `Err` holds the diagnostics. `split`
/// lists the top-level compute sets whose bodies the parse of `src` left
/// out ([`crate::split`]): they are parsed here.
pub fn lower(
    items: &[Item<'_>],
    src: &str,
    split: &[split::Body],
    opts: &CheckOptions,
) -> Result<(Graph, Spans), Vec<Diagnostic>> {
    let mut l = Lowerer {
        graph: Graph::default(),
        spans: Spans::default(),
        errors: Vec::new(),
        syms: HashMap::new(),
        strs: HashMap::new(),
        env: Vec::new(),
        budget: 0,
        limit: opts.expansion_limit,
        aborted: false,
        names: Interner::default(),
        whole_views: Vec::new(),
        name_buf: String::new(),
        calls: Vec::new(),
        current_fn: None,
        handles_declared: 0,
        forced_target: opts.target.clone(),
        op_tiles: None,
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
                match it {
                    Item::ComputeSet { name, span, .. } => {
                        match split.iter().find(|b| b.item_start == span.start as usize) {
                            Some(body) => l.define_split(name, src, body),
                            None => l.define(it),
                        }
                    }
                    _ => l.define(it),
                }
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
        l.graph.number_copies();
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

    /// Counts one produced entity (an item, vertex or statement): free when
    /// the text writes it out, [`ENTITY_COST`] when a loop makes it.
    fn tick(&mut self, span: Span) -> R<()> {
        let units = if self.env.is_empty() { 0 } else { ENTITY_COST };
        self.charge(span, units)
    }

    /// Counts `units` of expansion work; errors past the limit.
    fn charge(&mut self, span: Span, units: u64) -> R<()> {
        if self.aborted {
            return Err(Reported);
        }
        self.budget = self.budget.saturating_add(units);
        if self.budget > self.limit {
            let r = self.error(expansion_limit_exceeded(span, self.limit));
            self.aborted = true;
            return Err(r);
        }
        Ok(())
    }

    fn intern(&mut self, s: &str) -> Name {
        self.names.intern(s)
    }
}

/// The error past the expansion budget, with what is charged and how to
/// raise the limit.
fn expansion_limit_exceeded(span: Span, limit: u64) -> Diagnostic {
    Diagnostic::error(span, format!("expansion limit exceeded: more than {limit} units"))
        .with_note(format!(
            "charged beyond what the text writes out: 1 per `for` iteration; {ENTITY_COST} per item, vertex or statement a loop makes, per run of a `map` after its first, and per element of a view that repeats elements, each use"
        ))
        .with_note(
            "help: if the expansion is intended, raise the limit: `poplar-compile --expansion-limit N`, or POPLAR_EXPANSION_LIMIT=N for `poplar-run`",
        )
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
        | S::Fill { span, .. }
        | S::OnTiles { span, .. } => *span,
        S::Named(n) => n.span,
        S::Execute(_, sp)
        | S::OpCall(_, sp)
        | S::Undef(_, sp)
        | S::Sync(sp)
        | S::Call(_, sp)
        | S::Block(_, sp) => *sp,
        S::For(f) => f.span,
    }
}

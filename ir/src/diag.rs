//! Source spans, the span side table, and diagnostics rendered to text.
//!
//! Spans are byte ranges into the one source file a [`crate::Module`] came
//! from. They live in [`Spans`], beside the graph, keyed by entity id. Errors
//! of every stage that points into a `.pir` file (this crate's checks and the
//! compiler's) are [`Diagnostic`]s, rendered by [`Diagnostics::render`]
//! through `codespan-reporting`: the first line is `path:line:col: error:
//! message`, then the source line with a caret, then notes.

use std::fmt;

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor::NoColor, Chars, Config, DisplayStyle};

use crate::entity::SecondaryMap;
use crate::graph::{
    CodeletId, ComputeSetId, FunctionId, HostHandleId, ProgramId, RemoteBufferId, StreamId, TensorId,
    VertexId,
};

/// A byte range `start..end` in the source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// The span `start..end` (clamped to `u32`).
    pub fn new(start: usize, end: usize) -> Span {
        let c = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        Span { start: c(start), end: c(end.max(start)) }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
    /// As a `Range<usize>`.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Where each entity of a [`crate::Graph`] was written. Entities made by a
/// `for` loop point at the text inside the loop.
#[derive(Clone, Debug, Default)]
pub struct Spans {
    /// The `target` item, if any.
    pub target: Option<Span>,
    pub codelets: SecondaryMap<CodeletId, Span>,
    pub tensors: SecondaryMap<TensorId, Span>,
    /// One per [`crate::Graph::mappings`] entry.
    pub mappings: Vec<Span>,
    pub host_handles: SecondaryMap<HostHandleId, Span>,
    pub streams: SecondaryMap<StreamId, Span>,
    pub remote_buffers: SecondaryMap<RemoteBufferId, Span>,
    pub vertices: SecondaryMap<VertexId, Span>,
    pub compute_sets: SecondaryMap<ComputeSetId, Span>,
    pub functions: SecondaryMap<FunctionId, Span>,
    pub programs: SecondaryMap<ProgramId, Span>,
    /// Statement spans of each program, in pre-order (see [`crate::Stmt`]).
    pub program_stmts: SecondaryMap<ProgramId, Vec<Span>>,
    /// Statement spans of each function, in pre-order.
    pub function_stmts: SecondaryMap<FunctionId, Vec<Span>>,
    /// The `for` iteration that made each vertex (by vertex index).
    pub vertex_iterations: Iterations,
    /// The `for` iteration that made each [`crate::Graph::mappings`] entry.
    pub mapping_iterations: Iterations,
    /// Field spans of all vertices, flat; `field_start[v]` is vertex `v`'s first.
    field_spans: Vec<Span>,
    field_start: SecondaryMap<VertexId, u32>,
}

impl Spans {
    /// The span of field `i` of vertex `v` (`name = value`).
    pub fn field(&self, v: VertexId, i: usize) -> Span {
        let s = *self.field_start.get(v) as usize + i;
        self.field_spans.get(s).copied().unwrap_or_else(|| *self.vertices.get(v))
    }
    /// Makes room for `vertices` more vertices with `fields` fields in all.
    pub fn reserve_vertices(&mut self, vertices: usize, fields: usize) {
        self.vertices.reserve_exact(vertices);
        self.field_start.reserve_exact(vertices);
        self.field_spans.reserve_exact(fields);
    }
    /// Records the field spans of vertex `v` (called once per vertex, in order).
    pub fn set_fields(&mut self, v: VertexId, spans: impl IntoIterator<Item = Span>) {
        self.field_start.set(v, u32::try_from(self.field_spans.len()).unwrap_or(u32::MAX));
        self.field_spans.extend(spans);
    }
    /// The span of statement `i` (pre-order) of a program.
    pub fn program_stmt(&self, p: ProgramId, i: usize) -> Span {
        self.program_stmts.get(p).get(i).copied().unwrap_or(*self.programs.get(p))
    }
    /// The span of statement `i` (pre-order) of a function.
    pub fn function_stmt(&self, f: FunctionId, i: usize) -> Span {
        self.function_stmts.get(f).get(i).copied().unwrap_or(*self.functions.get(f))
    }
}

/// Which `for` iteration made each entity of one kind: the loop variables'
/// values, as runs of consecutive entities made in the same iteration (one
/// record per iteration, not per entity, and nothing outside loops), so an
/// error about one entity can name the iteration that produced it.
#[derive(Clone, Debug, Default)]
pub struct Iterations {
    /// Loop variable names, each once.
    names: Vec<String>,
    /// `(name index, value)` of every recorded iteration, flat.
    values: Vec<(u32, i64)>,
    /// `(first entity, end entity, values start, values end)`, ascending.
    runs: Vec<(u32, u32, u32, u32)>,
}

impl Iterations {
    /// Records that entity `index` was made with loop variables `env`
    /// (outermost first); entities must be recorded in ascending order.
    pub fn record(&mut self, index: usize, env: &[(String, i64)]) {
        if env.is_empty() {
            return;
        }
        let index = u32::try_from(index).unwrap_or(u32::MAX);
        if let Some(last) = self.runs.last_mut() {
            let same = last.1 == index
                && self.values[last.2 as usize..last.3 as usize]
                    .iter()
                    .zip(env)
                    .all(|(&(n, v), (name, w))| v == *w && self.names[n as usize] == *name)
                && (last.3 - last.2) as usize == env.len();
            if same {
                last.1 = index + 1;
                return;
            }
        }
        let start = self.values.len() as u32;
        for (name, v) in env {
            let n = match self.names.iter().rposition(|x| x == name) {
                Some(n) => n,
                None => {
                    self.names.push(name.clone());
                    self.names.len() - 1
                }
            };
            self.values.push((n as u32, *v));
        }
        self.runs.push((index, index + 1, start, self.values.len() as u32));
    }

    /// The iteration that made entity `index`, as `i = 3, j = 0`; `None`
    /// outside loops.
    pub fn get(&self, index: usize) -> Option<String> {
        let index = u32::try_from(index).ok()?;
        let k = self.runs.partition_point(|r| r.1 <= index);
        let &(first, _, a, b) = self.runs.get(k)?;
        if first > index {
            return None;
        }
        let vals = &self.values[a as usize..b as usize];
        Some(
            vals.iter()
                .map(|&(n, v)| format!("{} = {v}", self.names[n as usize]))
                .collect::<Vec<_>>()
                .join(", "),
        )
    }
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// Where a `for` loop made a diagnostic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Repeats {
    /// The first iteration that produced it (`i = 3, j = 0`).
    pub iteration: Option<String>,
    /// How many more times the same message was reported at the same
    /// position (other iterations), merged into this one.
    pub more: u64,
}

/// One message about the source, with an optional primary span, secondary
/// labels and notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// The primary position, with a label (may be empty).
    pub primary: Option<(Span, String)>,
    /// Other positions worth showing.
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
    /// Where a `for` loop made it: the iteration and how many more
    /// reported the same (boxed: most diagnostics come from no loop).
    pub repeats: Option<Box<Repeats>>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            primary: Some((span, String::new())),
            secondary: Vec::new(),
            notes: Vec::new(),
            repeats: None,
        }
    }
    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(span, message) }
    }
    /// An error about the whole file (no position; reported at 1:1).
    pub fn error_no_span(message: impl Into<String>) -> Diagnostic {
        Diagnostic { primary: None, ..Diagnostic::error(Span::default(), message) }
    }
    /// Adds a label to the primary span.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        if let Some(p) = &mut self.primary {
            p.1 = label.into();
        }
        self
    }
    /// Adds a secondary span with a label.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }
    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        let note = note.into();
        if !note.is_empty() {
            self.notes.push(note);
        }
        self
    }

    /// Records the `for` iteration that produced it (`None` outside loops).
    pub fn in_iteration(mut self, iteration: Option<String>) -> Diagnostic {
        if iteration.is_some() {
            self.repeats.get_or_insert_default().iteration = iteration;
        }
        self
    }

    /// Counts one more report of the same (and `more` it had merged).
    pub fn count_repeat(&mut self, more: u64) {
        let r = self.repeats.get_or_insert_default();
        r.more = r.more.saturating_add(1).saturating_add(more);
    }

    /// The notes to print: its own, then where a loop made it.
    fn all_notes(&self) -> Vec<String> {
        let mut notes = self.notes.clone();
        let Some(r) = &self.repeats else { return notes };
        let more = match r.more {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        match &r.iteration {
            Some(it) => notes.push(format!("in iteration {it}{more}")),
            None if r.more > 0 => notes.push(format!("reported {} times", r.more + 1)),
            None => {}
        }
        notes
    }

    /// Renders this one diagnostic against `file_name` / `source`.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        let file = SimpleFile::new(file_name, source);
        let clamp = |s: Span| {
            let len = source.len();
            let mut a = (s.start as usize).min(len);
            let mut b = (s.end as usize).min(len).max(a);
            while !source.is_char_boundary(a) {
                a -= 1;
            }
            while !source.is_char_boundary(b) {
                b += 1;
            }
            a..b
        };
        let sev = match self.severity {
            Severity::Error => cs::Severity::Error,
            Severity::Warning => cs::Severity::Warning,
            Severity::Note => cs::Severity::Note,
        };
        let mut labels = Vec::new();
        if let Some((s, l)) = &self.primary {
            labels.push(cs::Label::primary((), clamp(*s)).with_message(l));
        }
        for (s, l) in &self.secondary {
            labels.push(cs::Label::secondary((), clamp(*s)).with_message(l));
        }
        let d = cs::Diagnostic::new(sev)
            .with_message(&self.message)
            .with_labels(labels)
            .with_notes(self.all_notes());
        let mut out = String::new();
        // First line: `path:line:col: error: message`.
        let (line, col) = match &self.primary {
            Some((s, _)) => line_col(source, clamp(*s).start),
            None => (1, 1),
        };
        let sev_word = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        out.push_str(&format!("{file_name}:{line}:{col}: {sev_word}: {}\n", self.message));
        if self.primary.is_none() {
            for n in &self.all_notes() {
                out.push_str(&format!("  = {n}\n"));
            }
            return out;
        }
        let config = Config { display_style: DisplayStyle::Rich, chars: Chars::ascii(), ..Config::default() };
        let mut buf = NoColor::new(Vec::new());
        if term::emit(&mut buf, &config, &file, &d).is_ok() {
            let text = String::from_utf8_lossy(&buf.into_inner()).into_owned();
            // Drop codespan's own header line (`error: message`) and its
            // location line (`--> file:line:col`): the first line says both.
            let mut lines = text.split_inclusive('\n').skip(1).peekable();
            if lines.peek().is_some_and(|l| l.trim_start().starts_with("-->")) {
                lines.next();
            }
            out.extend(lines);
        }
        out
    }
}

/// Merges diagnostics that repeat one message at one position (a `for`
/// loop's iterations): the first is kept, in its place, counting the others
/// in [`Diagnostic::repeats`].
pub fn merge_repeats(items: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::with_capacity(items.len());
    let mut seen: std::collections::HashMap<(Option<Span>, Severity, String), usize> =
        std::collections::HashMap::new();
    for d in items {
        let key = (d.primary.as_ref().map(|p| p.0), d.severity, d.message.clone());
        match seen.get(&key) {
            Some(&i) => out[i].count_repeat(d.repeats.map_or(0, |r| r.more)),
            None => {
                seen.insert(key, out.len());
                out.push(d);
            }
        }
    }
    out
}

/// 1-based line and column (in characters) of byte `pos`.
pub fn line_col(source: &str, pos: usize) -> (usize, usize) {
    let pos = pos.min(source.len());
    let before = &source.as_bytes()[..pos];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    (line, col)
}

/// The diagnostics of one stage for one source file. This is the error
/// type of [`crate::parse_and_check`]; the compiler can build its own with
/// [`Diagnostics::new`] and spans from [`Spans`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics {
    pub file_name: String,
    pub source: String,
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// An empty list for a file.
    pub fn new(file_name: &str, source: &str) -> Diagnostics {
        Diagnostics { file_name: file_name.to_string(), source: source.to_string(), items: Vec::new() }
    }
    /// Adds one.
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }
    /// Whether any item is an error.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }
    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.items.iter().filter(|d| d.severity == Severity::Error).count()
    }
    /// Every diagnostic rendered, in order, then a summary line when there are errors.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for d in &self.items {
            out.push_str(&d.render(&self.file_name, &self.source));
        }
        let n = self.error_count();
        if n > 0 {
            let s = if n == 1 { "" } else { "s" };
            out.push_str(&format!("{}: {n} error{s}\n", self.file_name));
        }
        out
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostics {}

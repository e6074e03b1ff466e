//! Source files, spans and diagnostics.
//!
//! Every stage of the front end reports errors as [`Diagnostic`]s carrying a
//! [`Span`] into the [`SourceMap`]; [`Diagnostics::render`] turns them into
//! compiler-style text (`file:line:col: error: message`, the source line and a
//! caret) through `codespan-reporting`'s file database (line and column lookup). Nothing here prints.

use codespan_reporting::files::{Files, SimpleFiles};

/// A byte range in one source file of the [`SourceMap`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub file: u32,
    pub lo: u32,
    pub hi: u32,
}

/// The files read during one compilation (main file, includes, built-in headers).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub files: Vec<(String, String)>,
    /// Per file, the byte offset of each line's start: [`SourceMap::line`]
    /// is a binary search, not a scan (lowering asks it per statement).
    line_starts: Vec<Vec<u32>>,
}

impl SourceMap {
    pub fn add(&mut self, name: &str, text: &str) -> u32 {
        self.files.push((name.to_string(), text.to_string()));
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1)).collect();
        self.line_starts.push(starts);
        (self.files.len() - 1) as u32
    }

    pub fn text(&self, span: Span) -> &str {
        let t = &self.files[span.file as usize].1;
        t.get(span.lo as usize..span.hi as usize).unwrap_or("")
    }

    /// 1-based line of a span's start.
    pub fn line(&self, span: Span) -> u32 {
        let Some((_, t)) = self.files.get(span.file as usize) else { return 0 };
        let end = (span.lo as usize).min(t.len()) as u32;
        match self.line_starts.get(span.file as usize) {
            // The lines starting at or before `end`.
            Some(starts) => starts.partition_point(|&s| s <= end) as u32,
            None => t.as_bytes()[..end as usize].iter().filter(|&&b| b == b'\n').count() as u32 + 1,
        }
    }
}

/// One error with its position and optional notes.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub span: Span,
    pub message: String,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { span, message: message.into(), notes: Vec::new() }
    }

    /// Whether this error is one of the resource limits (depth, steps,
    /// instances, inlined size): such errors stand wherever they arise,
    /// never swallowed by a caller trying another reading of the code.
    pub fn is_limit(&self) -> bool {
        ["depth", "steps", "instances", "inlined code"].iter().any(|w| self.message.contains(w))
    }

    /// Adds a "did you mean" help naming the candidate closest to `name`
    /// (the last part of each qualified candidate counts), if one is close.
    /// Not inside a [`trial`], whose errors are dropped.
    pub fn with_suggestion<'a>(
        mut self,
        name: &str,
        candidates: impl IntoIterator<Item = &'a str>,
    ) -> Diagnostic {
        if TRIALS.with(|t| t.get()) > 0 {
            return self;
        }
        let names = candidates.into_iter().map(|c| c.rsplit("::").next().unwrap_or(c));
        if let Some(s) = spelling::did_you_mean_any_order(name, names) {
            self.notes.push(format!("help: did you mean '{s}'?"));
        }
        self
    }
}

/// The errors of a failed compilation, with the sources they point into.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    pub sources: SourceMap,
    pub errors: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Compiler-style text: `file:line:col: error: message`, the source line
    /// and a caret under the position, then notes.
    pub fn render(&self) -> String {
        let mut files = SimpleFiles::new();
        for (name, text) in &self.sources.files {
            files.add(name.clone(), text.clone());
        }
        let mut out = String::new();
        for d in &self.errors {
            let id = d.span.file as usize;
            let Ok(loc) = files.location(id, d.span.lo as usize) else {
                out.push_str(&format!("<unknown>: error: {}\n", d.message));
                continue;
            };
            let name = files.name(id).map(|n| n.to_string()).unwrap_or_default();
            out.push_str(&format!(
                "{name}:{}:{}: error: {}\n",
                loc.line_number, loc.column_number, d.message
            ));
            if let (Ok(range), Ok(src)) = (files.line_range(id, loc.line_number - 1), files.source(id)) {
                let line = src[range].trim_end_matches(['\n', '\r']);
                out.push_str(line);
                out.push('\n');
                let pad: String = line
                    .chars()
                    .take(loc.column_number - 1)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                out.push_str(&pad);
                out.push_str("^\n");
            }
            for n in &d.notes {
                let prefix = if n.starts_with("help: ") { "" } else { "note: " };
                out.push_str(&format!("{prefix}{n}\n"));
            }
        }
        // A count when there are several (one error needs no summary).
        if self.errors.len() > 1 {
            let name = self.sources.files.get(1).or(self.sources.files.first()).map_or("", |f| f.0.as_str());
            out.push_str(&format!("{name}: {} errors\n", self.errors.len()));
        }
        out
    }
}

pub type Result<T> = std::result::Result<T, Diagnostic>;

/// Builds an error diagnostic.
pub fn err<T>(span: Span, message: impl Into<String>) -> Result<T> {
    Err(Diagnostic::new(span, message))
}

/// The deepest the passes after parsing (name resolution, constant
/// evaluation, lowering) may recurse, counting each expression and
/// statement level across nested calls: the parser bounds one tree's
/// height (`front::parse::MAX_NESTING`), but inlining and
/// constant evaluation stack trees on top of each other. Documented in
/// ARCHITECTURE.md (popc, limits).
pub const MAX_PASS_DEPTH: u32 = 512;

thread_local! {
    static PASS_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// One level of a recursive pass, held until the level returns.
pub struct Deeper(());

impl Drop for Deeper {
    fn drop(&mut self) {
        PASS_DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// Enters one level of a recursive pass at `span`; fails past [`MAX_PASS_DEPTH`].
pub fn deeper(span: Span) -> Result<Deeper> {
    PASS_DEPTH.with(|d| {
        if d.get() >= MAX_PASS_DEPTH {
            return err(
                span,
                format!(
                    "nesting depth exceeds {MAX_PASS_DEPTH} levels (expressions and statements, through inlined calls and constant evaluation)"
                ),
            );
        }
        d.set(d.get() + 1);
        Ok(Deeper(()))
    })
}

thread_local! {
    static TRIALS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// A lookup tried on the side (does this prefix name a class?), held until
/// it returns: the caller drops its errors other than the limits, so they
/// need no "did you mean", which compares the name with every declared one
/// (every qualified name's prefix is tried as a class first).
pub struct Trial(());

impl Drop for Trial {
    fn drop(&mut self) {
        TRIALS.with(|t| t.set(t.get() - 1));
    }
}

/// Enters a [`Trial`].
pub fn trial() -> Trial {
    TRIALS.with(|t| t.set(t.get() + 1));
    Trial(())
}

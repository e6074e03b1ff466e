//! The compiler's error type: the failing stage and its diagnostics, which
//! point into the PIR source through `ir`'s span table and render through
//! `ir`'s codespan-based renderer (`file:line:col: error: …`, the source
//! line, notes). Nothing here prints.

use std::fmt;

/// The pass an error comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Expanding library operations (`ops`).
    Ops,
    Codelets,
    Resolve,
    Mapping,
    Exchange,
    Memory,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Ops => "expand_ops",
            Stage::Codelets => "codelets",
            Stage::Resolve => "resolve_vertices",
            Stage::Mapping => "map_tiles",
            Stage::Exchange => "schedule_exchange",
            Stage::Memory => "layout_memory",
        })
    }
}

/// Errors of one stage (at least one diagnostic).
#[derive(Clone, Debug)]
pub struct StageError {
    pub stage: Stage,
    pub diagnostics: Vec<ir::Diagnostic>,
}

/// At most this many errors are reported per stage; a note says how many more.
pub const MAX_ERRORS: usize = 20;

impl StageError {
    pub fn new(stage: Stage, diagnostics: Vec<ir::Diagnostic>) -> StageError {
        StageError { stage, diagnostics }
    }

    /// Renders every diagnostic against the PIR source, then a summary line.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        let mut d = ir::Diagnostics::new(file_name, source);
        let extra = self.diagnostics.len().saturating_sub(MAX_ERRORS);
        for x in self.diagnostics.iter().take(MAX_ERRORS) {
            d.push(x.clone());
        }
        let mut out = d.render();
        if extra > 0 {
            out.push_str(&format!("{file_name}: {extra} more errors not shown\n"));
        }
        out
    }
}

/// Collects diagnostics of one stage.
#[derive(Default)]
pub(crate) struct Collector {
    pub items: Vec<ir::Diagnostic>,
}

impl Collector {
    pub fn push(&mut self, d: ir::Diagnostic) {
        self.items.push(d);
    }

    /// `Err` when any item is an error; one message repeated at one
    /// position (a `for` loop's iterations) becomes one diagnostic.
    pub fn finish(self, stage: Stage) -> Result<(), StageError> {
        if self.items.iter().any(|d| d.severity == ir::Severity::Error) {
            Err(StageError::new(stage, ir::diag::merge_repeats(self.items)))
        } else {
            Ok(())
        }
    }
}

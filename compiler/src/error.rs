//! The compiler's error types: [`StageError`], the failing pass and its
//! diagnostics, which point into the PIR source through `ir`'s span table
//! and render through `ir`'s codespan-based renderer (`file:line:col:
//! error: …`, the source line, notes); and [`CompileError`], everything a
//! compilation can fail with, which the command line renders with its
//! program's name. Nothing here prints.

use std::fmt;

/// Why a compilation failed. Errors located in a file (diagnostics, a
/// link failure) display as their rendered text, one or more lines each
/// ending in a newline; the others display as a bare message, which
/// [`CompileError::render`] prefixes with the program's name.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The PIR file cannot be read.
    #[error("cannot read {path}: {source}")]
    Read { path: String, source: std::io::Error },
    /// Diagnostics of the PIR front end (`ir`) or of the codelet files,
    /// rendered against their sources.
    #[error("{0}")]
    Diagnostics(String),
    /// A pass's errors, rendered against the PIR source.
    #[error("{rendered}")]
    Stage { error: StageError, rendered: String },
    /// `--target` names no preset.
    #[error("unknown target preset `{0}` (expected mk1, mk2, bow or cpu)")]
    UnknownPreset(String),
    /// `POPLAR_TARGET_OPTIONS` is not a valid set of target keys.
    #[error("POPLAR_TARGET_OPTIONS: {0}")]
    TargetOptions(String),
    /// The target, after `--target` and `POPLAR_TARGET_OPTIONS`, is not
    /// one the toolchain can build for.
    #[error("{0}")]
    Target(String),
    /// The C++ generated for library operations does not compile (a bug
    /// of the compiler); `rendered` is `popc`'s diagnostics.
    #[error("{file}: error: internal error: the operation library does not compile:\n{rendered}")]
    OpsLibrary { file: String, rendered: String },
    /// The linked image breaks a rule of the runtime.
    #[error("{file}: error: {error}\n")]
    Link { file: String, error: linker::link::LinkError },
    /// The graph overflows tile memory and no image was made (for a
    /// caller that needs one, `poplar-run`).
    #[error("{0}: the graph does not fit in tile memory")]
    DoesNotFit(String),
}

/// A warning of a compilation that succeeded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Warning {
    /// Diagnostics against the PIR source, rendered.
    #[error("{0}")]
    Diagnostics(String),
}

impl Warning {
    /// The warning as a command line writes it: diagnostics as rendered.
    pub fn render(&self) -> String {
        let Warning::Diagnostics(text) = self;
        text.clone()
    }
}

impl CompileError {
    /// A pass's error, rendered against the PIR source.
    pub fn stage(error: StageError, file_name: &str, source: &str) -> CompileError {
        let rendered = error.render(file_name, source);
        CompileError::Stage { error, rendered }
    }

    /// Whether the error displays as located text that already says
    /// `error:` (diagnostics), rather than as a bare message.
    pub fn is_located(&self) -> bool {
        matches!(
            self,
            CompileError::Diagnostics(_)
                | CompileError::Stage { .. }
                | CompileError::OpsLibrary { .. }
                | CompileError::Link { .. }
        )
    }

    /// The error as a command line writes it: located errors as rendered,
    /// the others as `{program}: error: {message}` and a newline.
    pub fn render(&self, program: &str) -> String {
        if self.is_located() {
            self.to_string()
        } else {
            format!("{program}: error: {self}\n")
        }
    }
}

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

//! The graph IR of the toolchain: PIR in, a checked [`Graph`] out.
//!
//! PIR (`docs/pir.md`) describes one Poplar-style graph program: the target
//! machine, tensors and their tile mapping, codelet files, compute sets of
//! vertices connected to tensor regions by edges, host I/O, and control
//! programs. This crate owns the data model ([`Graph`] and its entities in
//! typed arenas), the front end (a `logos` lexer, a `lalrpop` grammar building
//! a span-carrying syntax tree, and a hand-written lowering that expands
//! `for`, resolves names, evaluates index expressions, computes [`View`]s and
//! checks what can be checked without codelets), the canonical printer
//! ([`print`]) and a stable dump ([`dump`]).
//!
//! `ir` knows nothing about tiles' memory, codelet metadata or files: the
//! caller passes the source text in and gets a [`Module`] or [`Diagnostics`]
//! back.

#![forbid(unsafe_code)]

pub mod builder;
pub mod entity;
pub mod graph;
pub mod ops;
pub mod target;
pub mod types;
pub mod view;

pub use entity::{EntityRef, PrimaryMap, SecondaryMap};
pub use graph::*;
pub use ops::{BinaryOp, MapExpr, MapKind, Modifier, Op, OpKind, RandomDist, ReduceOp, TileSet, UnaryOp};
pub use target::{Preset, Target};
pub use types::ElemType;
pub use view::{Piece, Run, Subscript, View};

pub mod ast;
pub mod diag;
pub mod lexer;
lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused)]
    grammar
);
pub mod lower;
pub mod split;

pub use diag::{Diagnostic, Diagnostics, Severity, Span, Spans};
pub use lower::CheckOptions;

/// A checked PIR file: the graph, where its parts were written, and warnings.
#[derive(Clone, Debug)]
pub struct Module {
    pub graph: Graph,
    pub spans: Spans,
    /// Non-fatal diagnostics (render with [`Diagnostics`]).
    pub warnings: Vec<Diagnostic>,
}

/// Parses and checks PIR source text. `file_name` is only used in messages.
///
/// Lexical and syntax errors stop at the first; semantic errors are
/// collected (up to [`lower::MAX_ERRORS`]). Never panics.
pub fn parse_and_check(file_name: &str, source: &str) -> Result<Module, Diagnostics> {
    parse_and_check_for(file_name, source, None)
}

/// Like [`parse_and_check`], with the target the caller imposes (the file's
/// `target` item with overrides from outside the file applied) in place of
/// the file's, so that expressions reading `target.num_tiles` size the
/// graph for it. The file's `target` item is still checked.
pub fn parse_and_check_for(
    file_name: &str,
    source: &str,
    target: Option<&Target>,
) -> Result<Module, Diagnostics> {
    parse_and_check_with(file_name, source, &CheckOptions { target: target.cloned(), ..Default::default() })
}

/// Like [`parse_and_check`], under the caller's [`CheckOptions`] (an
/// imposed target, the expansion budget).
pub fn parse_and_check_with(
    file_name: &str,
    source: &str,
    opts: &CheckOptions,
) -> Result<Module, Diagnostics> {
    // Diagnostics hold a copy of the source: made only on failure.
    let failed = |items: Vec<Diagnostic>| {
        let mut diags = Diagnostics::new(file_name, source);
        diags.items = items;
        diags
    };
    // Top-level compute sets' bodies are parsed apart, in parallel; if
    // anything fails that way, the file is parsed again whole, for the
    // diagnostics of the whole parse.
    let mut tokens = split::Deferring::new(source);
    let parsed = grammar::FileParser::new().parse(&mut tokens);
    if tokens.left_out {
        if let Ok(items) = parsed {
            if let Ok((graph, spans)) = lower::lower(&items, source, &tokens.bodies, opts) {
                return Ok(Module { graph, spans, warnings: Vec::new() });
            }
        }
        return parse_whole(source, opts).map_err(failed);
    }
    let items = parsed.map_err(|e| failed(vec![parse_error(e)]))?;
    let (graph, spans) = lower::lower(&items, source, &[], opts).map_err(failed)?;
    Ok(Module { graph, spans, warnings: Vec::new() })
}

/// Parses and lowers `source` with no part of it parsed apart.
pub(crate) fn parse_whole(source: &str, opts: &CheckOptions) -> Result<Module, Vec<Diagnostic>> {
    let items = grammar::FileParser::new().parse(lexer::tokens(source)).map_err(|e| vec![parse_error(e)])?;
    let (graph, spans) = lower::lower(&items, source, &[], opts)?;
    Ok(Module { graph, spans, warnings: Vec::new() })
}

/// Like [`parse_and_check`] for raw bytes: invalid UTF-8 is an error at its
/// position.
pub fn parse_bytes(file_name: &str, bytes: &[u8]) -> Result<Module, Diagnostics> {
    parse_bytes_with(file_name, bytes, &CheckOptions::default())
}

/// [`parse_bytes`] with an imposed target, as [`parse_and_check_for`].
pub fn parse_bytes_for(
    file_name: &str,
    bytes: &[u8],
    target: Option<&Target>,
) -> Result<Module, Diagnostics> {
    parse_bytes_with(file_name, bytes, &CheckOptions { target: target.cloned(), ..Default::default() })
}

/// [`parse_bytes`] under the caller's [`CheckOptions`], as
/// [`parse_and_check_with`].
pub fn parse_bytes_with(file_name: &str, bytes: &[u8], opts: &CheckOptions) -> Result<Module, Diagnostics> {
    match std::str::from_utf8(bytes) {
        Ok(s) => parse_and_check_with(file_name, s, opts),
        Err(e) => {
            let good = e.valid_up_to();
            // Render against the valid prefix plus the rest of that line, lossily.
            let src = String::from_utf8_lossy(bytes).into_owned();
            let lossy_pos = String::from_utf8_lossy(&bytes[..good]).len();
            let mut d = Diagnostics::new(file_name, &src);
            d.push(Diagnostic::error(
                Span::new(lossy_pos, lossy_pos + 1),
                format!("invalid UTF-8 at byte offset {good}"),
            ));
            Err(d)
        }
    }
}

fn parse_error(e: lalrpop_util::ParseError<usize, lexer::Tok<'_>, lexer::LexError>) -> Diagnostic {
    use lalrpop_util::ParseError as P;
    let expected = |exp: &[String]| -> String {
        let mut v: Vec<String> = exp.iter().map(|s| pretty_expected(s)).collect();
        v.sort();
        v.dedup();
        if v.len() > 8 {
            let n = v.len();
            v.truncate(8);
            format!("expected one of {}, … ({n} possibilities)", v.join(", "))
        } else {
            format!("expected {}", v.join(" or "))
        }
    };
    match e {
        P::InvalidToken { location } => Diagnostic::error(Span::new(location, location + 1), "invalid token"),
        P::UnrecognizedEof { location, expected: exp } => Diagnostic::error(
            Span::new(location, location),
            format!("unexpected end of file; {}", expected(&exp)),
        ),
        P::UnrecognizedToken { token: (l, t, r), expected: exp } => {
            Diagnostic::error(Span::new(l, r), format!("unexpected {t}; {}", expected(&exp)))
        }
        P::ExtraToken { token: (l, t, r) } => Diagnostic::error(Span::new(l, r), format!("unexpected {t}")),
        P::User { error } => Diagnostic::error(Span::new(error.start, error.end), error.message),
    }
}

fn pretty_expected(s: &str) -> String {
    match s {
        "IDENT" => "an identifier".into(),
        "INT" => "an integer".into(),
        "FLOAT" => "a number".into(),
        "STR" => "a string".into(),
        "SCALAR" => "an element type".into(),
        other => format!("`{}`", other.trim_matches('"')),
    }
}
pub mod dump;
pub mod print;

pub use dump::dump;
pub use print::print;

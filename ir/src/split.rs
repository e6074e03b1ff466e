//! Top-level compute set bodies parsed apart from the rest of the file, in
//! chunks, in parallel.
//!
//! A generated graph writes its vertices out one per line, millions of them
//! in one compute set: parsed with the file, their syntax tree would be the
//! largest thing the front end holds, and built on one core. Instead the
//! token stream of the top-level parse ([`Deferring`]) hands the parser
//! every top-level `compute_set NAME { … }` with an empty body, and
//! records where the body's items begin ([`Body`]): every
//! [`CHUNK_ITEMS`]th `vertex` or `for` directly inside it. The lowering
//! parses those chunks a batch at a time over rayon's threads
//! ([`parse_batch`]) and lowers each batch in order while the next is
//! parsed, so the graph is the same as a whole parse makes, built in the
//! same order, and only two batches' trees exist at once.
//!
//! A chunk parses on its own exactly when the whole body does: in a body
//! that parses, every `vertex` or `for` directly inside it begins an item
//! (neither can appear inside an item at that depth), and items written one
//! after another parse as one list. Diagnostics are another matter (a
//! syntax error in a chunk would be reported at the chunk's end rather than
//! where the whole parse finds it), so any failure of a split parse makes
//! the caller parse the file again whole, for the diagnostics it always
//! gave.

use rayon::prelude::*;

mod quick;

use crate::ast::CsItem;
use crate::lexer::{LexError, Tok, Tokens};

/// Items per chunk of a deferred body.
pub const CHUNK_ITEMS: usize = 4096;

/// Chunks parsed in one batch.
pub const BATCH_CHUNKS: usize = 16;

/// A token as the parser takes it.
pub type Spanned<'a> = Result<(usize, Tok<'a>, usize), LexError>;

/// A top-level compute set whose body the top-level parse did not see.
#[derive(Clone, Debug, Default)]
pub struct Body {
    /// Where its `compute_set` keyword is (the item's span's start).
    pub item_start: usize,
    /// The body's text, `{` and `}` excluded, cut before items: chunk `i`
    /// is `starts[i]..starts[i + 1]`, the last one ends at `end`; the first
    /// begins right after the `{`.
    pub starts: Vec<usize>,
    /// Where the body's `}` is.
    pub end: usize,
    /// Vertices written directly in the body (not in a `for`).
    pub vertices: usize,
    /// Their fields (a reservation hint: `=` signs in their braces).
    pub fields: usize,
}

impl Body {
    /// The byte ranges of its chunks, in order.
    pub fn chunks(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.starts.iter().enumerate().map(|(i, &s)| (s, self.starts.get(i + 1).copied().unwrap_or(self.end)))
    }
}

/// Where the top-level parse stands in front of a compute set.
#[derive(Clone, Copy)]
enum State {
    Normal,
    /// After `compute_set` (at its offset), then after its name.
    Keyword(usize),
    Name(usize),
}

/// The top-level token stream: the file's tokens, less the items of
/// top-level compute set bodies, which it records in [`Deferring::bodies`].
pub struct Deferring<'a> {
    src: &'a str,
    inner: Tokens<'a>,
    /// Brace depth of the tokens passed through.
    depth: u32,
    state: State,
    /// The bodies left out, in file order.
    pub bodies: Vec<Body>,
    /// Whether a body was (or began to be) left out: when not, the parser
    /// saw every token of the file.
    pub left_out: bool,
}

impl<'a> Deferring<'a> {
    pub fn new(src: &'a str) -> Self {
        Deferring {
            src,
            inner: crate::lexer::tokens(src),
            depth: 0,
            state: State::Normal,
            bodies: Vec::new(),
            left_out: false,
        }
    }
}

impl<'a> Iterator for Deferring<'a> {
    type Item = Spanned<'a>;

    fn next(&mut self) -> Option<Spanned<'a>> {
        let tok = self.inner.next()?;
        let Ok((l, t, r)) = &tok else { return Some(tok) };
        self.state = match (self.state, t) {
            (State::Normal, Tok::ComputeSet) if self.depth == 0 => State::Keyword(*l),
            (State::Keyword(s), Tok::Ident(_)) => State::Name(s),
            (State::Name(s), Tok::LBrace) => {
                // The body's items are skipped: its `}` comes next (or,
                // for a body without one, the end of the input).
                self.left_out = true;
                let body = scan_body(self.src, s, *r);
                self.inner.skip_to(body.as_ref().map_or(self.src.len(), |b| b.end));
                self.bodies.extend(body);
                State::Normal
            }
            _ => State::Normal,
        };
        match t {
            Tok::LBrace => self.depth += 1,
            Tok::RBrace => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        Some(tok)
    }
}

/// Finds the end of the body opened by the `{` ending at `open_end` and
/// where its items begin, by bytes: only braces, strings and comments
/// matter for the end (so it is where the lexer finds it), and a `vertex`
/// or `for` word directly inside starts an item. `None` when the body
/// does not end.
fn scan_body(src: &str, item_start: usize, open_end: usize) -> Option<Body> {
    let b = src.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    // The first chunk begins at the `{`'s end, so that every byte of the
    // body is lexed by one chunk.
    let mut body = Body { item_start, starts: vec![open_end], ..Body::default() };
    let (mut depth, mut in_vertex, mut items) = (1u32, false, 0usize);
    let mut i = open_end;
    while i < b.len() {
        // Inside an item's braces only braces, strings, comments and `=`
        // matter: skip the rest a byte at a time without the match below.
        if depth != 1 && !matches!(b[i], b'{' | b'}' | b'"' | b'/' | b'=') {
            i += 1;
            continue;
        }
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    body.end = i;
                    return Some(body);
                }
            }
            b'"' => {
                i += 1;
                while *b.get(i)? != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i += b[i..].iter().position(|&c| c == b'\n')?;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2 + src[i + 2..].find("*/")? + 1;
            }
            b'=' if depth == 2 && in_vertex => body.fields += 1,
            c if word(c) => {
                let len = b[i..].iter().position(|&c| !word(c)).unwrap_or(b.len() - i);
                let w = &b[i..i + len];
                // A word after a `.` is part of a `target.` property.
                if depth == 1 && (w == b"vertex" || w == b"for") && b[i - 1] != b'.' {
                    if items > 0 && items % CHUNK_ITEMS == 0 {
                        body.starts.push(i);
                    }
                    items += 1;
                    in_vertex = w == b"vertex";
                    body.vertices += usize::from(in_vertex);
                }
                i += len;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Parses chunks of a body over rayon's threads; `None` if any fails.
pub fn parse_batch<'a>(src: &'a str, chunks: &[(usize, usize)]) -> Option<Vec<Vec<CsItem<'a>>>> {
    chunks
        .par_iter()
        .map(|&(s, e)| {
            // The common forms by hand; the rest (and every error) by the
            // grammar, inside the body's braces as the whole file's lexer
            // would be.
            quick::parse_items(src, s, e).or_else(|| {
                crate::grammar::CsBodyParser::new().parse(crate::lexer::tokens_within(src, s, e, 1)).ok()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    /// A graph with `n` vertices written out in one compute set, and
    /// `extra` pasted into its body after the first vertex.
    fn graph(n: usize, extra: &str) -> String {
        let mut s = String::from("var x: float[64]\nmap x -> tile 0\ncompute_set cs {\n");
        for i in 0..n {
            let _ =
                writeln!(s, "  vertex V @ tile {} {{ a = x[{}:{}], k = 2.0 }}", i % 4, i % 60, i % 60 + 4);
            if i == 0 {
                s.push_str(extra);
            }
        }
        s.push_str("  for i in 0..2 { vertex W { a = x[i] } }\n}\nprogram main { execute cs }\n");
        s
    }

    fn split_bodies(src: &str) -> Vec<Body> {
        let mut toks = Deferring::new(src);
        crate::grammar::FileParser::new().parse(&mut toks).unwrap();
        toks.bodies
    }

    #[test]
    fn a_split_parse_makes_the_whole_parses_graph() {
        let src = graph(2 * CHUNK_ITEMS + 5, "  // } a comment with a brace\n  /* { */\n");
        let bodies = split_bodies(&src);
        assert_eq!(bodies.len(), 1);
        assert_eq!(bodies[0].starts.len(), 3, "chunks");
        assert_eq!(bodies[0].vertices, 2 * CHUNK_ITEMS + 5);
        assert_eq!(bodies[0].fields, 2 * (2 * CHUNK_ITEMS + 5));
        let split = crate::parse_and_check("g.pir", &src).unwrap();
        let whole = crate::parse_whole(&src, &Default::default()).unwrap();
        assert_eq!(split.graph, whole.graph);
        assert_eq!(format!("{:?}", split.spans), format!("{:?}", whole.spans));
    }

    /// Two batches, the second parsed while the first is lowered: the same
    /// graph on any number of threads.
    #[test]
    fn the_graph_is_the_same_on_any_number_of_threads() {
        let src = graph(BATCH_CHUNKS * CHUNK_ITEMS + 5, "");
        let graphs: Vec<_> = [1, 2, 3]
            .into_iter()
            .map(|n| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
                pool.install(|| crate::parse_and_check("g.pir", &src).unwrap())
            })
            .collect();
        assert_eq!(graphs[0].graph.vertices.len(), BATCH_CHUNKS * CHUNK_ITEMS + 7);
        for g in &graphs[1..] {
            assert!(g.graph == graphs[0].graph);
            assert_eq!(format!("{:?}", g.spans), format!("{:?}", graphs[0].spans));
        }
    }

    /// Every byte of a body is parsed: text before the first item too.
    #[test]
    fn errors_are_the_whole_parses() {
        for extra in ["  junk\n", "  vertex V { a = x[0] }}\n", "  vertex V @ { }\n", "  \"open\n"] {
            let src = graph(CHUNK_ITEMS + 1, extra);
            let split = crate::parse_and_check("g.pir", &src).unwrap_err().render();
            let mut whole = crate::Diagnostics::new("g.pir", &src);
            whole.items = crate::parse_whole(&src, &Default::default()).unwrap_err();
            assert_eq!(split, whole.render(), "{extra}");
        }
        let src = "compute_set cs {\n  junk\n  vertex V { }\n}\n";
        let e = crate::parse_and_check("g.pir", src).unwrap_err().render();
        assert!(e.contains("g.pir:2:3: error: unexpected"), "{e}");
    }
}

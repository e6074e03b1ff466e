//! The PIR lexer (`logos`), feeding the `lalrpop` parser.
//!
//! Keywords are reserved except where the grammar takes any word (vertex
//! field names, target keys). `x` in `remote_buffer … x 4`, `grain`, preset
//! names and view function names are ordinary identifiers checked by the
//! parser or the lowering.

use logos::Logos;

/// A lexical error with its byte range.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct LexError {
    pub start: usize,
    pub end: usize,
    pub message: String,
}

fn int_dec<'a>(lex: &mut logos::Lexer<'a, Tok<'a>>) -> Option<u64> {
    lex.slice().parse().ok()
}

fn int_hex<'a>(lex: &mut logos::Lexer<'a, Tok<'a>>) -> Option<u64> {
    u64::from_str_radix(&lex.slice()[2..], 16).ok()
}

fn float<'a>(lex: &mut logos::Lexer<'a, Tok<'a>>) -> Option<f64> {
    lex.slice().parse().ok()
}

fn string<'a>(lex: &mut logos::Lexer<'a, Tok<'a>>) -> Option<String> {
    let s = lex.slice();
    let inner = &s[1..s.len() - 1];
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next()? {
                '"' => out.push('"'),
                '\\' => out.push('\\'),
                'n' => out.push('\n'),
                't' => out.push('\t'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// A PIR token.
#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"//[^\n]*")]
pub enum Tok<'a> {
    /// A block comment, skipped whole; an unterminated one is an error at its `/*`.
    #[token("/*", block_comment)]
    BlockComment,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice(), priority = 1)]
    Ident(&'a str),
    /// `target.num_tiles`: a property of the target, read by integer
    /// expressions (the part after the dot).
    #[regex(r"target\.[A-Za-z_][A-Za-z0-9_]*", |lex| &lex.slice()["target.".len()..])]
    TargetProp(&'a str),
    #[regex(r"[0-9]+", int_dec)]
    #[regex(r"0[xX][0-9a-fA-F]+", int_hex)]
    Int(u64),
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?", float)]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+", float)]
    #[token("inf", |_| f64::INFINITY)]
    #[token("nan", |_| f64::NAN)]
    Float(f64),
    #[regex(r#""([^"\\]|\\.)*""#, string)]
    Str(String),

    #[token("target")]
    Target,
    #[token("codelets")]
    Codelets,
    #[token("var")]
    Var,
    #[token("const")]
    Const,
    #[token("map")]
    Map,
    #[token("host_write")]
    HostWrite,
    #[token("host_read")]
    HostRead,
    #[token("stream")]
    Stream,
    #[token("from")]
    From,
    #[token("to")]
    To,
    #[token("host")]
    Host,
    #[token("remote_buffer")]
    RemoteBuffer,
    #[token("compute_set")]
    ComputeSet,
    #[token("function")]
    Function,
    #[token("program")]
    Program,
    #[token("for")]
    For,
    #[token("in")]
    In,
    #[token("vertex")]
    Vertex,
    #[token("tile")]
    Tile,
    #[token("tiles")]
    Tiles,
    #[token("linear")]
    Linear,
    #[token("cycles")]
    Cycles,
    #[token("copy")]
    Copy,
    #[token("execute")]
    Execute,
    #[token("print")]
    Print,
    #[token("repeat")]
    Repeat,
    #[token("while")]
    While,
    #[token("if")]
    If,
    #[token("else")]
    Else,
    #[token("switch")]
    Switch,
    #[token("case")]
    Case,
    #[token("default")]
    Default,
    #[token("undef")]
    Undef,
    #[token("sync")]
    Sync,
    #[token("call")]
    Call,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[regex("bool|char|uchar|short|ushort|int|uint|long|ulong|half|float", |lex| lex.slice())]
    Scalar(&'a str),

    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token("::")]
    ColonColon,
    #[token("..")]
    DotDot,
    #[token("->")]
    Arrow,
    #[token("=")]
    Eq,
    #[token("@")]
    At,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("!")]
    Bang,
    #[token("==")]
    EqEq,
    /// `cast<`: the start of `cast<T>(x)` (written without spaces, so that
    /// `cast` stays an ordinary name).
    #[token("cast<")]
    CastOpen,
}

impl std::fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "identifier `{s}`"),
            Tok::TargetProp(s) => write!(f, "target property `target.{s}`"),
            Tok::Int(i) => write!(f, "integer `{i}`"),
            Tok::Float(x) => write!(f, "number `{x}`"),
            Tok::Str(s) => write!(f, "string {s:?}"),
            Tok::Scalar(s) => write!(f, "`{s}`"),
            other => {
                let s = format!("{other:?}");
                write!(f, "`{}`", token_text(&s))
            }
        }
    }
}

/// The source text of a fixed token from its variant name.
fn token_text(variant: &str) -> &str {
    match variant {
        "LParen" => "(",
        "RParen" => ")",
        "LBracket" => "[",
        "RBracket" => "]",
        "LBrace" => "{",
        "RBrace" => "}",
        "Lt" => "<",
        "Gt" => ">",
        "Comma" => ",",
        "Colon" => ":",
        "ColonColon" => "::",
        "DotDot" => "..",
        "Arrow" => "->",
        "Eq" => "=",
        "At" => "@",
        "Plus" => "+",
        "Minus" => "-",
        "Star" => "*",
        "Slash" => "/",
        "Percent" => "%",
        "Bang" => "!",
        "EqEq" => "==",
        "CastOpen" => "cast<",
        "HostWrite" => "host_write",
        "HostRead" => "host_read",
        "RemoteBuffer" => "remote_buffer",
        "ComputeSet" => "compute_set",
        "Target" => "target",
        "Codelets" => "codelets",
        "Var" => "var",
        "Const" => "const",
        "Map" => "map",
        "Stream" => "stream",
        "From" => "from",
        "To" => "to",
        "Host" => "host",
        "Function" => "function",
        "Program" => "program",
        "For" => "for",
        "In" => "in",
        "Vertex" => "vertex",
        "Tile" => "tile",
        "Tiles" => "tiles",
        "Linear" => "linear",
        "Cycles" => "cycles",
        "Copy" => "copy",
        "Execute" => "execute",
        "Print" => "print",
        "Repeat" => "repeat",
        "While" => "while",
        "If" => "if",
        "Else" => "else",
        "Switch" => "switch",
        "Case" => "case",
        "Default" => "default",
        "Undef" => "undef",
        "Sync" => "sync",
        "Call" => "call",
        "True" => "true",
        "False" => "false",
        other => other,
    }
}

/// Most brackets (`(`, `[`, `{`) open at once.
pub const MAX_NESTING: usize = 256;

/// Most operators (`+ - * / %`, and closed brackets, which each add a level
/// to the tree) chained without a separator, summed over the open brackets:
/// a bound on the depth of any expression tree.
pub const MAX_CHAIN: usize = 1000;

/// Bounds the depth of the syntax tree before it is built, so that no input
/// can overflow the stack of the passes that recurse over it (the parser
/// itself keeps its stack on the heap). One count of chained operators per
/// open bracket; a separator (`,` `:` `..` `->` `=`, a keyword) ends a chain.
#[derive(Default)]
struct DepthGuard {
    /// Chained operators at each enclosing bracket level, innermost last.
    saved: Vec<usize>,
    /// Their sum.
    outer: usize,
    /// Chained operators at the current level.
    current: usize,
}

impl DepthGuard {
    /// Called for every token; cheap on the common path (names, numbers).
    #[inline]
    fn check(&mut self, t: &Tok<'_>) -> Result<(), TooDeep> {
        match t {
            Tok::Ident(_) | Tok::Int(_) | Tok::Float(_) | Tok::Str(_) | Tok::True | Tok::False => {
                return Ok(())
            }
            Tok::LParen | Tok::LBracket | Tok::LBrace => {
                if self.saved.len() >= MAX_NESTING {
                    return Err(TooDeep::Brackets);
                }
                self.saved.push(self.current);
                self.outer += self.current;
                self.current = 0;
                return Ok(());
            }
            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                if let Some(c) = self.saved.pop() {
                    self.outer -= c;
                    self.current = c;
                }
                self.current += 1;
            }
            Tok::Plus | Tok::Minus | Tok::Star | Tok::Slash | Tok::Percent => self.current += 1,
            _ => {
                self.current = 0;
                return Ok(());
            }
        }
        if self.outer + self.current > MAX_CHAIN {
            return Err(TooDeep::Chain);
        }
        Ok(())
    }
}

/// Which limit of [`DepthGuard`] an input crossed.
#[derive(Clone, Copy, Debug)]
enum TooDeep {
    Brackets,
    Chain,
}

impl TooDeep {
    #[cold]
    fn error(self, start: usize, end: usize) -> LexError {
        let message = match self {
            TooDeep::Brackets => format!("brackets nested too deeply (more than {MAX_NESTING})"),
            TooDeep::Chain => {
                format!("expression nested too deeply (more than {MAX_CHAIN} chained operators)")
            }
        };
        LexError { start, end, message }
    }
}

/// Tokens with byte positions, as the parser wants them. Input nested past
/// [`MAX_NESTING`] or [`MAX_CHAIN`] is an error at the token that crosses it.
pub fn tokens(src: &str) -> Tokens<'_> {
    Tokens { lex: Tok::lexer(src), guard: DepthGuard::default(), offset: 0 }
}

/// The tokens of `src[start..end]` at their positions in `src`, counted as
/// nested in `levels` brackets opened before `start` (the depth limits are
/// the whole file's).
pub fn tokens_within(src: &str, start: usize, end: usize, levels: usize) -> Tokens<'_> {
    let guard = DepthGuard { saved: vec![0; levels], ..DepthGuard::default() };
    Tokens { lex: Tok::lexer(&src[start..end]), guard, offset: start }
}

/// The iterator of [`tokens`].
pub struct Tokens<'a> {
    lex: logos::Lexer<'a, Tok<'a>>,
    guard: DepthGuard,
    /// Where the lexed text begins in the file.
    offset: usize,
}

impl Tokens<'_> {
    /// Goes on lexing at byte `pos` of the text (at or past the last token,
    /// on a character boundary), as if what lies between were not there.
    pub fn skip_to(&mut self, pos: usize) {
        let end = self.lex.span().end;
        self.lex.bump(pos - self.offset - end);
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Result<(usize, Tok<'a>, usize), LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        let t = self.lex.next()?;
        let r = self.lex.span();
        let (start, end) = (r.start + self.offset, r.end + self.offset);
        Some(match t {
            Ok(t) => match self.guard.check(&t) {
                Ok(()) => Ok((start, t, end)),
                Err(e) => Err(e.error(start, end)),
            },
            Err(()) => {
                let text = self.lex.slice();
                let message = if text.starts_with('"') {
                    "unterminated string or bad escape (only \\\" \\\\ \\n \\t)".to_string()
                } else if text.starts_with("/*") {
                    "unterminated block comment".to_string()
                } else if text.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                    format!("malformed or too large number `{text}`")
                } else {
                    format!("unexpected character `{}`", text.chars().next().unwrap_or(' '))
                };
                // Point at the opening `"` or `/*`, not the rest of the file.
                let end = if text.starts_with('"') || text.starts_with("/*") { start + 1 } else { end };
                Err(LexError { start, end, message })
            }
        })
    }
}

/// Skips a block comment whose `/*` was just matched. (A regex for comments
/// mis-compiles in logos 0.15: `/* a */` was reported unterminated.)
fn block_comment<'s, T: Logos<'s, Source = str>>(
    lex: &mut logos::Lexer<'s, T>,
) -> logos::FilterResult<(), ()> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            logos::FilterResult::Skip
        }
        None => logos::FilterResult::Error(()),
    }
}

/// Whether `name` lexes as something other than one identifier (a
/// keyword, a type name): such a name cannot name an item.
pub fn is_keyword(name: &str) -> bool {
    let mut toks = tokens(name);
    !matches!((toks.next(), toks.next()), (Some(Ok((_, Tok::Ident(_), _))), None))
}

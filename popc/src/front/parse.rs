//! A hand-written recursive-descent parser for the codelet C++ subset.
//!
//! C++ cannot be parsed without knowing which names are types and which are
//! templates (`a < b` vs `X<b>`), so the parser keeps two sets as it goes:
//! names declared as types (classes, enums, aliases, template type
//! parameters) and names of templates. Constructs outside the subset are
//! rejected here when they are purely syntactic (`virtual`, `try`, `goto`,
//! `asm`, `new`, …), with a message naming them.

use std::rc::Rc;

use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::front::lex::{Tok, Token};
use crate::hash::HashSet;
use crate::sema::types::Scalar;

mod class;
mod decl;
mod expr;
mod item;
mod literal;
mod stmt;
mod template;
mod types;

pub use class::ANON_FIELD;
use literal::parse_number;
pub use literal::unescape;

/// The specifiers of a declaration that are not its type.
#[derive(Default)]
struct Specs {
    is_constexpr: bool,
    is_static: bool,
    is_const: bool,
    is_virtual: bool,
}

pub struct Parser {
    toks: Vec<Token>,
    pos: usize,
    types: HashSet<String>,
    templates: HashSet<String>,
    eof: Token,
    /// Nesting level of the construct being parsed (see [`MAX_NESTING`]).
    depth: u32,
    /// Parsing functions active (see [`MAX_RECURSION`]).
    calls: u32,
    /// The deepest level the construct being parsed has reached so far.
    peak: u32,
    /// The deepest level reached by the last construct parsed completely.
    last_peak: u32,
    /// Set by `typedef struct … { … } Name;` for the class it defines,
    /// whose `}` the alias's name follows rather than `;`.
    typedef_class: bool,
}

/// The deepest any syntax tree may nest: expressions (each operator of a
/// chain such as `a + b + c` or `p[i][j]` is one level, as it is one level
/// of the tree), initialiser lists, pointer and reference declarators, array
/// dimensions, template arguments, statements, classes and namespaces. A
/// construct's level is the number of constructs it sits in, plus the
/// levels already used by the tree it extends, so the height of every tree
/// the parser returns is at most this. Later passes recurse over these
/// trees, so this bound is also what keeps their stacks small. Documented
/// in ARCHITECTURE.md (popc, limits).
pub const MAX_NESTING: u32 = 256;

/// The deepest the parser itself may recurse: a level of the tree takes a
/// few parsing functions (`(x)` takes four and makes no node).
const MAX_RECURSION: u32 = 4 * MAX_NESTING;

const BUILTIN_TYPES: &[&str] = &[
    "Input",
    "Output",
    "InOut",
    "Vector",
    "VectorList",
    "Vertex",
    "MultiVertex",
    "SupervisorVertex",
    "SupervisorVertexIf",
    "half",
    "IeeeHalf",
    "quarter",
    "size_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "numeric_limits",
    "is_same",
    "conditional",
    "is_integral",
    "is_floating_point",
    "enable_if",
    "array",
    "half2",
    "half4",
    "float2",
    "float4",
    "int2",
    "int4",
    "ptrdiff_t",
    "uintptr_t",
    "intptr_t",
    "is_unsigned",
    "is_signed",
    "remove_const",
    "make_unsigned",
    "pair",
    "tuple",
    "tuple_element",
    "tuple_size",
];
const BUILTIN_TEMPLATES: &[&str] = &[
    "SupervisorVertexIf",
    "Input",
    "Output",
    "InOut",
    "Vector",
    "VectorList",
    "numeric_limits",
    "is_same",
    "conditional",
    "is_integral",
    "is_floating_point",
    "enable_if",
    "min",
    "max",
    "abs",
    "array",
    "is_same_v",
    "is_integral_v",
    "is_floating_point_v",
    "conditional_t",
    "enable_if_t",
    "is_unsigned",
    "is_signed",
    "remove_const",
    "make_unsigned",
    "swap",
    "pair",
    "tuple",
    "tuple_element",
    "tuple_size",
    "get",
    "make_pair",
    "make_tuple",
];

const REJECTED_KEYWORDS: &[(&str, &str)] = &[
    ("virtual", "'virtual' outside a class: only member functions of helper classes can be virtual"),
    ("try", "exceptions are not supported in codelets"),
    ("throw", "exceptions are not supported in codelets"),
    ("catch", "exceptions are not supported in codelets"),
    ("goto", "'goto' is not supported in codelets"),
    ("asm", "inline assembly is not supported in codelets"),
    ("__asm__", "inline assembly is not supported in codelets"),
    ("__asm", "inline assembly is not supported in codelets"),
    ("new", "dynamic allocation ('new') is not supported in codelets"),
    ("delete", "dynamic allocation ('delete') is not supported in codelets"),
    ("typeid", "RTTI ('typeid') is not supported in codelets"),
    ("dynamic_cast", "RTTI ('dynamic_cast') is not supported in codelets"),
    ("co_await", "coroutines are not supported in codelets"),
    ("co_return", "coroutines are not supported in codelets"),
    ("thread_local", "'thread_local' is not supported in codelets"),
];

fn scalar_keyword(s: &str) -> bool {
    matches!(
        s,
        "int"
            | "unsigned"
            | "signed"
            | "short"
            | "long"
            | "char"
            | "bool"
            | "float"
            | "double"
            | "void"
            | "auto"
    )
}

impl Parser {
    pub fn new(toks: Vec<Token>) -> Parser {
        let end = toks.last().map(|t| Span { lo: t.span.hi, ..t.span }).unwrap_or_default();
        Parser {
            toks,
            pos: 0,
            types: BUILTIN_TYPES.iter().map(|s| s.to_string()).collect(),
            templates: BUILTIN_TEMPLATES.iter().map(|s| s.to_string()).collect(),
            eof: Token {
                kind: Tok::Eof,
                text: Rc::from(""),
                span: end,
                bol: true,
                space_before: false,
                noexpand: false,
            },
            typedef_class: false,
            depth: 0,
            calls: 0,
            peak: 0,
            last_peak: 0,
        }
    }

    fn peek(&self) -> &Token {
        self.toks.get(self.pos).unwrap_or(&self.eof)
    }
    fn peek_at(&self, n: usize) -> &Token {
        self.toks.get(self.pos + n).unwrap_or(&self.eof)
    }
    fn at(&self, k: Tok) -> bool {
        self.peek().kind == k
    }
    fn at_kw(&self, s: &str) -> bool {
        self.peek().is_ident(s)
    }
    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn eat(&mut self, k: Tok) -> bool {
        if self.at(k) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat_kw(&mut self, s: &str) -> bool {
        if self.at_kw(s) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn span(&self) -> Span {
        self.peek().span
    }
    fn prev_span(&self) -> Span {
        if self.pos == 0 {
            return self.span();
        }
        self.toks[self.pos - 1].span
    }
    fn join(a: Span, b: Span) -> Span {
        if a.file == b.file && b.hi >= a.lo {
            Span { file: a.file, lo: a.lo, hi: b.hi }
        } else {
            a
        }
    }
    fn expect(&mut self, k: Tok, what: &str) -> Result<Token> {
        if self.at(k) {
            return Ok(self.bump());
        }
        let t = self.peek();
        let found = if t.kind == Tok::Eof { "end of file".to_string() } else { format!("'{}'", t.text) };
        err(t.span, format!("expected {what}, found {found}"))
    }
    fn ident(&mut self) -> Result<(String, Span)> {
        let t = self.peek().clone();
        if t.kind == Tok::Ident {
            self.check_keyword(&t)?;
            self.pos += 1;
            return Ok((t.text.to_string(), t.span));
        }
        let found = if t.kind == Tok::Eof { "end of file".to_string() } else { format!("'{}'", t.text) };
        err(t.span, format!("expected an identifier, found {found}"))
    }
    fn check_keyword(&self, t: &Token) -> Result<()> {
        if t.kind == Tok::Ident {
            if let Some((_, msg)) = REJECTED_KEYWORDS.iter().find(|(k, _)| **k == *t.text) {
                return err(t.span, *msg);
            }
        }
        Ok(())
    }
    /// One level deeper, for a node whose children are parsed next; fails
    /// at [`MAX_NESTING`].
    fn enter(&mut self) -> Result<()> {
        if self.depth >= MAX_NESTING {
            return err(
                self.span(),
                format!("construct nested too deeply (the limit is {MAX_NESTING} levels)"),
            );
        }
        self.depth += 1;
        self.peak = self.peak.max(self.depth);
        Ok(())
    }

    /// Parses one construct with `f`. Leaves `last_peak` at the deepest
    /// level the construct reached and restores the level, also when `f`
    /// fails (callers backtrack). Every cycle of parsing functions passes
    /// through here, so this also bounds the parser's own recursion.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.calls >= MAX_RECURSION {
            return err(
                self.span(),
                format!("construct nested too deeply (the limit is {MAX_NESTING} levels)"),
            );
        }
        let (depth, peak) = (self.depth, self.peak);
        self.calls += 1;
        self.peak = depth;
        let r = f(self);
        self.calls -= 1;
        self.last_peak = self.peak;
        self.depth = depth;
        self.peak = peak.max(self.last_peak);
        r
    }

    /// [`nested`](Self::nested) for a construct that is one node (a
    /// statement, a class, a type, a braced list) one level deeper.
    fn node<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.nested(|p| {
            p.enter()?;
            f(p)
        })
    }

    /// One more link of a left-deep chain (`a + b + c`, `f(x)[i].m`): the
    /// new node sits on top of everything the current construct has built.
    fn link(&mut self) -> Result<()> {
        self.depth = self.depth.max(self.peak);
        self.enter()
    }

    /// `>` closing a template argument list, splitting nothing (the lexer
    /// never makes `>>`).
    fn close_angle(&mut self) -> Result<()> {
        if self.at(Tok::Ge) || self.at(Tok::ShrEq) {
            return err(self.span(), "'>=' after a template argument list is not supported; add a space");
        }
        self.expect(Tok::Gt, "'>'")?;
        Ok(())
    }
}

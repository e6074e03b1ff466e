//! A hand-written recursive-descent parser for the codelet C++ subset.
//!
//! C++ cannot be parsed without knowing which names are types and which are
//! templates (`a < b` vs `X<b>`), so the parser keeps two sets as it goes:
//! names declared as types (classes, enums, aliases, template type
//! parameters) and names of templates. Constructs outside the subset are
//! rejected here when they are purely syntactic (`virtual`, `try`, `goto`,
//! `asm`, `new`, …), with a message naming them.

use std::collections::HashSet;
use std::rc::Rc;

use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::front::lex::{Tok, Token};
use crate::sema::types::Scalar;

mod expr;
mod literal;
mod stmt;
mod types;

use literal::parse_number;
pub use literal::unescape;

/// The specifiers of a declaration that are not its type.
#[derive(Default)]
struct Specs {
    is_constexpr: bool,
    is_static: bool,
    is_const: bool,
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
    ("virtual", "virtual functions are not supported in codelets"),
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
    ("union", "unions are not supported in codelets"),
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

    // ---------------------------------------------------------------- items

    pub fn parse_unit(&mut self) -> Result<Vec<Item>> {
        let mut items = Vec::new();
        while !self.at(Tok::Eof) {
            if self.eat(Tok::Semi) {
                continue;
            }
            items.push(self.item()?);
        }
        Ok(items)
    }

    fn skip_attributes(&mut self) -> Result<()> {
        while self.at(Tok::LBracket) && self.peek_at(1).is(Tok::LBracket) {
            let mut level = 0;
            loop {
                let t = self.bump();
                match t.kind {
                    Tok::LBracket => level += 1,
                    Tok::RBracket => {
                        level -= 1;
                        if level == 0 {
                            break;
                        }
                    }
                    Tok::Eof => return err(t.span, "unterminated attribute"),
                    _ => {}
                }
            }
        }
        while self.at_kw("__attribute__") || self.at_kw("alignas") {
            self.bump();
            self.skip_parens()?;
        }
        Ok(())
    }

    /// The index (from the current token) just past the attributes that
    /// start `i` tokens ahead: `[[...]]`, `alignas(...)`, `__attribute__((...))`.
    fn attributes_end(&self, mut i: usize) -> usize {
        loop {
            let t = self.peek_at(i);
            let (open, close) = if t.is(Tok::LBracket) && self.peek_at(i + 1).is(Tok::LBracket) {
                (Tok::LBracket, Tok::RBracket)
            } else if (t.is_ident("alignas") || t.is_ident("__attribute__"))
                && self.peek_at(i + 1).is(Tok::LParen)
            {
                i += 1;
                (Tok::LParen, Tok::RParen)
            } else {
                return i;
            };
            let mut level = 0;
            loop {
                let k = self.peek_at(i).kind;
                i += 1;
                if k == open {
                    level += 1;
                } else if k == close {
                    level -= 1;
                    if level == 0 {
                        break;
                    }
                } else if k == Tok::Eof {
                    return i;
                }
            }
        }
    }

    /// The class's name if a class definition or declaration starts here:
    /// `class` or `struct`, attributes, the name, then `{`, `:`, `;`, `<`
    /// or `final` (`struct P p;` declares a variable instead).
    fn class_head_name(&self) -> Option<String> {
        if !(self.at_kw("class") || self.at_kw("struct")) {
            return None;
        }
        let i = self.attributes_end(1);
        let name = self.peek_at(i);
        let next = self.peek_at(i + 1);
        let head = name.is(Tok::Ident)
            && (matches!(next.kind, Tok::LBrace | Tok::Colon | Tok::Semi | Tok::Lt)
                || next.is_ident("final"));
        head.then(|| name.text.to_string())
    }

    /// Whether the constructor or destructor declaration ahead has member
    /// initialisers or a non-empty body (looked at without consuming it).
    fn ctor_does_work(&self) -> bool {
        let mut i = 0;
        while !self.peek_at(i).is(Tok::LParen) && !self.peek_at(i).is(Tok::Eof) {
            i += 1;
        }
        let mut level = 0;
        loop {
            let t = self.peek_at(i);
            if t.is(Tok::Eof) {
                return false;
            }
            if t.is(Tok::LParen) {
                level += 1;
            } else if t.is(Tok::RParen) {
                level -= 1;
                if level == 0 {
                    break;
                }
            }
            i += 1;
        }
        i += 1;
        while self.peek_at(i).is_ident("noexcept") || self.peek_at(i).is_ident("constexpr") {
            i += 1;
        }
        let t = self.peek_at(i);
        t.is(Tok::Colon) || (t.is(Tok::LBrace) && !self.peek_at(i + 1).is(Tok::RBrace))
    }

    fn skip_parens(&mut self) -> Result<()> {
        self.expect(Tok::LParen, "'('")?;
        let mut level = 1;
        while level > 0 {
            let t = self.bump();
            match t.kind {
                Tok::LParen => level += 1,
                Tok::RParen => level -= 1,
                Tok::Eof => return err(t.span, "unbalanced parentheses"),
                _ => {}
            }
        }
        Ok(())
    }

    fn item(&mut self) -> Result<Item> {
        self.node(Self::item_inner)
    }

    fn item_inner(&mut self) -> Result<Item> {
        self.skip_attributes()?;
        let t = self.peek().clone();
        self.check_keyword(&t)?;
        // An inline namespace's names are the enclosing namespace's (and
        // popc does not also give them the inline namespace's own name).
        let inline = self.at_kw("inline") && self.peek_at(1).is_ident("namespace");
        if inline {
            self.bump();
        }
        if self.eat_kw("namespace") {
            self.skip_attributes()?;
            // So are an anonymous namespace's.
            let mut names = if self.at(Tok::LBrace) { vec![String::new()] } else { vec![self.ident()?.0] };
            while self.eat(Tok::ColonColon) {
                self.enter()?;
                names.push(self.ident()?.0);
            }
            self.expect(Tok::LBrace, "'{'")?;
            let mut items = Vec::new();
            while !self.eat(Tok::RBrace) {
                if self.at(Tok::Eof) {
                    return err(t.span, "unterminated namespace");
                }
                if self.eat(Tok::Semi) {
                    continue;
                }
                items.push(self.item()?);
            }
            if inline {
                names.pop();
                names.push(String::new());
            }
            let mut item = Item::Namespace(names.pop().unwrap_or_default(), items);
            while let Some(n) = names.pop() {
                item = Item::Namespace(n, vec![item]);
            }
            return Ok(item);
        }
        if self.at_kw("extern") && self.peek_at(1).is(Tok::Str) {
            self.bump();
            self.bump();
            if self.eat(Tok::LBrace) {
                let mut items = Vec::new();
                while !self.eat(Tok::RBrace) {
                    if self.at(Tok::Eof) {
                        return err(t.span, "unterminated extern block");
                    }
                    items.push(self.item()?);
                }
                return Ok(Item::Namespace(String::new(), items));
            }
            return self.item();
        }
        if self.eat_kw("using") {
            if self.eat_kw("namespace") {
                let p = self.path()?;
                self.expect(Tok::Semi, "';'")?;
                return Ok(Item::UsingNamespace(p));
            }
            if self.peek().kind == Tok::Ident && self.peek_at(1).is(Tok::Assign) {
                let (name, span) = self.ident()?;
                self.bump();
                let ty = self.type_name()?;
                self.expect(Tok::Semi, "';'")?;
                self.types.insert(name.clone());
                return Ok(Item::Alias(span, name, None, ty));
            }
            self.eat_kw("typename");
            let p = self.path()?;
            self.expect(Tok::Semi, "';'")?;
            let last = p.last().to_string();
            if self.types.contains(&last) {
                self.types.insert(last.clone());
            }
            return Ok(Item::UsingDecl(p));
        }
        if self.eat_kw("typedef") {
            let ty = self.type_name()?;
            let (name, span) = self.ident()?;
            self.expect(Tok::Semi, "';'")?;
            self.types.insert(name.clone());
            return Ok(Item::Alias(span, name, None, ty));
        }
        if self.at_kw("static_assert") {
            let (span, e, m) = self.static_assert()?;
            return Ok(Item::StaticAssert(span, e, m));
        }
        if self.at_kw("template") {
            return self.template_item();
        }
        if self.at_kw("enum") {
            let e = self.enum_decl()?;
            self.expect(Tok::Semi, "';'")?;
            return Ok(Item::Enum(e));
        }
        if self.class_head_name().is_some() {
            let c = self.class(None)?;
            return Ok(Item::Class(c));
        }
        // Function or variable.
        self.decl_item(None)
    }

    fn static_assert(&mut self) -> Result<(Span, Expr, Option<String>)> {
        let span = self.bump().span;
        self.expect(Tok::LParen, "'('")?;
        let e = self.assign_expr()?;
        let mut msg = None;
        if self.eat(Tok::Comma) {
            let t = self.expect(Tok::Str, "a string literal")?;
            msg = Some(String::from_utf8_lossy(&unescape(&t.text)).into_owned());
        }
        self.expect(Tok::RParen, "')'")?;
        self.expect(Tok::Semi, "';'")?;
        Ok((span, e, msg))
    }

    fn template_params(&mut self) -> Result<Vec<TParam>> {
        self.expect(Tok::Lt, "'<'")?;
        let mut ps = Vec::new();
        if self.at(Tok::Gt) {
            self.bump();
            return Ok(ps);
        }
        loop {
            let span = self.span();
            if self.at_kw("typename") || self.at_kw("class") {
                self.bump();
                if self.at(Tok::Ellipsis) {
                    return err(self.span(), "variadic templates are not supported in codelets");
                }
                let (name, _) = self.ident()?;
                self.types.insert(name.clone());
                let default = if self.eat(Tok::Assign) { Some(TArg::Type(self.type_name()?)) } else { None };
                ps.push(TParam { name, kind: TParamKind::Type, default });
            } else if self.at_kw("template") {
                return err(span, "template template parameters are not supported in codelets");
            } else {
                let ty = self.type_name()?;
                if self.at(Tok::Ellipsis) {
                    return err(self.span(), "variadic templates are not supported in codelets");
                }
                let (name, _) = self.ident()?;
                let default =
                    if self.eat(Tok::Assign) { Some(TArg::Expr(self.binary(0, true)?)) } else { None };
                ps.push(TParam { name, kind: TParamKind::Value(ty), default });
            }
            if self.eat(Tok::Comma) {
                continue;
            }
            self.close_angle()?;
            return Ok(ps);
        }
    }

    fn template_item(&mut self) -> Result<Item> {
        let span = self.bump().span; // template
        if !self.at(Tok::Lt) {
            // Explicit instantiation.
            self.eat_kw("class");
            self.eat_kw("struct");
            let ty = self.type_name()?;
            if self.at(Tok::LParen) || self.at(Tok::Ident) {
                // Explicit instantiation of a function: accept and ignore.
                while !self.at(Tok::Semi) && !self.at(Tok::Eof) {
                    self.bump();
                }
                self.expect(Tok::Semi, "';'")?;
                return Ok(Item::Namespace(String::new(), Vec::new()));
            }
            self.expect(Tok::Semi, "';'")?;
            return Ok(Item::ExplicitInst(ty));
        }
        let tparams = self.template_params()?;
        if self.at_kw("template") {
            return err(self.span(), "member templates of class templates are not supported in codelets");
        }
        self.skip_attributes()?;
        if self.at_kw("using") {
            self.bump();
            let (name, nspan) = self.ident()?;
            self.expect(Tok::Assign, "'='")?;
            let ty = self.type_name()?;
            self.expect(Tok::Semi, "';'")?;
            self.types.insert(name.clone());
            self.templates.insert(name.clone());
            return Ok(Item::Alias(nspan, name, Some(tparams), ty));
        }
        if let Some(name) = self.class_head_name() {
            self.types.insert(name.clone());
            self.templates.insert(name);
            let c = self.class(Some(tparams))?;
            return Ok(Item::Class(c));
        }
        let _ = span;
        self.decl_item(Some(tparams))
    }

    fn enum_decl(&mut self) -> Result<EnumDecl> {
        let span = self.bump().span;
        let scoped = self.eat_kw("class") || self.eat_kw("struct");
        let name = if self.at(Tok::Ident) { self.ident()?.0 } else { String::new() };
        self.types.insert(name.clone());
        let underlying = if self.eat(Tok::Colon) { Some(self.type_name()?) } else { None };
        let mut variants = Vec::new();
        self.expect(Tok::LBrace, "'{'")?;
        while !self.eat(Tok::RBrace) {
            let (n, s) = self.ident()?;
            let v = if self.eat(Tok::Assign) { Some(self.cond_expr()?) } else { None };
            variants.push((n, s, v));
            if !self.eat(Tok::Comma) {
                self.expect(Tok::RBrace, "'}'")?;
                break;
            }
        }
        Ok(EnumDecl { span, name, scoped, underlying, variants })
    }

    fn class(&mut self, tparams: Option<Vec<TParam>>) -> Result<Class> {
        self.node(|p| p.class_inner(tparams))
    }

    fn class_inner(&mut self, tparams: Option<Vec<TParam>>) -> Result<Class> {
        let kw = self.bump();
        let is_struct = &*kw.text == "struct";
        self.skip_attributes()?;
        let (name, span) = self.ident()?;
        self.types.insert(name.clone());
        let spec_args = if self.at(Tok::Lt) { Some(self.template_args()?) } else { None };
        self.eat_kw("final");
        let mut bases = Vec::new();
        if self.eat(Tok::Colon) {
            loop {
                if self.at_kw("virtual") {
                    return err(self.span(), "virtual inheritance is not supported in codelets");
                }
                self.eat_kw("public");
                self.eat_kw("private");
                self.eat_kw("protected");
                bases.push(self.type_name()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        let mut members = Vec::new();
        if self.eat(Tok::Semi) {
            // Forward declaration.
            return Ok(Class { span, name, tparams, spec_args, bases, members: Vec::new() });
        }
        self.expect(Tok::LBrace, "'{'")?;
        let _ = is_struct;
        while !self.eat(Tok::RBrace) {
            if self.at(Tok::Eof) {
                return err(span, format!("unterminated class '{name}'"));
            }
            if self.eat(Tok::Semi) {
                continue;
            }
            if (self.at_kw("public") || self.at_kw("private") || self.at_kw("protected"))
                && self.peek_at(1).is(Tok::Colon)
            {
                self.bump();
                self.bump();
                continue;
            }
            self.member(&name, &mut members)?;
        }
        self.skip_attributes()?;
        self.expect(Tok::Semi, "';' after class definition")?;
        Ok(Class { span, name, tparams, spec_args, bases, members })
    }

    fn member(&mut self, class: &str, members: &mut Vec<Member>) -> Result<()> {
        self.skip_attributes()?;
        let t = self.peek().clone();
        self.check_keyword(&t)?;
        if self.at_kw("friend") {
            return err(t.span, "'friend' declarations are not supported in codelets");
        }
        if self.at_kw("using") || self.at_kw("typedef") || self.at_kw("enum") || self.at_kw("static_assert") {
            members.push(Member::Item(self.item()?));
            return Ok(());
        }
        if self.class_head_name().is_some() {
            let c = self.class(None)?;
            members.push(Member::Item(Item::Class(c)));
            return Ok(());
        }
        if self.at_kw("template") {
            let it = self.template_item()?;
            members.push(Member::Item(it));
            return Ok(());
        }
        // Constructors and destructors: declared only (as a vertex's are),
        // defaulted, deleted or with an empty body; one that would do
        // something is refused rather than ignored.
        let ctor = (self.at_kw(class) && self.peek_at(1).is(Tok::LParen))
            || (self.at(Tok::Tilde) && self.peek_at(1).is_ident(class))
            || (self.at_kw("explicit"));
        if ctor && self.ctor_does_work() {
            let span = self.span();
            self.eat_kw("explicit");
            if !(self.at_kw(class) && self.peek_at(1).is(Tok::LParen)) {
                return err(
                    span,
                    format!("destructors that do work are not supported in codelets (class '{class}')"),
                );
            }
            self.bump();
            let params = self.params()?;
            while self.eat_kw("noexcept") || self.eat_kw("constexpr") {}
            self.skip_attributes()?;
            let mut inits = Vec::new();
            if self.eat(Tok::Colon) {
                loop {
                    let (name, nspan) = self.ident()?;
                    let args = if self.at(Tok::LBrace) {
                        match self.init_list()?.kind {
                            ExprKind::InitList(l) => l,
                            _ => unreachable!(),
                        }
                    } else {
                        self.expect(Tok::LParen, "'(' or '{' after a member name")?;
                        let mut args = Vec::new();
                        while !self.eat(Tok::RParen) {
                            args.push(self.assign_expr()?);
                            if !self.eat(Tok::Comma) {
                                self.expect(Tok::RParen, "')'")?;
                                break;
                            }
                        }
                        args
                    };
                    inits.push((name, nspan, args));
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            let body = self.block()?;
            members.push(Member::Ctor(Ctor { span, params, inits, body }));
            return Ok(());
        }
        if ctor {
            let span = self.span();
            while !self.at(Tok::LParen) && !self.at(Tok::Eof) {
                self.bump();
            }
            self.skip_parens()?;
            while self.eat_kw("noexcept") || self.eat_kw("constexpr") {}
            self.skip_attributes()?;
            if self.eat(Tok::Assign) && !(self.eat_kw("default") || self.eat_kw("delete")) {
                return err(self.span(), "expected 'default' or 'delete'");
            }
            if self.at(Tok::Colon) || self.at(Tok::LBrace) && !self.peek_at(1).is(Tok::RBrace) {
                return err(
                    span,
                    format!("constructors and destructors that do work are not supported in codelets (class '{class}')"),
                );
            }
            if self.eat(Tok::LBrace) {
                self.expect(Tok::RBrace, "'}'")?;
            } else {
                self.expect(Tok::Semi, "';'")?;
            }
            return Ok(());
        }
        match self.decl_item(None)? {
            Item::Function(f) => members.push(Member::Method(f)),
            Item::Var(v) => members.push(Member::Field(FieldDecl {
                span: v.span,
                ty: v.ty,
                names: vec![(v.name, v.span, v.dims)],
                is_static: v.is_static || v.is_constexpr,
                init: v.init,
            })),
            Item::Namespace(_, vars) => {
                // Several declarators: `Input<Vector<T>> a, b;`
                let mut fd: Option<FieldDecl> = None;
                for it in vars {
                    if let Item::Var(v) = it {
                        match &mut fd {
                            None => {
                                fd = Some(FieldDecl {
                                    span: v.span,
                                    ty: v.ty,
                                    names: vec![(v.name, v.span, v.dims)],
                                    is_static: v.is_static || v.is_constexpr,
                                    init: v.init,
                                })
                            }
                            Some(f) => f.names.push((v.name, v.span, v.dims)),
                        }
                    }
                }
                if let Some(f) = fd {
                    members.push(Member::Field(f));
                }
            }
            other => members.push(Member::Item(other)),
        }
        Ok(())
    }

    /// Declaration specifiers other than the type, which C++ lets come in
    /// any order before or after it (`const static`, `unsigned inline`),
    /// and attributes among them.
    fn specifiers(&mut self, specs: &mut Specs) -> Result<()> {
        loop {
            self.skip_attributes()?;
            if self.eat_kw("constexpr") || self.eat_kw("consteval") || self.eat_kw("constinit") {
                specs.is_constexpr = true;
            } else if self.eat_kw("static") {
                specs.is_static = true;
            } else if self.eat_kw("const") {
                specs.is_const = true;
            } else if !(self.eat_kw("inline")
                || self.eat_kw("__inline__")
                || self.eat_kw("extern")
                || self.eat_kw("mutable")
                || self.eat_kw("register")
                || self.eat_kw("volatile"))
            {
                return Ok(());
            }
        }
    }

    /// A function or variable declaration at namespace or class scope.
    fn decl_item(&mut self, tparams: Option<Vec<TParam>>) -> Result<Item> {
        let mut specs = Specs::default();
        self.specifiers(&mut specs)?;
        let t = self.peek().clone();
        self.check_keyword(&t)?;
        let mut ty = self.type_name()?;
        self.specifiers(&mut specs)?;
        ty.is_const |= specs.is_const;
        let Specs { is_constexpr, is_static, .. } = specs;
        let ty_peak = self.last_peak;
        let depth = self.depth;
        // Declarators, each nested on top of the type.
        let mut decls = Vec::new();
        loop {
            self.depth = depth.max(ty_peak);
            let dty = self.ptr_declarator(ty.clone())?;
            self.skip_attributes()?;
            let (name, span) = if self.at_kw("operator") { self.operator_name()? } else { self.ident()? };
            self.skip_attributes()?;
            if tparams.is_some() {
                self.templates.insert(name.clone());
            }
            if tparams.as_ref().is_some_and(|t| t.is_empty()) && self.at(Tok::Lt) {
                // An explicit specialisation `template <> R f<A>(...)`: an
                // overload with exactly the specialised parameter types.
                self.template_args()?;
            }
            if self.at(Tok::LParen) && decls.is_empty() {
                // Function.
                let params = self.params()?;
                self.eat_kw("const");
                self.eat_kw("noexcept");
                self.eat_kw("override");
                self.eat_kw("final");
                if self.at_kw("override") {
                    self.bump();
                }
                let mut ret = dty;
                if self.eat(Tok::Arrow) {
                    ret = self.type_name()?;
                }
                self.skip_attributes()?;
                let body = if self.eat(Tok::Semi) {
                    None
                } else if self.at(Tok::Assign) {
                    self.bump();
                    let t = self.bump();
                    if &*t.text == "0" {
                        return err(t.span, "pure virtual functions are not supported in codelets");
                    }
                    self.expect(Tok::Semi, "';'")?;
                    None
                } else {
                    Some(self.block()?)
                };
                return Ok(Item::Function(Function {
                    span,
                    name,
                    tparams,
                    ret,
                    params,
                    body,
                    is_constexpr,
                    is_static,
                }));
            }
            let mut dims = Vec::new();
            while self.at(Tok::LBracket) {
                self.enter()?;
                self.bump();
                dims.push(self.expr()?);
                self.expect(Tok::RBracket, "']'")?;
            }
            let init = self.initializer()?;
            self.depth = depth;
            decls.push(VarDecl { span, ty: dty, name, dims, init, is_constexpr, is_static });
            if self.eat(Tok::Comma) {
                ty.span = span;
                continue;
            }
            self.expect(Tok::Semi, "';'")?;
            break;
        }
        if tparams.is_some() {
            return err(decls[0].span, "variable templates are not supported in codelets");
        }
        if decls.len() == 1 {
            return Ok(Item::Var(decls.pop().unwrap()));
        }
        Ok(Item::Namespace(String::new(), decls.into_iter().map(Item::Var).collect()))
    }

    /// `operator@` as a function name: `operator()`, `operator[]`,
    /// `operator+`, `operator==`, `operator>>`, ...
    fn operator_name(&mut self) -> Result<(String, Span)> {
        let span = self.bump().span;
        let t = self.bump();
        let text = match t.kind {
            Tok::LParen => {
                self.expect(Tok::RParen, "')' after 'operator('")?;
                "()".to_string()
            }
            Tok::LBracket => {
                self.expect(Tok::RBracket, "']' after 'operator['")?;
                "[]".to_string()
            }
            Tok::Gt if self.at(Tok::Gt) => {
                self.bump();
                ">>".to_string()
            }
            Tok::Ident | Tok::Eof | Tok::LBrace | Tok::RBrace | Tok::Semi => {
                return err(t.span, format!("conversion operator 'operator {}' is not supported", t.text));
            }
            _ => t.text.to_string(),
        };
        Ok((format!("operator{text}"), span))
    }

    fn initializer(&mut self) -> Result<Option<Expr>> {
        if self.eat(Tok::Assign) {
            if self.at(Tok::LBrace) {
                return Ok(Some(self.init_list()?));
            }
            return Ok(Some(self.assign_expr()?));
        }
        if self.at(Tok::LBrace) {
            return Ok(Some(self.init_list()?));
        }
        if self.at(Tok::LParen) {
            // `T x(a)` is `x` from `a`; `T x(a, b)` the constructor's
            // arguments, kept as a list.
            let span = self.bump().span;
            let mut args = vec![self.assign_expr()?];
            while self.eat(Tok::Comma) {
                args.push(self.assign_expr()?);
            }
            self.expect(Tok::RParen, "')'")?;
            return Ok(Some(match args.len() {
                1 => Expr { span, kind: args.remove(0).kind },
                _ => Expr { span, kind: ExprKind::InitList(args) },
            }));
        }
        Ok(None)
    }

    fn init_list(&mut self) -> Result<Expr> {
        self.node(Self::init_list_inner)
    }

    fn init_list_inner(&mut self) -> Result<Expr> {
        let span = self.expect(Tok::LBrace, "'{'")?.span;
        let mut v = Vec::new();
        while !self.eat(Tok::RBrace) {
            if self.at(Tok::LBrace) {
                v.push(self.init_list()?);
            } else {
                v.push(self.assign_expr()?);
            }
            if !self.eat(Tok::Comma) {
                self.expect(Tok::RBrace, "'}'")?;
                break;
            }
        }
        Ok(Expr { span, kind: ExprKind::InitList(v) })
    }

    fn params(&mut self) -> Result<Vec<Param>> {
        self.expect(Tok::LParen, "'('")?;
        let mut ps = Vec::new();
        if self.at_kw("void") && self.peek_at(1).is(Tok::RParen) {
            self.bump();
        }
        while !self.eat(Tok::RParen) {
            if self.at(Tok::Ellipsis) {
                return err(self.span(), "variadic functions are not supported in codelets");
            }
            let span = self.span();
            let ty = self.type_ptr(true)?;
            let name = if self.at(Tok::Ident) { Some(self.ident()?.0) } else { None };
            self.skip_attributes()?;
            let mut ty = ty;
            if self.eat(Tok::LBracket) {
                // Array parameter: a pointer.
                if !self.at(Tok::RBracket) {
                    self.expr()?;
                }
                self.expect(Tok::RBracket, "']'")?;
                ty = TypeName { span: ty.span, kind: TypeKind::Ptr(Box::new(ty)), is_const: false };
            }
            let default = if self.eat(Tok::Assign) { Some(self.assign_expr()?) } else { None };
            ps.push(Param { span, ty, name, default });
            if !self.eat(Tok::Comma) {
                self.expect(Tok::RParen, "')'")?;
                break;
            }
        }
        Ok(ps)
    }
}

//! A hand-written parser for the chunks of a deferred compute set body.
//!
//! A generated graph is millions of lines like `vertex Scale @ tile 3 {
//! data = x[48:64], k = 2.0 }`, and the grammar's LR parser spends most of
//! the front end's time on them: about fifty reductions a line, each
//! moving a syntax node through its stack. This parser takes the same
//! items (`vertex` and `for`, the fields, vertex types and expressions in
//! them) by recursive descent, building exactly the tree the grammar's
//! `CsBody` builds, spans included (a node's span starts where its first
//! token does, parentheses included, as the grammar's `@L` does).
//!
//! The grammar stays the definition of the language. This parser takes a
//! subset of it and gives up (`None`) at anything outside: a token it does
//! not expect (a keyword as a field name among them), a lexical error, nesting deeper than [`MAX_DEPTH`]. The
//! caller then parses the chunk with the grammar, which accepts it or
//! gives the diagnostic. So a chunk this parser takes is one the grammar
//! takes with the same tree, and any other goes to the grammar: the tests
//! check both halves on generated and mangled bodies.

use std::borrow::Cow;

use crate::ast::{Arg, BinOp, CsItem, Expr, ExprKind, FieldAst, For, Ident, Sub, TArg, VType, VertexAst};
use crate::diag::Span;
use crate::lexer::{tokens_within, Tok, Tokens};

/// Deepest nesting of expressions and `for` items taken here (the
/// recursion's depth); deeper input goes to the grammar, whose stack is
/// on the heap.
const MAX_DEPTH: u32 = 64;

/// The items of `src[start..end]`, a chunk of a compute set's body, or
/// `None` for the grammar to parse.
pub fn parse_items(src: &str, start: usize, end: usize) -> Option<Vec<CsItem<'_>>> {
    let toks = tokens_within(src, start, end, 1);
    let mut p = Parser { toks, look: [None, None], last_end: start, depth: 0, failed: false };
    p.bump();
    p.bump();
    let items = p.items()?;
    (p.look[0].is_none() && !p.failed).then_some(items)
}

/// A token and where it starts and ends.
type Spanned<'a> = (usize, Tok<'a>, usize);

struct Parser<'a> {
    /// The tokens after the lookahead.
    toks: Tokens<'a>,
    /// The next two tokens (`None` past the end or a lexical error).
    look: [Option<Spanned<'a>>; 2],
    /// Where the last token taken ends (the grammar's `@R`).
    last_end: usize,
    depth: u32,
    /// Whether the lexer met an error (the grammar then reports it).
    failed: bool,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&Tok<'a>> {
        self.look[0].as_ref().map(|t| &t.1)
    }

    fn peek2(&self) -> Option<&Tok<'a>> {
        self.look[1].as_ref().map(|t| &t.1)
    }

    /// Where the next token starts (the grammar's `@L`).
    fn start(&self) -> usize {
        self.look[0].as_ref().map_or(self.last_end, |t| t.0)
    }

    /// Takes the next token.
    fn bump(&mut self) -> Option<Spanned<'a>> {
        let next = match self.toks.next() {
            Some(Ok(t)) => Some(t),
            Some(Err(_)) => {
                self.failed = true;
                None
            }
            None => None,
        };
        let [first, second] = std::mem::take(&mut self.look);
        self.look = [second, next];
        let t = first?;
        self.last_end = t.2;
        Some(t)
    }

    /// Whether the next token is `tok`, a token without a value (compared
    /// by kind alone, cheaper than `Tok`'s `PartialEq`).
    fn at(&self, tok: &Tok<'_>) -> bool {
        self.peek().is_some_and(|t| std::mem::discriminant(t) == std::mem::discriminant(tok))
    }

    /// Whether the token after the next is `tok` (as [`Parser::at`]).
    fn at2(&self, tok: &Tok<'_>) -> bool {
        self.peek2().is_some_and(|t| std::mem::discriminant(t) == std::mem::discriminant(tok))
    }

    /// Takes the next token if it is `tok` (a token without a value).
    fn eat(&mut self, tok: &Tok<'_>) -> bool {
        let hit = self.at(tok);
        if hit {
            self.bump();
        }
        hit
    }

    fn expect(&mut self, tok: &Tok<'_>) -> Option<()> {
        self.eat(tok).then_some(())
    }

    /// The span from `l` to the end of the last token taken.
    fn span(&self, l: usize) -> Span {
        Span::new(l, self.last_end)
    }

    /// Runs `f` one level deeper, or gives up past [`MAX_DEPTH`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// `T, T, …` up to (not taking) `close`, a trailing comma allowed: the
    /// grammar's `Comma<T>`, or with `one` its `Comma1<T>`.
    fn comma<T>(
        &mut self,
        close: &Tok<'_>,
        one: bool,
        mut f: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<Vec<T>> {
        let mut v = Vec::new();
        while !self.at(close) {
            v.push(f(self)?);
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        // As the grammar's lists, no room to spare: two batches' trees
        // are held at once.
        v.shrink_to_fit();
        (!one || !v.is_empty()).then_some(v)
    }

    /// `CsItem*`, up to a `}` or the chunk's end.
    fn items(&mut self) -> Option<Vec<CsItem<'a>>> {
        let mut items = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::Vertex) => items.push(CsItem::Vertex(self.vertex()?)),
                Some(Tok::For) => items.push(self.nested(Self::for_item)?),
                Some(Tok::RBrace) | None => return Some(items),
                Some(_) => return None,
            }
        }
    }

    /// `for i in lo..hi { items }`.
    fn for_item(&mut self) -> Option<CsItem<'a>> {
        let l = self.start();
        self.expect(&Tok::For)?;
        let var = self.ident()?;
        self.expect(&Tok::In)?;
        let lo = self.expr()?;
        self.expect(&Tok::DotDot)?;
        let hi = self.expr()?;
        self.expect(&Tok::LBrace)?;
        let body = self.items()?;
        self.expect(&Tok::RBrace)?;
        Some(CsItem::For(Box::new(For { var, lo, hi, body, span: self.span(l) })))
    }

    /// `vertex T @ tile n { fields } cycles c`.
    fn vertex(&mut self) -> Option<Box<VertexAst<'a>>> {
        let l = self.start();
        self.expect(&Tok::Vertex)?;
        let vtype = self.vtype()?;
        let tile = if self.eat(&Tok::At) {
            self.expect(&Tok::Tile)?;
            Some(self.expr()?)
        } else {
            None
        };
        self.expect(&Tok::LBrace)?;
        let fields = self.comma(&Tok::RBrace, false, Self::field)?;
        self.expect(&Tok::RBrace)?;
        let cycles = if self.eat(&Tok::Cycles) { Some(Box::new(self.expr()?)) } else { None };
        Some(Box::new(VertexAst { vtype, tile, fields, cycles, span: self.span(l) }))
    }

    /// `name = value`.
    fn field(&mut self) -> Option<FieldAst<'a>> {
        let l = self.start();
        // A keyword as the name is left to the grammar.
        let Some(Tok::Ident(_) | Tok::Scalar(_)) = self.peek() else { return None };
        let (s, Tok::Ident(name) | Tok::Scalar(name), e) = self.bump()? else { return None };
        let name = Ident { name, span: Span::new(s, e) };
        self.expect(&Tok::Eq)?;
        let value = self.expr()?;
        Some(FieldAst(name, value, self.span(l)))
    }

    fn ident(&mut self) -> Option<Ident<'a>> {
        let Some(Tok::Ident(_)) = self.peek() else { return None };
        let (s, Tok::Ident(name), e) = self.bump()? else { return None };
        Some(Ident { name, span: Span::new(s, e) })
    }

    /// `a::b::c`, with at least `min` segments.
    fn path(&mut self, min: usize) -> Option<Cow<'a, str>> {
        let Some(Tok::Ident(first)) = self.peek() else { return None };
        let mut path = Cow::Borrowed(*first);
        let mut segments = 1;
        self.bump();
        while self.at(&Tok::ColonColon) {
            self.bump();
            let Some(&Tok::Ident(next)) = self.peek() else { return None };
            self.bump();
            path = Cow::Owned(format!("{path}::{next}"));
            segments += 1;
        }
        (segments >= min).then_some(path)
    }

    /// `<T, …>` after a vertex type's path, if there.
    fn template_args(&mut self) -> Option<Option<Vec<TArg<'a>>>> {
        if !self.eat(&Tok::Lt) {
            return Some(None);
        }
        let args = self.nested(|p| p.comma(&Tok::Gt, true, Self::targ))?;
        self.expect(&Tok::Gt)?;
        Some(Some(args))
    }

    fn vtype(&mut self) -> Option<VType<'a>> {
        let l = self.start();
        let path = self.path(1)?;
        let args = self.template_args()?;
        Some(VType { path, args, span: self.span(l) })
    }

    /// A template argument: a scalar type, a vertex type (`a::b`, or a name
    /// with arguments), else an expression.
    fn targ(&mut self) -> Option<TArg<'a>> {
        match (self.peek()?, self.peek2()) {
            (&Tok::Scalar(s), _) => {
                self.bump();
                Some(TArg::Scalar(s))
            }
            (Tok::Ident(_), Some(Tok::Lt | Tok::ColonColon)) => {
                let l = self.start();
                let one = self.at2(&Tok::Lt);
                let path = self.path(if one { 1 } else { 2 })?;
                let args = self.template_args()?;
                Some(TArg::Type(VType { path, args, span: self.span(l) }))
            }
            _ => Some(TArg::Expr(self.expr()?)),
        }
    }

    /// `a + b`, `a - b` over products.
    fn expr(&mut self) -> Option<Expr<'a>> {
        let op = |t: &Tok<'_>| match t {
            Tok::Plus => Some(BinOp::Add),
            Tok::Minus => Some(BinOp::Sub),
            _ => None,
        };
        self.nested(|p| p.binary(op, Self::product))
    }

    /// `a * b`, `a / b`, `a % b` over unary terms.
    fn product(&mut self) -> Option<Expr<'a>> {
        let op = |t: &Tok<'_>| match t {
            Tok::Star => Some(BinOp::Mul),
            Tok::Slash => Some(BinOp::Div),
            Tok::Percent => Some(BinOp::Rem),
            _ => None,
        };
        self.binary(op, Self::unary)
    }

    /// `a op b op c …` left to right: the operators `op` names, between
    /// the operands `operand` parses.
    fn binary(
        &mut self,
        op: fn(&Tok<'_>) -> Option<BinOp>,
        operand: fn(&mut Self) -> Option<Expr<'a>>,
    ) -> Option<Expr<'a>> {
        let l = self.start();
        let mut a = operand(self)?;
        while let Some(op) = self.peek().and_then(op) {
            self.bump();
            let b = operand(self)?;
            a = Expr { kind: ExprKind::Bin(op, Box::new(a), Box::new(b)), span: self.span(l) };
        }
        Some(a)
    }

    fn unary(&mut self) -> Option<Expr<'a>> {
        if !self.at(&Tok::Minus) {
            return self.postfix();
        }
        let l = self.start();
        self.bump();
        let e = self.nested(Self::unary)?;
        Some(Expr { kind: ExprKind::Neg(Box::new(e)), span: self.span(l) })
    }

    /// A primary expression and its subscripts `[…]`.
    fn postfix(&mut self) -> Option<Expr<'a>> {
        let l = self.start();
        let mut e = self.primary()?;
        while self.eat(&Tok::LBracket) {
            let subs = self.comma(&Tok::RBracket, true, Self::subscript)?;
            self.expect(&Tok::RBracket)?;
            e = Expr { kind: ExprKind::Index(Box::new(e), subs), span: self.span(l) };
        }
        Some(e)
    }

    /// `i`, `a:b`, `a:b:s`, `a::s`, any bound left out.
    fn subscript(&mut self) -> Option<Sub<'a>> {
        let a = self.bound()?;
        match self.peek() {
            Some(Tok::Colon) => {
                self.bump();
                let b = self.bound()?;
                let s = if self.eat(&Tok::Colon) { self.bound()? } else { None };
                Some(Sub::Slice(Box::new((a, b, s))))
            }
            Some(Tok::ColonColon) => {
                self.bump();
                let s = self.bound()?;
                Some(Sub::Slice(Box::new((a, None, s))))
            }
            _ => a.map(Sub::Index),
        }
    }

    /// A slice bound, or `Some(None)` where it is left out.
    fn bound(&mut self) -> Option<Option<Expr<'a>>> {
        match self.peek() {
            Some(Tok::Colon | Tok::ColonColon | Tok::Comma | Tok::RBracket) => Some(None),
            _ => Some(Some(self.expr()?)),
        }
    }

    fn primary(&mut self) -> Option<Expr<'a>> {
        let l = self.start();
        let kind = match self.peek()? {
            &Tok::Int(i) => ExprKind::Int(i),
            &Tok::Float(f) => ExprKind::Float(f),
            Tok::True => ExprKind::Bool(true),
            Tok::False => ExprKind::Bool(false),
            Tok::Str(s) => ExprKind::Str(s.clone()),
            &Tok::TargetProp(p) => ExprKind::TargetProp(p),
            Tok::Ident(_) if self.at2(&Tok::LParen) => {
                let f = self.ident()?;
                self.bump();
                let args = self.nested(|p| p.comma(&Tok::RParen, false, Self::arg))?;
                self.expect(&Tok::RParen)?;
                return Some(Expr { kind: ExprKind::Call(Box::new((f, args))), span: self.span(l) });
            }
            &Tok::Ident(n) => ExprKind::Name(n),
            Tok::LBracket => {
                self.bump();
                let items = self.comma(&Tok::RBracket, false, Self::expr)?;
                self.expect(&Tok::RBracket)?;
                return Some(Expr { kind: ExprKind::List(items), span: self.span(l) });
            }
            Tok::LParen => {
                self.bump();
                let e = self.expr()?;
                self.expect(&Tok::RParen)?;
                return Some(e);
            }
            _ => return None,
        };
        self.bump();
        Some(Expr { kind, span: self.span(l) })
    }

    /// A call argument: `name = value` or a value.
    fn arg(&mut self) -> Option<Arg<'a>> {
        let name = match (self.peek(), self.peek2()) {
            (Some(Tok::Ident(_)), Some(Tok::Eq)) => {
                let n = self.ident()?;
                self.bump();
                Some(n)
            }
            _ => None,
        };
        Some(Arg { name, value: self.expr()? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::CsBodyParser;

    /// The grammar's tree for `src`, a body's items, or `None` where it
    /// rejects them.
    fn grammar(src: &str) -> Option<Vec<CsItem<'_>>> {
        CsBodyParser::new().parse(tokens_within(src, 0, src.len(), 1)).ok()
    }

    /// This parser's tree for `src`; where it has one, the grammar's is
    /// the same.
    fn quick(src: &str) -> Option<Vec<CsItem<'_>>> {
        let q = parse_items(src, 0, src.len());
        if let Some(q) = &q {
            assert_eq!(Some(q), grammar(src).as_ref(), "{src}");
        }
        q
    }

    #[test]
    fn takes_the_common_forms_as_the_grammar_does() {
        for src in [
            "",
            "vertex Scale @ tile 3 { data = x[48:64], k = 2.0 }",
            "  vertex Scale { data = x[0:16], k = 2.0, }\n  vertex V {}\n",
            "vertex a::b::C<float, 4, true, half> { v = y[1, 2:3, ::2, 1::, :, 0:8:2] } cycles 12",
            "vertex T<ns::U<int>, W<float>, N + 1, -2 * (3 % 2)> { float = f[i], int = 3 }",
            "for i in 0..target.num_tiles / 2 { vertex V @ tile i * 2 + 1 { a = x[i][0], b = [x[i], y[(i)]] } }",
            "for i in 0..4 { for j in i..(4) { vertex V { a = -x[-i - -j], s = \"a \\\"q\\\"\" } } }",
            "vertex V { a = concat(x[0:2], y, axis = 0), b = f(), c = (x)[1], d = 1e3, e = 0x1f }",
            "vertex V { a = x[1:2][0], b = [], c = [1, 2,], d = g(a = b, c), e = -(1 - 2) - 3 }",
            "vertex V { a = 1 } vertex W @ tile 0 { b = 2 } cycles 3 for k in 1..2 {}",
        ] {
            assert!(quick(src).is_some(), "{src}");
        }
    }

    #[test]
    fn leaves_the_rest_to_the_grammar() {
        for src in [
            // Taken by the grammar, not here.
            "vertex V { tile = x[0] }",
            "vertex V { for = 1 }",
            // Rejected by both.
            "vertex V { a = x[0] }}",
            "vertex V @ { }",
            "vertex V { a = }",
            "vertex V { a = x[] }",
            "vertex V { a = x[1:2::3] }",
            "vertex V<> { }",
            "vertex V { a = 1, , b = 2 }",
            "vertex ::V { }",
            "vertex V:: { }",
            "junk",
            "vertex V { a = \"open }",
            "vertex V { a = x[0] } }",
            "for i in 0..2 { vertex V { } ",
            "vertex V { a = cast<float>(x) }",
            "vertex V { a = x < y }",
        ] {
            assert!(quick(src).is_none(), "{src}");
        }
        assert!(grammar("vertex V { tile = x[0] }").is_some());
    }

    #[test]
    fn deep_nesting_goes_to_the_grammar() {
        let deep = |open: &str, close: &str, n: usize| {
            format!("vertex V {{ a = {}x{} }}", open.repeat(n), close.repeat(n))
        };
        assert!(quick(&deep("-", "", 10)).is_some());
        assert!(quick(&deep("-", "", 500)).is_none());
        assert!(grammar(&deep("-", "", 500)).is_some());
        assert!(quick(&deep("(", ")", 20)).is_some());
        assert!(quick(&deep("(", ")", 200)).is_none());
        let fors = format!("{}vertex V {{}}{}", "for i in 0..1 { ".repeat(100), "}".repeat(100));
        assert!(quick(&fors).is_none());
        assert!(grammar(&fors).is_some());
    }

    /// Random bodies from the items' tokens, most well formed and some
    /// mangled: wherever this parser gives a tree, it is the grammar's.
    #[test]
    fn agrees_with_the_grammar_on_generated_bodies() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let atoms = ["x", "y", "i", "3", "0", "2.5", "true", "target.num_tiles", "\"s\"", "f()"];
        let noise =
            ["", "", "", "", ",", "::", ":", "-", "[", "]", "(", ")", "<", ">", "=", "tile", "for", "{", "}"];
        let (mut taken, mut total) = (0, 0);
        for _ in 0..3000 {
            let mut s = String::new();
            for _ in 0..1 + next(3) {
                let expr = |next: &mut dyn FnMut(u64) -> u64| {
                    let mut e = atoms[next(atoms.len() as u64) as usize].to_string();
                    for _ in 0..next(4) {
                        e = match next(7) {
                            0 => format!("{e} + {}", atoms[next(atoms.len() as u64) as usize]),
                            1 => format!("-{e}"),
                            2 => format!("({e}) * 2"),
                            3 => format!("{e}[{}:{}]", next(9), 9 + next(9)),
                            4 => format!("{e}[::{}, {}]", 1 + next(3), next(4)),
                            5 => format!("g({e}, k = {})", next(5)),
                            _ => format!("[{e}, 1]"),
                        };
                    }
                    e
                };
                let fields: Vec<String> =
                    (0..next(4)).map(|k| format!("f{k} = {}", expr(&mut next))).collect();
                let item = format!(
                    "vertex ns::V<float, {}> @ tile {} {{ {} }}",
                    next(8),
                    expr(&mut next),
                    fields.join(", ")
                );
                s.push_str(&if next(4) == 0 {
                    format!("for i in 0..{} {{ {item} }}\n", next(5))
                } else {
                    item
                });
                s.push('\n');
            }
            // Mangle a few: a noise token spliced in at a random place.
            if next(3) == 0 {
                let at = next(s.len() as u64) as usize;
                if s.is_char_boundary(at) {
                    s.insert_str(at, noise[next(noise.len() as u64) as usize]);
                }
            }
            total += 1;
            taken += usize::from(quick(&s).is_some());
        }
        // The well-formed ones (two in three at least) are taken here.
        assert!(taken * 3 >= total * 2, "{taken} of {total}");
    }
}

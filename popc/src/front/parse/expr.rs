//! Expressions of the codelet C++ subset: assignment, the conditional
//! operator, binary operators by precedence (with `>` closing a template
//! argument list where one is open), unary and postfix operators, primary
//! expressions and lambdas. Part of [`super::Parser`]; every level counts
//! towards its nesting limit.

use super::*;

impl Parser {
    pub fn expr(&mut self) -> Result<Expr> {
        self.nested(Self::expr_inner)
    }

    pub(super) fn expr_inner(&mut self) -> Result<Expr> {
        let mut e = self.assign_expr()?;
        while self.at(Tok::Comma) {
            self.link()?;
            self.bump();
            let r = self.assign_expr()?;
            let span = Self::join(e.span, r.span);
            e = Expr { span, kind: ExprKind::Binary(BinOp::Comma, Box::new(e), Box::new(r)) };
        }
        Ok(e)
    }

    pub(super) fn assign_expr(&mut self) -> Result<Expr> {
        self.nested(Self::assign_inner)
    }

    pub(super) fn assign_inner(&mut self) -> Result<Expr> {
        let lhs = self.cond_expr()?;
        let op = match self.peek().kind {
            Tok::Assign => None,
            Tok::PlusEq => Some(BinOp::Add),
            Tok::MinusEq => Some(BinOp::Sub),
            Tok::StarEq => Some(BinOp::Mul),
            Tok::SlashEq => Some(BinOp::Div),
            Tok::PercentEq => Some(BinOp::Rem),
            Tok::AmpEq => Some(BinOp::BitAnd),
            Tok::PipeEq => Some(BinOp::BitOr),
            Tok::CaretEq => Some(BinOp::BitXor),
            Tok::ShlEq => Some(BinOp::Shl),
            Tok::ShrEq => Some(BinOp::Shr),
            Tok::Gt if self.peek_at(1).is(Tok::Ge) && self.adjacent() => {
                self.bump();
                Some(BinOp::Shr)
            }
            _ => return Ok(lhs),
        };
        self.link()?;
        let span = self.bump().span;
        let rhs = if self.at(Tok::LBrace) { self.init_list()? } else { self.assign_expr()? };
        Ok(Expr { span, kind: ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)) })
    }

    pub(super) fn adjacent(&self) -> bool {
        let a = self.peek().span;
        let b = self.peek_at(1).span;
        a.file == b.file && a.hi == b.lo
    }

    pub(super) fn cond_expr(&mut self) -> Result<Expr> {
        let c = self.binary(0, false)?;
        if self.at(Tok::Question) {
            self.link()?;
            let span = self.bump().span;
            let a = self.expr()?;
            self.expect(Tok::Colon, "':'")?;
            let b = self.assign_expr()?;
            return Ok(Expr { span, kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)) });
        }
        Ok(c)
    }

    /// After a call's `(`: its arguments (expressions or braced lists),
    /// through the closing `)`.
    pub(super) fn call_args(&mut self) -> Result<Vec<Expr>> {
        let mut args = Vec::new();
        while !self.eat(Tok::RParen) {
            args.push(if self.at(Tok::LBrace) { self.init_list()? } else { self.assign_expr()? });
            if !self.eat(Tok::Comma) {
                self.expect(Tok::RParen, "')'")?;
                break;
            }
        }
        Ok(args)
    }

    pub(super) fn binop(&self, in_targs: bool) -> Option<(BinOp, u8, usize)> {
        let k = self.peek().kind;
        Some(match k {
            Tok::OrOr => (BinOp::Or, 1, 1),
            Tok::AndAnd => (BinOp::And, 2, 1),
            Tok::Pipe => (BinOp::BitOr, 3, 1),
            Tok::Caret => (BinOp::BitXor, 4, 1),
            Tok::Amp => (BinOp::BitAnd, 5, 1),
            Tok::EqEq => (BinOp::Eq, 6, 1),
            Tok::Ne => (BinOp::Ne, 6, 1),
            Tok::Gt if in_targs => return None,
            Tok::Gt if self.peek_at(1).is(Tok::Gt) && self.adjacent() => (BinOp::Shr, 8, 2),
            Tok::Gt if self.peek_at(1).is(Tok::Ge) && self.adjacent() => return None,
            Tok::Lt => (BinOp::Lt, 7, 1),
            Tok::Gt => (BinOp::Gt, 7, 1),
            Tok::Le => (BinOp::Le, 7, 1),
            Tok::Ge => (BinOp::Ge, 7, 1),
            Tok::Shl => (BinOp::Shl, 8, 1),
            Tok::Plus => (BinOp::Add, 9, 1),
            Tok::Minus => (BinOp::Sub, 9, 1),
            Tok::Star => (BinOp::Mul, 10, 1),
            Tok::Slash => (BinOp::Div, 10, 1),
            Tok::Percent => (BinOp::Rem, 10, 1),
            _ => return None,
        })
    }

    pub(super) fn binary(&mut self, min: u8, in_targs: bool) -> Result<Expr> {
        self.nested(|p| p.binary_inner(min, in_targs))
    }

    /// Operators of precedence `min` and above, left to right: a left-deep
    /// chain, each operator one level deeper than the last.
    pub(super) fn binary_inner(&mut self, min: u8, in_targs: bool) -> Result<Expr> {
        let mut lhs = self.unary()?;
        while let Some((op, prec, ntok)) = self.binop(in_targs) {
            if prec < min {
                break;
            }
            self.link()?;
            let span = self.span();
            self.pos += ntok;
            let rhs = self.binary(prec + 1, in_targs)?;
            lhs = Expr { span, kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)) };
        }
        Ok(lhs)
    }

    pub(super) fn unary(&mut self) -> Result<Expr> {
        self.nested(Self::unary_inner)
    }

    pub(super) fn unary_inner(&mut self) -> Result<Expr> {
        let t = self.peek().clone();
        let span = t.span;
        let op = match t.kind {
            Tok::Minus => Some(UnOp::Neg),
            Tok::Plus => Some(UnOp::Plus),
            Tok::Bang => Some(UnOp::Not),
            Tok::Tilde => Some(UnOp::BitNot),
            Tok::Star => Some(UnOp::Deref),
            Tok::Amp => Some(UnOp::AddrOf),
            Tok::PlusPlus => Some(UnOp::PreInc),
            Tok::MinusMinus => Some(UnOp::PreDec),
            _ => None,
        };
        if let Some(op) = op {
            self.enter()?;
            self.bump();
            let e = self.unary()?;
            return Ok(Expr { span, kind: ExprKind::Unary(op, Box::new(e)) });
        }
        if t.is_ident("sizeof") || t.is_ident("alignof") {
            self.enter()?;
            self.bump();
            let is_align = t.is_ident("alignof");
            if self.at(Tok::LParen) {
                let save = self.pos;
                self.bump();
                if self.at_type() {
                    let ty = self.type_ptr(false)?;
                    if self.eat(Tok::RParen) {
                        let kind =
                            if is_align { ExprKind::AlignofType(ty) } else { ExprKind::SizeofType(ty) };
                        return Ok(Expr { span, kind });
                    }
                }
                self.pos = save;
            }
            let e = self.unary()?;
            return Ok(Expr { span, kind: ExprKind::SizeofExpr(Box::new(e)) });
        }
        // C-style cast.
        if t.kind == Tok::LParen {
            let save = self.pos;
            self.bump();
            if self.at_type() {
                if let Ok(ty) = self.type_ptr(false) {
                    if self.eat(Tok::RParen) && !self.at(Tok::Dot) && !self.at(Tok::Arrow) {
                        self.link()?;
                        let e = self.unary()?;
                        return Ok(Expr { span, kind: ExprKind::Cast(CastKind::CStyle, ty, Box::new(e)) });
                    }
                }
            }
            self.pos = save;
        }
        let e = self.primary()?;
        self.postfix(e)
    }

    /// Postfix operators after `e`: a left-deep chain like a binary one.
    pub(super) fn postfix(&mut self, mut e: Expr) -> Result<Expr> {
        loop {
            let span = self.span();
            if matches!(
                self.peek().kind,
                Tok::LParen | Tok::LBracket | Tok::Dot | Tok::Arrow | Tok::PlusPlus | Tok::MinusMinus
            ) {
                self.link()?;
            }
            e = match self.peek().kind {
                Tok::LParen => {
                    self.bump();
                    let args = self.call_args()?;
                    Expr { span: e.span, kind: ExprKind::Call(Box::new(e), args) }
                }
                Tok::LBracket => {
                    self.bump();
                    let i = self.expr()?;
                    self.expect(Tok::RBracket, "']'")?;
                    Expr { span, kind: ExprKind::Index(Box::new(e), Box::new(i)) }
                }
                Tok::Dot | Tok::Arrow => {
                    let arrow = self.bump().kind == Tok::Arrow;
                    let template = self.eat_kw("template");
                    if self.at_kw("operator") {
                        e = self.operator_call(Some((e, arrow)))?;
                        continue;
                    }
                    let (mut name, nspan) = self.ident()?;
                    // `obj.Base::f`: a member named through a class (a
                    // call of it does not dispatch).
                    while !template && self.at(Tok::ColonColon) && self.peek_at(1).is(Tok::Ident) {
                        self.bump();
                        name = format!("{name}::{}", self.ident()?.0);
                    }
                    if template && self.at(Tok::Lt) {
                        let args = Some(self.template_args()?);
                        let seg = Seg { name, args };
                        Expr { span: nspan, kind: ExprKind::MemberTemplate(Box::new(e), seg, arrow) }
                    } else {
                        Expr { span: nspan, kind: ExprKind::Member(Box::new(e), name, arrow) }
                    }
                }
                Tok::PlusPlus => {
                    self.bump();
                    Expr { span, kind: ExprKind::Unary(UnOp::PostInc, Box::new(e)) }
                }
                Tok::MinusMinus => {
                    self.bump();
                    Expr { span, kind: ExprKind::Unary(UnOp::PostDec, Box::new(e)) }
                }
                _ => return Ok(e),
            };
        }
    }

    /// `e.operator@(args)` (or `e->…`), the explicit call of a member
    /// operator, after the `.`, and `operator@(args)` (`obj` `None`): the
    /// expression the operator spells, which the later stages resolve to
    /// the same overload (`this->operator[](i)` is `(*this)[i]`).
    fn operator_call(&mut self, obj: Option<(Expr, bool)>) -> Result<Expr> {
        let (name, span) = self.operator_name()?;
        self.expect(Tok::LParen, "'(' after the operator's name")?;
        let mut args = self.call_args()?;
        if let Some((e, arrow)) = obj {
            let e = if arrow {
                Expr { span: e.span, kind: ExprKind::Unary(UnOp::Deref, Box::new(e)) }
            } else {
                e
            };
            args.insert(0, e);
        }
        let op = &name["operator".len()..];
        let bin = |t: &str| {
            Some(match t {
                "+" => BinOp::Add,
                "-" => BinOp::Sub,
                "*" => BinOp::Mul,
                "/" => BinOp::Div,
                "%" => BinOp::Rem,
                "<<" => BinOp::Shl,
                ">>" => BinOp::Shr,
                "&" => BinOp::BitAnd,
                "|" => BinOp::BitOr,
                "^" => BinOp::BitXor,
                "&&" => BinOp::And,
                "||" => BinOp::Or,
                "==" => BinOp::Eq,
                "!=" => BinOp::Ne,
                "<" => BinOp::Lt,
                ">" => BinOp::Gt,
                "<=" => BinOp::Le,
                ">=" => BinOp::Ge,
                _ => return None,
            })
        };
        let compound = |t: &str| match t.strip_suffix('=') {
            Some(b) if !matches!(t, "==" | "!=" | "<=" | ">=") => bin(b),
            _ => None,
        };
        let n = args.len();
        let mut it = args.into_iter().map(Box::new);
        let mut next = || it.next().unwrap();
        let kind = match (op, n) {
            ("()", 1..) => {
                let f = next();
                ExprKind::Call(f, it.map(|a| *a).collect())
            }
            ("[]", 2) => ExprKind::Index(next(), next()),
            ("=", 2) => ExprKind::Assign(None, next(), next()),
            ("++", 1) => ExprKind::Unary(UnOp::PreInc, next()),
            ("--", 1) => ExprKind::Unary(UnOp::PreDec, next()),
            ("++", 2) => ExprKind::Unary(UnOp::PostInc, next()),
            ("--", 2) => ExprKind::Unary(UnOp::PostDec, next()),
            ("-", 1) => ExprKind::Unary(UnOp::Neg, next()),
            ("+", 1) => ExprKind::Unary(UnOp::Plus, next()),
            ("!", 1) => ExprKind::Unary(UnOp::Not, next()),
            ("~", 1) => ExprKind::Unary(UnOp::BitNot, next()),
            ("*", 1) => ExprKind::Unary(UnOp::Deref, next()),
            (t, 2) if compound(t).is_some() => ExprKind::Assign(compound(t), next(), next()),
            (t, 2) if bin(t).is_some() => ExprKind::Binary(bin(t).unwrap_or(BinOp::Add), next(), next()),
            _ => {
                return err(
                    span,
                    format!("'{name}' called by name with {n} operands (its object included) is no operator popc supports"),
                )
            }
        };
        Ok(Expr { span, kind })
    }

    pub(super) fn primary(&mut self) -> Result<Expr> {
        let t = self.peek().clone();
        let span = t.span;
        if self.at_kw("operator") {
            return self.operator_call(None);
        }
        self.check_keyword(&t)?;
        let kind = match t.kind {
            Tok::Number => {
                self.bump();
                parse_number(&t.text).ok_or_else(|| {
                    crate::diag::Diagnostic::new(span, format!("invalid number '{}'", t.text))
                })?
            }
            Tok::Char => {
                self.bump();
                let b = unescape(&t.text);
                ExprKind::Char(b.first().copied().unwrap_or(0) as i8 as i64)
            }
            Tok::Str => {
                let mut bytes = Vec::new();
                while self.at(Tok::Str) {
                    let s = self.bump();
                    bytes.extend(unescape(&s.text));
                }
                ExprKind::Str(bytes)
            }
            Tok::LParen => {
                self.bump();
                let e = self.expr()?;
                self.expect(Tok::RParen, "')'")?;
                return Ok(e);
            }
            Tok::LBracket => return self.lambda(),
            Tok::LBrace => return self.init_list(),
            Tok::Ident | Tok::ColonColon => match &*t.text {
                "true" => {
                    self.bump();
                    ExprKind::Bool(true)
                }
                "false" => {
                    self.bump();
                    ExprKind::Bool(false)
                }
                "nullptr" | "NULL" => {
                    self.bump();
                    ExprKind::Int(0, false, false, false)
                }
                "this" => {
                    self.bump();
                    ExprKind::This
                }
                "static_cast" | "reinterpret_cast" | "const_cast" => {
                    self.bump();
                    let kind = match &*t.text {
                        "static_cast" => CastKind::Static,
                        "reinterpret_cast" => CastKind::Reinterpret,
                        _ => CastKind::Const,
                    };
                    self.expect(Tok::Lt, "'<'")?;
                    let ty = self.type_ptr(false)?;
                    self.close_angle()?;
                    self.expect(Tok::LParen, "'('")?;
                    self.link()?;
                    let e = self.expr()?;
                    self.expect(Tok::RParen, "')'")?;
                    ExprKind::Cast(kind, ty, Box::new(e))
                }
                s if scalar_keyword(s) && s != "auto" || s == "decltype" => {
                    // Functional cast `float(x)`, `decltype(x){0}`.
                    let ty = self.type_name()?;
                    self.link()?;
                    if self.at(Tok::LBrace) {
                        let e = self.init_list()?;
                        return Ok(Expr {
                            span,
                            kind: ExprKind::Cast(CastKind::Functional, ty, Box::new(e)),
                        });
                    }
                    self.expect(Tok::LParen, "'('")?;
                    let e = if self.at(Tok::RParen) {
                        Expr { span, kind: ExprKind::Int(0, false, false, false) }
                    } else {
                        self.expr()?
                    };
                    self.expect(Tok::RParen, "')'")?;
                    ExprKind::Cast(CastKind::Functional, ty, Box::new(e))
                }
                _ => {
                    let mut p = self.path()?;
                    // `std::is_same<A, B>()` and `{}` make a value that
                    // converts to `std::is_same<A, B>::value`.
                    let trait_value = matches!(
                        p.last(),
                        "is_same" | "is_integral" | "is_floating_point" | "is_signed" | "is_unsigned"
                    ) && p.segs.last().is_some_and(|s| s.args.is_some())
                        && (self.at(Tok::LParen) && self.peek_at(1).is(Tok::RParen)
                            || self.at(Tok::LBrace) && self.peek_at(1).is(Tok::RBrace));
                    if trait_value {
                        self.bump();
                        self.bump();
                        p.segs.push(Seg { name: "value".into(), args: None });
                        return Ok(Expr { span, kind: ExprKind::Name(p) });
                    }
                    if self.at(Tok::LBrace) && self.types.contains(p.last()) {
                        self.link()?;
                        let e = self.init_list()?;
                        let ty = TypeName { span, kind: TypeKind::Named(p), is_const: false };
                        return Ok(Expr {
                            span,
                            kind: ExprKind::Cast(CastKind::Functional, ty, Box::new(e)),
                        });
                    }
                    ExprKind::Name(p)
                }
            },
            Tok::Eof => return err(span, "expected an expression, found end of file"),
            _ => return err(span, format!("expected an expression, found '{}'", t.text)),
        };
        Ok(Expr { span, kind })
    }

    pub(super) fn lambda(&mut self) -> Result<Expr> {
        self.enter()?;
        let span = self.bump().span;
        while !self.eat(Tok::RBracket) {
            if self.at(Tok::Eof) {
                return err(span, "unterminated lambda capture");
            }
            self.bump();
        }
        let params = if self.at(Tok::LParen) { self.params()? } else { Vec::new() };
        self.eat_kw("mutable");
        self.eat_kw("constexpr");
        let ret = if self.eat(Tok::Arrow) { Some(self.type_name()?) } else { None };
        let body = self.block()?;
        Ok(Expr { span, kind: ExprKind::Lambda(Box::new(Lambda { params, ret, body })) })
    }
}

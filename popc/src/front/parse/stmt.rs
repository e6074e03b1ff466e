//! Statements of the codelet C++ subset: blocks, declarations inside
//! functions, control flow and expression statements. Part of
//! [`super::Parser`].

use super::*;

impl Parser {
    pub(crate) fn block(&mut self) -> Result<Vec<Stmt>> {
        self.expect(Tok::LBrace, "'{'")?;
        let mut v = Vec::new();
        while !self.eat(Tok::RBrace) {
            if self.at(Tok::Eof) {
                return err(self.span(), "expected '}', found end of file");
            }
            v.push(self.stmt()?);
        }
        Ok(v)
    }

    pub(crate) fn stmt(&mut self) -> Result<Stmt> {
        self.node(Self::stmt_inner)
    }

    /// `asm [volatile|inline|goto] (…);`, kept as an error for the
    /// lowering to report if the statement is reached.
    fn asm_stmt(&mut self) -> Result<Stmt> {
        let span = self.bump().span;
        while self.eat_kw("volatile")
            || self.eat_kw("__volatile__")
            || self.eat_kw("inline")
            || self.eat_kw("goto")
        {}
        self.skip_parens()?;
        self.expect(Tok::Semi, "';' after inline assembly")?;
        let what = "inline assembly is not supported in codelets (popc compiles the C++ path: it defines __POPC__, not __IPU__)";
        Ok(Stmt { span, kind: StmtKind::Unsupported(what.into()) })
    }

    pub(crate) fn stmt_inner(&mut self) -> Result<Stmt> {
        self.skip_attributes()?;
        let t = self.peek().clone();
        let span = t.span;
        if t.kind == Tok::Ident && matches!(&*t.text, "asm" | "__asm__" | "__asm") {
            return self.asm_stmt();
        }
        self.check_keyword(&t)?;
        let kind = match &*t.text {
            _ if t.kind == Tok::LBrace => StmtKind::Block(self.block()?),
            _ if t.kind == Tok::Semi => {
                self.bump();
                StmtKind::Empty
            }
            "if" if t.kind == Tok::Ident => {
                self.bump();
                let is_constexpr = self.eat_kw("constexpr");
                self.expect(Tok::LParen, "'('")?;
                let mut init = None;
                if self.at_type() {
                    let save = self.pos;
                    if let Ok(Some(d)) = self.try_decl() {
                        if self.prev_is_semi() {
                            init = Some(Box::new(d));
                        } else {
                            self.pos = save;
                        }
                    } else {
                        self.pos = save;
                    }
                }
                let cond = self.expr()?;
                self.expect(Tok::RParen, "')'")?;
                let then = Box::new(self.stmt()?);
                let els = if self.eat_kw("else") { Some(Box::new(self.stmt()?)) } else { None };
                StmtKind::If { init, cond, then, els, is_constexpr }
            }
            "for" if t.kind == Tok::Ident => {
                self.bump();
                self.expect(Tok::LParen, "'('")?;
                // Range-for?
                if self.at_type() {
                    let save = self.pos;
                    let ty = self.type_ptr(false)?;
                    if self.at(Tok::Ident) && self.peek_at(1).is(Tok::Colon) {
                        let (name, vspan) = self.ident()?;
                        self.bump();
                        let range = self.expr()?;
                        self.expect(Tok::RParen, "')'")?;
                        let body = Box::new(self.stmt()?);
                        let var = VarDecl {
                            span: vspan,
                            ty,
                            name,
                            dims: vec![],
                            init: None,
                            is_constexpr: false,
                            is_static: false,
                        };
                        return Ok(Stmt { span, kind: StmtKind::RangeFor { var, range, body } });
                    }
                    self.pos = save;
                }
                let init = if self.eat(Tok::Semi) { None } else { Some(Box::new(self.simple_stmt()?)) };
                let cond = if self.at(Tok::Semi) { None } else { Some(self.expr()?) };
                self.expect(Tok::Semi, "';'")?;
                let step = if self.at(Tok::RParen) { None } else { Some(self.expr()?) };
                self.expect(Tok::RParen, "')'")?;
                let body = Box::new(self.stmt()?);
                StmtKind::For { init, cond, step, body }
            }
            "while" if t.kind == Tok::Ident => {
                self.bump();
                self.expect(Tok::LParen, "'('")?;
                let cond = self.expr()?;
                self.expect(Tok::RParen, "')'")?;
                StmtKind::While { cond, body: Box::new(self.stmt()?) }
            }
            "do" if t.kind == Tok::Ident => {
                self.bump();
                let body = Box::new(self.stmt()?);
                if !self.eat_kw("while") {
                    return err(self.span(), "expected 'while' after do body");
                }
                self.expect(Tok::LParen, "'('")?;
                let cond = self.expr()?;
                self.expect(Tok::RParen, "')'")?;
                self.expect(Tok::Semi, "';'")?;
                StmtKind::DoWhile { body, cond }
            }
            "switch" if t.kind == Tok::Ident => {
                self.bump();
                self.expect(Tok::LParen, "'('")?;
                let cond = self.expr()?;
                self.expect(Tok::RParen, "')'")?;
                StmtKind::Switch { cond, body: Box::new(self.stmt()?) }
            }
            "case" if t.kind == Tok::Ident => {
                self.bump();
                let e = self.cond_expr()?;
                self.expect(Tok::Colon, "':'")?;
                StmtKind::Case(e)
            }
            "default" if t.kind == Tok::Ident && self.peek_at(1).is(Tok::Colon) => {
                self.bump();
                self.bump();
                StmtKind::Default
            }
            "break" if t.kind == Tok::Ident => {
                self.bump();
                self.expect(Tok::Semi, "';'")?;
                StmtKind::Break
            }
            "continue" if t.kind == Tok::Ident => {
                self.bump();
                self.expect(Tok::Semi, "';'")?;
                StmtKind::Continue
            }
            "return" if t.kind == Tok::Ident => {
                self.bump();
                let e = if self.at(Tok::Semi) {
                    None
                } else if self.at(Tok::LBrace) {
                    Some(self.init_list()?)
                } else {
                    Some(self.expr()?)
                };
                self.expect(Tok::Semi, "';'")?;
                StmtKind::Return(e)
            }
            "static_assert" if t.kind == Tok::Ident => {
                let (_, e, m) = self.static_assert()?;
                StmtKind::StaticAssert(e, m)
            }
            "using" | "typedef" | "enum" if t.kind == Tok::Ident => StmtKind::Item(Box::new(self.item()?)),
            "struct" | "class" if t.kind == Tok::Ident && self.class_head_name().is_some() => {
                StmtKind::Item(Box::new(self.item()?))
            }
            _ => return self.simple_stmt(),
        };
        Ok(Stmt { span, kind })
    }

    pub(crate) fn prev_is_semi(&self) -> bool {
        self.pos > 0 && self.toks[self.pos - 1].is(Tok::Semi)
    }

    /// A declaration statement if one starts here.
    pub(crate) fn try_decl(&mut self) -> Result<Option<Stmt>> {
        let span = self.span();
        let mut specs = Specs::default();
        self.specifiers(&mut specs)?;
        if !self.at_type() {
            return Ok(None);
        }
        let mut base = self.type_name()?;
        self.specifiers(&mut specs)?;
        base.is_const |= specs.is_const;
        let Specs { is_constexpr, is_static, .. } = specs;
        let base_peak = self.last_peak;
        let depth = self.depth;
        let mut decls = Vec::new();
        loop {
            // Each declarator nests on top of the type.
            self.depth = depth.max(base_peak);
            let ty = self.ptr_declarator(base.clone())?;
            self.skip_attributes()?;
            if !self.at(Tok::Ident) {
                self.depth = depth;
                return Ok(None);
            }
            let (name, nspan) = self.ident()?;
            self.skip_attributes()?;
            let mut dims = Vec::new();
            while self.at(Tok::LBracket) && !self.peek_at(1).is(Tok::LBracket) {
                self.enter()?;
                self.bump();
                dims.push(self.expr()?);
                self.expect(Tok::RBracket, "']'")?;
            }
            // GCC's place after an array's bounds: `float b[4] __attribute__((aligned(16)))`.
            self.skip_attributes()?;
            if decls.is_empty()
                && !matches!(
                    self.peek().kind,
                    Tok::Assign | Tok::LBrace | Tok::Semi | Tok::Comma | Tok::LParen
                )
            {
                self.depth = depth;
                return Ok(None);
            }
            let init = self.initializer()?;
            self.depth = depth;
            decls.push(VarDecl { span: nspan, ty, name, dims, init, is_constexpr, is_static });
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::Semi, "';'")?;
            break;
        }
        Ok(Some(Stmt { span, kind: StmtKind::Decl(decls) }))
    }

    pub(crate) fn simple_stmt(&mut self) -> Result<Stmt> {
        let span = self.span();
        if self.at_type() || self.at_kw("static") || self.at_kw("constexpr") {
            let save = self.pos;
            match self.try_decl() {
                Ok(Some(s)) => return Ok(s),
                Ok(None) => self.pos = save,
                Err(e) => {
                    // Was it really a declaration? Retry as an expression.
                    let decl_pos = self.pos;
                    self.pos = save;
                    match self.expr() {
                        Ok(ex) if self.at(Tok::Semi) => {
                            self.bump();
                            return Ok(Stmt { span, kind: StmtKind::Expr(ex) });
                        }
                        _ => {
                            self.pos = decl_pos;
                            return Err(e);
                        }
                    }
                }
            }
        }
        // `X y ...` or `a::X y ...` with X no type known here: a declaration
        // of an unknown type.
        let mut i = 0;
        while self.peek_at(i).is(Tok::Ident) && self.peek_at(i + 1).is(Tok::ColonColon) {
            i += 2;
        }
        let t = self.peek_at(i);
        if t.is(Tok::Ident)
            && self.peek_at(i + 1).is(Tok::Ident)
            && !matches!(&*t.text, "sizeof" | "alignof" | "operator")
        {
            let name: Vec<&str> = (0..=i).map(|k| &*self.peek_at(k).text).collect();
            return err(self.span(), format!("unknown type '{}'", name.concat()));
        }
        let e = self.expr()?;
        self.expect(Tok::Semi, "';'")?;
        Ok(Stmt { span, kind: StmtKind::Expr(e) })
    }
}

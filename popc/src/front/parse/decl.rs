//! Declarations of variables and functions: the specifiers around the
//! type, declarators, `operator` names, initialisers and braced lists,
//! and parameter lists. Part of [`super::Parser`].

use super::*;

impl Parser {
    /// Declaration specifiers other than the type, which C++ lets come in
    /// any order before or after it (`const static`, `unsigned inline`),
    /// and attributes among them.
    pub(super) fn specifiers(&mut self, specs: &mut Specs) -> Result<()> {
        loop {
            self.skip_attributes()?;
            if self.eat_kw("constexpr") || self.eat_kw("consteval") || self.eat_kw("constinit") {
                specs.is_constexpr = true;
            } else if self.eat_kw("static") {
                specs.is_static = true;
            } else if self.eat_kw("virtual") {
                specs.is_virtual = true;
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
    pub(super) fn decl_item(&mut self, tparams: Option<Vec<TParam>>) -> Result<Item> {
        let mut specs = Specs::default();
        self.specifiers(&mut specs)?;
        let t = self.peek().clone();
        self.check_keyword(&t)?;
        let mut ty = self.type_name()?;
        self.specifiers(&mut specs)?;
        ty.is_const |= specs.is_const;
        let Specs { is_constexpr, is_static, is_virtual, .. } = specs;
        let ty_peak = self.last_peak;
        let depth = self.depth;
        // Declarators, each nested on top of the type.
        let mut decls = Vec::new();
        loop {
            self.depth = depth.max(ty_peak);
            let dty = self.ptr_declarator(ty.clone())?;
            self.skip_attributes()?;
            let (name, span) = if self.at_kw("operator") { self.operator_name()? } else { self.ident()? };
            if self.at(Tok::ColonColon) && decls.is_empty() {
                return self.member_defined_outside(name, span, dty, (tparams, is_constexpr));
            }
            self.skip_attributes()?;
            if tparams.is_some() {
                self.templates.insert(name.clone());
            }
            if tparams.as_ref().is_some_and(|t| !t.is_empty()) && self.at(Tok::Lt) && decls.is_empty() {
                // `template <class T> R C<T>::m …`: a member of a class
                // template defined outside it.
                self.template_args()?;
                if self.at(Tok::ColonColon) {
                    return self.member_defined_outside(name, span, dty, (tparams, is_constexpr));
                }
            }
            if tparams.as_ref().is_some_and(|t| t.is_empty()) && self.at(Tok::Lt) {
                // An explicit specialisation `template <> R f<A>(...)`: an
                // overload with exactly the specialised parameter types.
                self.template_args()?;
                if self.at(Tok::ColonColon) && decls.is_empty() {
                    return self.member_defined_outside(name, span, dty, (tparams, is_constexpr));
                }
            }
            if self.at(Tok::LParen) && decls.is_empty() {
                // Function.
                let params = self.params()?;
                let mut quals = FnQuals { is_virtual, ..FnQuals::default() };
                loop {
                    if self.eat_kw("const") {
                        quals.is_const = true;
                    } else if self.eat_kw("override") {
                        quals.is_override = true;
                    } else if self.eat_kw("final") {
                        quals.is_final = true;
                    } else if !(self.eat_kw("noexcept") || self.eat(Tok::Amp) || self.eat(Tok::AndAnd)) {
                        break;
                    }
                }
                let mut ret = dty;
                if self.eat(Tok::Arrow) {
                    ret = self.type_name()?;
                    while self.eat_kw("override") || self.eat_kw("final") {
                        quals.is_override = true;
                    }
                }
                self.skip_attributes()?;
                let body = if self.eat(Tok::Semi) {
                    None
                } else if self.at(Tok::Assign) {
                    self.bump();
                    let t = self.bump();
                    if &*t.text == "0" {
                        if !quals.says_virtual() {
                            return err(
                                t.span,
                                format!("'{name}' is declared pure ('= 0') but is not virtual"),
                            );
                        }
                        quals.is_pure = true;
                    } else if !matches!(&*t.text, "default" | "delete") {
                        return err(t.span, "expected '0', 'default' or 'delete'");
                    }
                    self.expect(Tok::Semi, "';'")?;
                    None
                } else {
                    Some(self.block()?.into())
                };
                if quals.says_virtual() && (is_static || tparams.is_some()) {
                    let what =
                        if is_static { "a static member function" } else { "a member function template" };
                    return err(span, format!("'{name}' is {what} and cannot be virtual"));
                }
                return Ok(Item::Function(Function {
                    span,
                    name,
                    tparams,
                    ret,
                    params,
                    body,
                    is_constexpr,
                    is_static,
                    is_friend: false,
                    quals,
                }));
            }
            let dims = self.array_bounds()?;
            // GCC's place after an array's bounds: `float b[4] __attribute__((aligned(16)))`.
            self.skip_attributes()?;
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
        if is_virtual {
            return err(decls[0].span, format!("'{}' is a variable and cannot be virtual", decls[0].name));
        }
        if decls.len() == 1 {
            return Ok(Item::Var(decls.pop().unwrap()));
        }
        Ok(Item::Namespace(String::new(), decls.into_iter().map(Item::Var).collect()))
    }

    /// `operator@` as a function name: `operator()`, `operator[]`,
    /// `operator+`, `operator==`, `operator>>`, ...
    pub(super) fn operator_name(&mut self) -> Result<(String, Span)> {
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

    /// An array declarator's bounds, `[4][n]`, up to an attribute's `[[`;
    /// each bound nests one level (the caller restores `depth`).
    pub(super) fn array_bounds(&mut self) -> Result<Vec<Expr>> {
        let mut dims = Vec::new();
        while self.at(Tok::LBracket) && !self.peek_at(1).is(Tok::LBracket) {
            self.enter()?;
            self.bump();
            dims.push(self.expr()?);
            self.expect(Tok::RBracket, "']'")?;
        }
        Ok(dims)
    }

    pub(super) fn initializer(&mut self) -> Result<Option<Expr>> {
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

    pub(super) fn init_list(&mut self) -> Result<Expr> {
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

    pub(super) fn params(&mut self) -> Result<Vec<Param>> {
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

impl Parser {
    /// `T C::m = …;` or `R C::f(…) { … }` at namespace scope: a member
    /// defined outside its class. The definition of a static data member
    /// (which gives one that is storage its initial value, `sema::statics`)
    /// is an [`Item::StaticMember`], a class template's with the template's
    /// parameters (`template <class T> T C<T>::m = 0;`); member functions,
    /// and explicit specialisations of static data members, are refused by
    /// name.
    fn member_defined_outside(
        &mut self,
        class: String,
        span: Span,
        ty: TypeName,
        (tparams, is_constexpr): (Option<Vec<TParam>>, bool),
    ) -> Result<Item> {
        let mut name = class;
        while self.eat(Tok::ColonColon) {
            if self.at(Tok::Lt) {
                break;
            }
            let (n, _) = if self.at_kw("operator") { self.operator_name()? } else { self.ident()? };
            name = format!("{name}::{n}");
        }
        if self.at(Tok::LParen) {
            return err(
                span,
                format!("member function '{name}' defined outside its class: popc needs it defined in the class body"),
            );
        }
        if tparams.as_ref().is_some_and(|t| t.is_empty()) || self.at(Tok::Lt) {
            return err(
                span,
                format!(
                    "explicit specialisation of static data member '{name}': popc defines a class template's \
                     static data members for all its instances at once"
                ),
            );
        }
        let depth = self.depth;
        let dims = self.array_bounds()?;
        self.skip_attributes()?;
        let init = self.initializer()?;
        self.depth = depth;
        self.expect(Tok::Semi, "';'")?;
        let (class, member) =
            name.rsplit_once("::").map(|(c, m)| (c.to_string(), m.to_string())).unwrap_or_default();
        let decl = VarDecl { span, ty, name: member, dims, init, is_constexpr, is_static: false };
        Ok(Item::StaticMember(class, decl, tparams))
    }
}

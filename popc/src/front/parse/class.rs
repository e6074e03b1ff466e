//! Classes: heads, bases, members (fields, methods, constructors,
//! nested types, aliases, access labels), and the look-ahead that tells a
//! constructor which does work from one which does not. Part of
//! [`super::Parser`].

use super::*;

impl Parser {
    /// The class's name if a class definition or declaration starts here:
    /// `class` or `struct`, attributes, the name, then `{`, `:`, `;`, `<`
    /// or `final` (`struct P p;` declares a variable instead).
    pub(super) fn class_head_name(&self) -> Option<String> {
        if !(self.at_kw("class") || self.at_kw("struct") || self.at_kw("union")) {
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

    /// A constructor after its class name (at `span`): the parameters,
    /// the member initialisers and the body, with `tparams` when it is a
    /// constructor template.
    fn ctor_rest(&mut self, span: Span, tparams: Option<Vec<TParam>>) -> Result<Ctor> {
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
                    self.call_args()?
                };
                inits.push((name, nspan, args));
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        let body = if self.eat(Tok::Assign) {
            if !self.eat_kw("default") {
                return err(self.span(), "a constructor template may be '= default' only");
            }
            self.expect(Tok::Semi, "';'")?;
            Vec::new()
        } else if self.at(Tok::Semi) && tparams.is_some() {
            return err(
                span,
                "a constructor template declared in its class and defined outside it is not supported in \
                 codelets: define it in the class",
            );
        } else {
            self.block()?
        };
        Ok(Ctor { span, tparams, params, inits, body })
    }

    /// `template <…> C(…)` ahead, a constructor template of `class`:
    /// parsed whole; `None`, with nothing consumed, when the template
    /// ahead declares something else.
    fn ctor_template(&mut self, class: &str) -> Result<Option<Ctor>> {
        let start = self.pos;
        self.bump(); // template
        let tparams = match self.at(Tok::Lt).then(|| self.template_params()) {
            Some(Ok(t)) => t,
            // Not a template head here: `template_item` reports it.
            _ => {
                self.pos = start;
                return Ok(None);
            }
        };
        let mut i = 0;
        while ["constexpr", "inline", "explicit"].iter().any(|k| self.peek_at(i).is_ident(k)) {
            i += 1;
        }
        if !(self.peek_at(i).is_ident(class) && self.peek_at(i + 1).is(Tok::LParen)) {
            self.pos = start;
            return Ok(None);
        }
        for _ in 0..i {
            self.bump();
        }
        let span = self.bump().span;
        self.ctor_rest(span, Some(tparams)).map(Some)
    }

    pub(crate) fn skip_parens(&mut self) -> Result<()> {
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

    pub(super) fn class(&mut self, tparams: Option<Vec<TParam>>) -> Result<Class> {
        self.node(|p| p.class_inner(tparams))
    }

    fn class_inner(&mut self, tparams: Option<Vec<TParam>>) -> Result<Class> {
        let in_typedef = std::mem::take(&mut self.typedef_class);
        let kw = self.bump();
        let is_union = &*kw.text == "union";
        // `alignas(N)` or GCC's `__attribute__((aligned(N)))` with a
        // number: the class's alignment (other attributes, and alignments
        // given by a type or an expression, are skipped).
        let end = self.attributes_end(0);
        let align = (0..end)
            .find_map(|i| {
                let at = |k: usize| self.peek_at(i + k);
                ((at(0).is_ident("alignas") || at(0).is_ident("aligned") || at(0).is_ident("__aligned__"))
                    && at(1).is(Tok::LParen)
                    && at(2).is(Tok::Number)
                    && at(3).is(Tok::RParen))
                .then(|| at(2).text.parse::<u32>().ok())
                .flatten()
            })
            .filter(|a| a.is_power_of_two() && *a <= 4096);
        self.skip_attributes()?;
        // An anonymous struct or union (`union { int i; float f; };` in a
        // class): a name no source can spell; the caller reads what
        // follows its `}`.
        let anonymous = self.at(Tok::LBrace);
        let (name, span) = if anonymous {
            let span = self.span();
            (format!("<anonymous {}:{}>", span.file, span.lo), span)
        } else {
            self.ident()?
        };
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
            return Ok(Class {
                span,
                name,
                tparams,
                spec_args,
                bases,
                members: Vec::new(),
                align,
                is_union,
                defined: false,
                virtual_dtor: false,
            });
        }
        self.expect(Tok::LBrace, "'{'")?;
        let mut virtual_dtor = false;
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
            self.member(&name, &mut members, &mut virtual_dtor)?;
        }
        self.skip_attributes()?;
        if !anonymous && !in_typedef {
            self.expect(Tok::Semi, "';' after class definition")?;
        }
        // Classes declared in a method's body become nested classes, which
        // see the class's parameters and member types as the body does.
        let mut local = Vec::new();
        for m in &mut members {
            if let Member::Method(f) = m {
                local.extend(hoist_local_classes(f));
            }
        }
        members.extend(local.into_iter().map(|c| Member::Item(Item::Class(c))));
        Ok(Class {
            span,
            name,
            tparams,
            spec_args,
            bases,
            members,
            align,
            is_union,
            defined: true,
            virtual_dtor,
        })
    }

    /// After `friend`: a function defined here is kept as a hidden friend
    /// of the class; friend classes and friend declarations of functions
    /// defined elsewhere change nothing popc checks (it ignores access).
    fn friend(&mut self, members: &mut Vec<Member>) -> Result<()> {
        if (self.at_kw("class") || self.at_kw("struct") || self.at_kw("union"))
            && !self.peek_at(2).is(Tok::LBrace)
        {
            while !self.eat(Tok::Semi) {
                if self.at(Tok::Eof) {
                    return self.expect(Tok::Semi, "';'").map(|_| ());
                }
                self.bump();
            }
            return Ok(());
        }
        let span = self.span();
        match self.decl_item(None)? {
            Item::Function(f) if f.body.is_some() => {
                members.push(Member::Method(Function { is_friend: true, is_static: true, ..f }))
            }
            Item::Function(_) => {}
            _ => return err(span, "a friend declaration names a class or a function"),
        }
        Ok(())
    }

    fn member(&mut self, class: &str, members: &mut Vec<Member>, virtual_dtor: &mut bool) -> Result<()> {
        self.skip_attributes()?;
        // `virtual ~C()`: a destructor, which may do nothing only.
        if self.at_kw("virtual") && self.peek_at(1).is(Tok::Tilde) {
            self.bump();
            *virtual_dtor = true;
        }
        let t = self.peek().clone();
        if !(t.is_ident("virtual")) {
            self.check_keyword(&t)?;
        }
        if self.eat_kw("friend") {
            return self.friend(members);
        }
        if self.at_kw("using") || self.at_kw("typedef") || self.at_kw("enum") || self.at_kw("static_assert") {
            match self.item()? {
                // `typedef struct Tag { … } Name;`: the class and its alias.
                Item::Namespace(n, items) if n.is_empty() => {
                    members.extend(items.into_iter().map(Member::Item))
                }
                it => members.push(Member::Item(it)),
            }
            return Ok(());
        }
        if self.class_head_name().is_some() {
            let c = self.class(None)?;
            members.push(Member::Item(Item::Class(c)));
            return Ok(());
        }
        if (self.at_kw("struct") || self.at_kw("union"))
            && self.peek_at(self.attributes_end(1)).is(Tok::LBrace)
        {
            return self.anonymous_member(members);
        }
        if self.at_kw("template") {
            if let Some(k) = self.ctor_template(class)? {
                members.push(Member::Ctor(k));
                return Ok(());
            }
            let it = self.template_item()?;
            members.push(Member::Item(it));
            return Ok(());
        }
        // `constexpr C(…)`, `inline explicit C(…)`: a constructor's
        // specifiers, which change nothing here.
        let mut i = 0;
        while ["constexpr", "inline", "explicit"].iter().any(|k| self.peek_at(i).is_ident(k)) {
            i += 1;
        }
        if i > 0 && self.peek_at(i).is_ident(class) && self.peek_at(i + 1).is(Tok::LParen) {
            while self.at_kw("constexpr") || self.at_kw("inline") {
                self.bump();
            }
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
            members.push(Member::Ctor(self.ctor_rest(span, None)?));
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
                is_constexpr: v.is_constexpr,
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
                                    is_constexpr: v.is_constexpr,
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
}

impl Parser {
    /// `union { … };` or `struct { … };` in a class: an anonymous member,
    /// whose members are the enclosing class's (a field named
    /// [`ANON_FIELD`]…); or `union { … } u, v;`: fields of an unnamed type.
    fn anonymous_member(&mut self, members: &mut Vec<Member>) -> Result<()> {
        let c = self.class(None)?;
        let span = c.span;
        let seg = Seg { name: c.name.clone(), args: None };
        let ty = TypeName {
            span,
            kind: TypeKind::Named(Path { span, global: false, segs: vec![seg] }),
            is_const: false,
        };
        let mut names = Vec::new();
        if self.eat(Tok::Semi) {
            names.push((format!("{ANON_FIELD}{}>", c.name), span, Vec::new()));
        } else {
            loop {
                let (n, nspan) = self.ident()?;
                let depth = self.depth;
                let dims = self.array_bounds()?;
                self.depth = depth;
                names.push((n, nspan, dims));
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::Semi, "';'")?;
        }
        members.push(Member::Item(Item::Class(c)));
        members.push(Member::Field(FieldDecl {
            span,
            ty,
            names,
            is_static: false,
            is_constexpr: false,
            init: None,
        }));
        Ok(())
    }
}

/// The name prefix of an anonymous struct or union member of a class: its
/// members are found as the class's own.
pub const ANON_FIELD: &str = "<anon ";

/// Takes the classes declared in `f`'s body (in any block) out of it,
/// leaving empty statements: popc declares them beside `f` (as nested
/// classes of a method's class, or in a function's namespace), where the
/// body finds them by the same name.
pub(crate) fn hoist_local_classes(f: &mut Function) -> Vec<Class> {
    fn walk(stmts: &mut [Stmt], out: &mut Vec<Class>) {
        for s in stmts {
            match &mut s.kind {
                StmtKind::Item(it) if matches!(**it, Item::Class(_)) => {
                    let Item::Class(c) = std::mem::replace(&mut **it, Item::Namespace(String::new(), vec![]))
                    else {
                        continue;
                    };
                    out.push(c);
                    s.kind = StmtKind::Empty;
                }
                StmtKind::Block(b) => walk(b, out),
                _ => {}
            }
        }
    }
    let Some(body) = &f.body else { return vec![] };
    let has_class = |stmts: &[Stmt]| {
        fn any(stmts: &[Stmt]) -> bool {
            stmts.iter().any(|s| match &s.kind {
                StmtKind::Item(it) => matches!(**it, Item::Class(_)),
                StmtKind::Block(b) => any(b),
                _ => false,
            })
        }
        any(stmts)
    };
    if !has_class(body) {
        return vec![];
    }
    let mut stmts = body.to_vec();
    let mut out = Vec::new();
    walk(&mut stmts, &mut out);
    f.body = Some(stmts.into());
    out
}

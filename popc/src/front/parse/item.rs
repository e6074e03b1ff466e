//! Items at namespace scope: the unit's item list, namespaces, `using`,
//! `static_assert`, enumerations, and the attributes skipped wherever C++
//! allows them. Part of [`super::Parser`].

use super::*;

impl Parser {
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

    pub(super) fn skip_attributes(&mut self) -> Result<()> {
        while self.at(Tok::LBracket) && self.peek_at(1).is(Tok::LBracket) {
            self.refuse_vector_attribute()?;
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
            self.refuse_vector_attribute()?;
            self.skip_parens()?;
        }
        Ok(())
    }

    /// The type an alias names (`typedef T *name`, `using name = T *`): a
    /// type, its attributes (GCC's place for them:
    /// `typedef float __attribute__((aligned(8))) f8;`), then pointer and
    /// reference declarators.
    pub(super) fn alias_type(&mut self) -> Result<TypeName> {
        let ty = self.type_name()?;
        let ty = self.alias_attributes(ty)?;
        let ty = self.nested(|p| p.ptr_declarator(ty))?;
        if let TypeKind::Ref(_) = ty.kind {
            // Whether a declaration binds a reference is read from where it
            // is written, so an alias would silently make it a copy.
            return err(
                ty.span,
                "an alias of a reference type is not supported; write the '&' where it is used",
            );
        }
        Ok(ty)
    }

    /// The attributes of an alias ahead, skipped except a vector attribute
    /// (`vector_size(BYTES)`, `ext_vector_type(N)`), which makes `ty` a
    /// vector of it ([`TypeKind::Vector`]).
    fn alias_attributes(&mut self, mut ty: TypeName) -> Result<TypeName> {
        loop {
            let gnu = self.at_kw("__attribute__")
                && self.peek_at(1).is(Tok::LParen)
                && self.peek_at(2).is(Tok::LParen);
            if !gnu {
                if !(self.at(Tok::LBracket) || self.at_kw("alignas")) {
                    return Ok(ty);
                }
                self.refuse_vector_attribute()?;
                let end = self.attributes_end(0);
                if end == 0 {
                    return Ok(ty);
                }
                for _ in 0..end {
                    self.bump();
                }
                continue;
            }
            self.bump();
            self.bump();
            self.bump();
            while !self.at(Tok::RParen) {
                let t = self.bump();
                if t.kind != Tok::Ident {
                    return err(t.span, "expected an attribute name");
                }
                let name = t.text.trim_matches('_');
                if matches!(name, "vector_size" | "ext_vector_type") {
                    self.expect(Tok::LParen, "'('")?;
                    let size = self.assign_expr()?;
                    self.expect(Tok::RParen, "')'")?;
                    let bytes = name == "vector_size";
                    ty = TypeName {
                        span: t.span,
                        kind: TypeKind::Vector(Box::new(VectorAttr { elem: ty, size, bytes })),
                        is_const: false,
                    };
                } else if self.at(Tok::LParen) {
                    self.skip_parens()?;
                }
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "')'")?;
            self.expect(Tok::RParen, "')'")?;
        }
    }

    /// An error for a vector type made with an attribute (`vector_size`,
    /// `ext_vector_type`) in the attribute ahead (`__attribute__((…))`
    /// outside an alias, or `[[gnu::…]]` anywhere): skipping it would
    /// silently make the type a scalar.
    fn refuse_vector_attribute(&self) -> Result<()> {
        let mut level = 0;
        for i in 0.. {
            let t = self.peek_at(i);
            match t.kind {
                Tok::LParen | Tok::LBracket => level += 1,
                Tok::RParen | Tok::RBracket => level -= 1,
                Tok::Eof => break,
                _ => {}
            }
            let name = t.text.trim_matches('_');
            if t.kind == Tok::Ident && matches!(name, "vector_size" | "ext_vector_type") {
                return err(
                    t.span,
                    format!(
                        "vector attribute '{}' is supported only as __attribute__(({name}(N))) on a typedef or \
                         'using' alias; or use the built-in vector types (float2, half4, int2, ...)",
                        t.text
                    ),
                );
            }
            if level == 0 {
                break;
            }
        }
        Ok(())
    }

    /// The index (from the current token) just past the attributes that
    /// start `i` tokens ahead: `[[...]]`, `alignas(...)`, `__attribute__((...))`.
    pub(super) fn attributes_end(&self, mut i: usize) -> usize {
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

    pub(super) fn item(&mut self) -> Result<Item> {
        let it = self.node(Self::item_inner)?;
        // Classes declared in a function's body join its namespace.
        if let Item::Function(mut f) = it {
            let local = super::class::hoist_local_classes(&mut f);
            if local.is_empty() {
                return Ok(Item::Function(f));
            }
            let mut items: Vec<Item> = local.into_iter().map(Item::Class).collect();
            items.push(Item::Function(f));
            return Ok(Item::Namespace(String::new(), items));
        }
        Ok(it)
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
                let ty = self.alias_type()?;
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
            if let Some(c) = self.typedef_class()? {
                return Ok(c);
            }
            let ty = self.alias_type()?;
            let (name, span) = self.ident()?;
            let ty = self.alias_attributes(ty)?;
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

    /// After `typedef`: C's `typedef struct [Tag] { … } Name;`, a class
    /// definition named by the typedef. An unnamed class takes the
    /// typedef's name (as C++ gives it for linkage); a named one keeps its
    /// own, and the typedef is an alias of it. `None` when no class
    /// definition follows.
    fn typedef_class(&mut self) -> Result<Option<Item>> {
        if !(self.at_kw("struct") || self.at_kw("class") || self.at_kw("union")) {
            return Ok(None);
        }
        let i = self.attributes_end(1);
        let defines = self.peek_at(i).is(Tok::LBrace)
            || (self.peek_at(i).is(Tok::Ident)
                && matches!(self.peek_at(i + 1).kind, Tok::LBrace | Tok::Colon));
        if !defines {
            return Ok(None);
        }
        self.typedef_class = true;
        let mut c = self.class(None)?;
        let (name, span) = self.ident()?;
        self.expect(Tok::Semi, "';' (popc takes one name in a 'typedef' of a class definition)")?;
        self.types.insert(name.clone());
        if c.name.starts_with("<anonymous") {
            c.name = name;
            return Ok(Some(Item::Class(c)));
        }
        if c.name == name {
            return Ok(Some(Item::Class(c)));
        }
        let path = Path { span, global: false, segs: vec![Seg { name: c.name.clone(), args: None }] };
        let ty = TypeName { span, kind: TypeKind::Named(path), is_const: false };
        Ok(Some(Item::Namespace(String::new(), vec![Item::Class(c), Item::Alias(span, name, None, ty)])))
    }

    pub(super) fn static_assert(&mut self) -> Result<(Span, Expr, Option<String>)> {
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
}

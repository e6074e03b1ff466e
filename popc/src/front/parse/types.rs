//! Types of the codelet C++ subset: declarators, pointer and reference
//! forms, scalar keywords, qualified paths and template argument lists.
//! Part of [`super::Parser`].

use super::*;

impl Parser {
    /// A type with its pointer and reference declarators (`const T *&`),
    /// as in casts, `sizeof`, template arguments and parameters. With
    /// `params`, a pack (`T...`) is rejected first.
    pub(crate) fn type_ptr(&mut self, params: bool) -> Result<TypeName> {
        self.nested(|p| {
            let ty = p.type_name()?;
            if params && p.at(Tok::Ellipsis) {
                return err(p.span(), "variadic templates are not supported in codelets");
            }
            p.depth = p.depth.max(p.peak);
            p.ptr_declarator(ty)
        })
    }

    /// `*`, `&`, `&&` and qualifiers after a type, each `*` or `&` one level
    /// deeper than the last; the caller puts `depth` on top of `ty` and
    /// restores it after the declarator.
    pub(crate) fn ptr_declarator(&mut self, mut ty: TypeName) -> Result<TypeName> {
        loop {
            let span = self.span();
            if self.at(Tok::Star) {
                self.enter()?;
                self.bump();
                ty = TypeName { span, kind: TypeKind::Ptr(Box::new(ty)), is_const: false };
            } else if self.at(Tok::Amp) || self.at(Tok::AndAnd) {
                self.enter()?;
                self.bump();
                ty = TypeName { span, kind: TypeKind::Ref(Box::new(ty)), is_const: false };
            } else if self.eat_kw("const") || self.eat_kw("__restrict") || self.eat_kw("__restrict__") {
                ty.is_const = true;
            } else if self.eat_kw("volatile") {
            } else if self.at_kw("__attribute__") || self.at_kw("alignas") {
                self.skip_attributes()?;
            } else {
                return Ok(ty);
            }
        }
    }

    // ---------------------------------------------------------------- types

    /// Whether a type starts here (without consuming anything).
    pub(crate) fn at_type(&self) -> bool {
        let t = self.peek();
        if t.kind == Tok::ColonColon {
            return true;
        }
        if t.kind != Tok::Ident {
            return false;
        }
        let s = &*t.text;
        if scalar_keyword(s)
            || matches!(s, "const" | "volatile" | "typename" | "struct" | "decltype" | "constexpr")
        {
            return true;
        }
        if self.types.contains(s) {
            return true;
        }
        // Qualified name whose last segment is a type.
        let mut i = 0;
        while self.peek_at(i).is(Tok::Ident) && self.peek_at(i + 1).is(Tok::ColonColon) {
            i += 2;
        }
        i > 0 && self.peek_at(i).is(Tok::Ident) && self.types.contains(&*self.peek_at(i).text)
    }

    pub fn type_name(&mut self) -> Result<TypeName> {
        self.node(Self::type_name_inner)
    }

    pub(crate) fn type_name_inner(&mut self) -> Result<TypeName> {
        let span = self.span();
        let mut is_const = false;
        loop {
            // Attributes may sit among the qualifiers (`const
            // __attribute__((align_value(8))) T *p`).
            self.skip_attributes()?;
            if self.eat_kw("const") {
                is_const = true;
            } else if !(self.eat_kw("volatile") || self.eat_kw("typename") || self.eat_kw("struct")) {
                break;
            }
        }
        let t = self.peek().clone();
        self.check_keyword(&t)?;
        let kind = if t.kind == Tok::Ident && scalar_keyword(&t.text) {
            self.scalar_type()?
        } else if t.is_ident("decltype") {
            self.bump();
            self.expect(Tok::LParen, "'('")?;
            let e = self.expr()?;
            self.expect(Tok::RParen, "')'")?;
            TypeKind::Decltype(Box::new(e))
        } else if t.kind == Tok::Ident || t.kind == Tok::ColonColon {
            TypeKind::Named(self.path()?)
        } else {
            return err(t.span, format!("expected a type, found '{}'", t.text));
        };
        while self.eat_kw("const") || self.eat_kw("volatile") {
            is_const = true;
        }
        Ok(TypeName { span: Self::join(span, self.prev_span()), kind, is_const })
    }

    pub(crate) fn scalar_type(&mut self) -> Result<TypeKind> {
        let mut unsigned = None;
        let mut longs = 0;
        let mut base: Option<&str> = None;
        let span = self.span();
        loop {
            let t = self.peek().clone();
            match &*t.text {
                "unsigned" if t.kind == Tok::Ident => unsigned = Some(true),
                "signed" if t.kind == Tok::Ident => unsigned = Some(false),
                "long" if t.kind == Tok::Ident => longs += 1,
                "short" | "int" | "char" | "bool" | "float" | "double" | "void" | "auto"
                    if t.kind == Tok::Ident && base.is_none() =>
                {
                    base = Some(match &*t.text {
                        "short" => "short",
                        "int" => "int",
                        "char" => "char",
                        "bool" => "bool",
                        "float" => "float",
                        "double" => "double",
                        "void" => "void",
                        _ => "auto",
                    })
                }
                "int" if t.kind == Tok::Ident && base == Some("short") => {}
                "const" | "volatile" if t.kind == Tok::Ident => {}
                _ => break,
            }
            self.bump();
        }
        let u = unsigned == Some(true);
        Ok(match (base, longs) {
            (Some("void"), 0) => TypeKind::Void,
            (Some("auto"), 0) => TypeKind::Auto,
            (Some("bool"), 0) => TypeKind::Scalar(Scalar::Bool),
            (Some("float"), 0) => TypeKind::Scalar(Scalar::Float),
            (Some("double"), _) => TypeKind::Scalar(Scalar::Double),
            (Some("char"), 0) => TypeKind::Scalar(match unsigned {
                None => Scalar::Char,
                Some(true) => Scalar::UChar,
                Some(false) => Scalar::SChar,
            }),
            (Some("short"), 0) => TypeKind::Scalar(if u { Scalar::UShort } else { Scalar::Short }),
            (Some("int") | None, 0) => TypeKind::Scalar(if u { Scalar::UInt } else { Scalar::Int }),
            (Some("int") | None, 1) => TypeKind::Scalar(if u { Scalar::ULong } else { Scalar::Long }),
            (Some("int") | None, _) => TypeKind::Scalar(if u { Scalar::ULongLong } else { Scalar::LongLong }),
            _ => return err(span, "invalid combination of type specifiers"),
        })
    }

    pub(crate) fn path(&mut self) -> Result<Path> {
        let span = self.span();
        let global = self.eat(Tok::ColonColon);
        let mut segs = Vec::new();
        loop {
            self.eat_kw("template");
            let (name, _) = self.ident()?;
            let args = if self.at(Tok::Lt) && self.templates.contains(&name) {
                Some(self.template_args()?)
            } else {
                None
            };
            segs.push(Seg { name, args });
            if self.at(Tok::ColonColon) && self.peek_at(1).is(Tok::Ident) {
                self.enter()?;
                self.bump();
                continue;
            }
            break;
        }
        Ok(Path { span: Self::join(span, self.prev_span()), global, segs })
    }

    pub(crate) fn template_args(&mut self) -> Result<Vec<TArg>> {
        self.node(Self::template_args_inner)
    }

    pub(crate) fn template_args_inner(&mut self) -> Result<Vec<TArg>> {
        self.expect(Tok::Lt, "'<'")?;
        let mut args = Vec::new();
        if self.at(Tok::Gt) {
            self.bump();
            return Ok(args);
        }
        loop {
            if self.at_type() && (!self.peek_at(1).is(Tok::LParen) || self.at_kw("decltype")) {
                let save = self.pos;
                let ty = self.type_ptr(false)?;
                if self.at(Tok::Comma) || self.at(Tok::Gt) {
                    args.push(TArg::Type(ty));
                } else {
                    self.pos = save;
                    args.push(TArg::Expr(self.template_arg_expr()?));
                }
            } else {
                args.push(TArg::Expr(self.template_arg_expr()?));
            }
            if self.at(Tok::Ellipsis) {
                return err(self.span(), "variadic templates are not supported in codelets");
            }
            if self.eat(Tok::Comma) {
                continue;
            }
            self.close_angle()?;
            break;
        }
        Ok(args)
    }

    /// A conditional expression in which `>` closes the argument list.
    pub(crate) fn template_arg_expr(&mut self) -> Result<Expr> {
        self.nested(|p| {
            let c = p.binary(0, true)?;
            if !p.at(Tok::Question) {
                return Ok(c);
            }
            p.link()?;
            let span = p.bump().span;
            let a = p.template_arg_expr()?;
            p.expect(Tok::Colon, "':'")?;
            let b = p.template_arg_expr()?;
            Ok(Expr { span, kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)) })
        })
    }

    // ----------------------------------------------------------- statements
}

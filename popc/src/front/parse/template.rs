//! Templates: parameter lists (type, value and template template
//! parameters with defaults) and the items they introduce, whose names the
//! parser must learn to parse `X<b>` as a template-id. Part of
//! [`super::Parser`].

use super::*;

impl Parser {
    pub(super) fn template_params(&mut self) -> Result<Vec<TParam>> {
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
                let name = self.tparam_name(ps.len())?;
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
                let name = self.tparam_name(ps.len())?;
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

    /// A template parameter's name, or for an unnamed one (`class = void`,
    /// `std::enable_if_t<C, bool> = true`) a name no source can spell.
    fn tparam_name(&mut self, index: usize) -> Result<String> {
        if self.at(Tok::Comma) || self.at(Tok::Assign) || self.at(Tok::Gt) {
            return Ok(format!("<unnamed {index}>"));
        }
        Ok(self.ident()?.0)
    }

    pub(super) fn template_item(&mut self) -> Result<Item> {
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
            let ty = self.alias_type()?;
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
}

//! Compute set members: vertices with their type names (template
//! arguments spelled as Poplar spells them), tiles and fields (edges to
//! tensor views, scalar state). Part of [`super::Lowerer`].

use std::fmt::Write;

use vocab::{TemplateArg, VertexName};

use super::*;

impl Lowerer {
    pub(super) fn lower_cs_item(&mut self, cs: ComputeSetId, it: &CsItem<'_>, out: &mut Vec<VertexId>) {
        match it {
            CsItem::For(f) => self.for_loop(f, |l, b: &CsItem<'_>| l.lower_cs_item(cs, b, out)),
            CsItem::Vertex(v) => {
                if self.tick(v.span).is_err() {
                    return;
                }
                if let Ok(id) = self.lower_vertex(cs, v) {
                    out.push(id);
                }
            }
        }
    }

    /// The vertex type a PIR type names, as Poplar names it: PIR's scalar
    /// types become C++'s, a bare name (not a loop variable) is a type or
    /// enumerator as written, an integer expression its value.
    fn vtype_name(&mut self, t: &ast::VType<'_>) -> R<VertexName> {
        let mut args = Vec::with_capacity(t.args.as_ref().map_or(0, Vec::len));
        for a in t.args.iter().flatten() {
            args.push(match a {
                TArg::Scalar(s) => TemplateArg::Type(elem_type(s).cpp_name()),
                TArg::Bool(b) => TemplateArg::Bool(*b),
                TArg::Type(t) if t.args.is_none() => self.template_word(&t.path, t.span)?,
                TArg::Type(t) => TemplateArg::Name(self.vtype_name(t)?),
                TArg::Expr(e) => match &e.kind {
                    ExprKind::Name(n) if self.lookup_var(n).is_none() => self.template_word(n, e.span)?,
                    ExprKind::Bool(b) => TemplateArg::Bool(*b),
                    _ => TemplateArg::Int(self.eval_int(e)?.into()),
                },
            });
        }
        Ok(VertexName { path: t.path.to_string(), args })
    }

    /// A template argument written as a (qualified) name: a C++ type name
    /// (`unsigned`, `uint32_t`), a class or an enumerator.
    fn template_word(&mut self, word: &str, span: Span) -> R<TemplateArg> {
        TemplateArg::parse(word).map_err(|m| self.err(span, m))
    }

    fn lower_vertex(&mut self, cs: ComputeSetId, v: &ast::VertexAst<'_>) -> R<VertexId> {
        let vtype = if v.vtype.args.is_none() {
            self.intern(&v.vtype.path)
        } else {
            let name = self.vtype_name(&v.vtype)?;
            let mut buf = std::mem::take(&mut self.name_buf);
            buf.clear();
            let _ = write!(buf, "{name}");
            let vtype = self.intern(&buf);
            self.name_buf = buf;
            vtype
        };
        let tile = match &v.tile {
            None => None,
            Some(e) => {
                let t = self.eval_int(e)?;
                let total = self.graph.target.total_tiles();
                if t < 0 || t >= total as i64 {
                    return Err(self.error(tile_out_of_range(e.span, t, total)));
                }
                Some(t as u32)
            }
        };
        let cycles = match &v.cycles {
            None => None,
            Some(e) => {
                let c = self.eval_int(e)?;
                if c < 0 {
                    return Err(self.err(e.span, format!("cycles must not be negative, not {c}")));
                }
                Some(c as u64)
            }
        };
        let mut fields: Vec<Field> = Vec::with_capacity(v.fields.len());
        let mut bad = false;
        for (i, ast::FieldAst(fname, val, _)) in v.fields.iter().enumerate() {
            if let Some(j) = v.fields[..i].iter().position(|f| f.0.name == fname.name) {
                let prev = v.fields[j].0.span;
                self.error(
                    Diagnostic::error(fname.span, format!("field `{}` is set twice", fname.name))
                        .with_secondary(prev, "first set here"),
                );
                bad = true;
                continue;
            }
            match self.lower_field(val) {
                Ok(value) => fields.push(Field { name: self.intern(fname.name), value }),
                Err(_) => bad = true,
            }
        }
        if bad {
            return Err(Reported);
        }
        let id = self.graph.vertices.push(Vertex { vtype, compute_set: cs, tile, fields, cycles });
        self.spans.vertices.set(id, v.span);
        self.spans.set_fields(id, v.fields.iter().map(|f| f.2));
        self.spans.vertex_iterations.record(id.0 as usize, &self.env);
        Ok(id)
    }

    fn lower_field(&mut self, e: &Expr<'_>) -> R<FieldValue> {
        match &e.kind {
            ExprKind::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                let mut bad = false;
                for it in items {
                    match self.eval_view(it) {
                        Ok((v, _)) => out.push(v),
                        Err(_) => bad = true,
                    }
                }
                if bad {
                    Err(Reported)
                } else {
                    Ok(FieldValue::EdgeList(out))
                }
            }
            ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Int(_)
            | ExprKind::Neg(_)
            | ExprKind::Bin(..) => Ok(FieldValue::Literal(match self.eval_value(e)? {
                Value::Float(f) => Literal::Float(f),
                Value::Bool(b) => Literal::Bool(b),
                Value::Int(i) => Literal::Int(
                    i64::try_from(i).map_err(|_| self.err(e.span, format!("integer {i} is out of range")))?,
                ),
            })),
            ExprKind::Name(n) if self.lookup_var(n).is_some() && !self.syms.contains_key(*n) => {
                Ok(FieldValue::Literal(Literal::Int(self.eval_int(e)?)))
            }
            ExprKind::Call(c) if c.0.name == "min" || c.0.name == "max" => {
                Ok(FieldValue::Literal(Literal::Int(self.eval_int(e)?)))
            }
            ExprKind::TargetProp(_) => Ok(FieldValue::Literal(Literal::Int(self.eval_int(e)?))),
            _ => Ok(FieldValue::Edge(self.eval_view(e)?.0)),
        }
    }
}

//! Templates: arguments bound to a template's parameters (defaults
//! included), and class instantiation by substitution, choosing the most
//! specialised matching specialisation, memoised and bounded
//! ([`MAX_INSTANTIATIONS`], [`MAX_INSTANTIATION_DEPTH`]).

use std::rc::Rc;

use super::types::Scalar;
use super::{
    ceval, spell_tval, ClassDecl, ClassInst, Env, TVal, Ty, Unit, CV, MAX_INSTANTIATIONS,
    MAX_INSTANTIATION_DEPTH,
};
use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::hash::HashMap;

impl Unit {
    /// Binds template parameters to arguments (with defaults).
    pub fn bind_args(
        &self,
        tp: &[TParam],
        args: &[TArg],
        env: &Env,
        tb: &mut HashMap<String, TVal>,
        span: Span,
    ) -> Result<()> {
        self.bind_args_in(tp, args, env, &env.ns, tb, span)
    }

    /// [`Unit::bind_args`] for a template declared in namespace `scope`:
    /// its parameters' types and its defaults are looked up there, the
    /// arguments in `env` (`lib::Bin<lib::Kind::ADD>` named from outside
    /// `lib`, where `Bin`'s parameter is a `Kind`).
    pub fn bind_args_in(
        &self,
        tp: &[TParam],
        args: &[TArg],
        env: &Env,
        scope: &str,
        tb: &mut HashMap<String, TVal>,
        span: Span,
    ) -> Result<()> {
        if args.len() > tp.len() {
            return err(span, format!("too many template arguments ({} for {})", args.len(), tp.len()));
        }
        let in_scope =
            |e: &Env| if e.ns == scope { e.clone() } else { Env { ns: scope.to_string(), ..e.clone() } };
        for (i, p) in tp.iter().enumerate() {
            let (a, aenv) = match args.get(i) {
                Some(a) => (a.clone(), env.clone()),
                None => match &p.default {
                    Some(d) => (d.clone(), in_scope(&Env { tb: Rc::new(tb.clone()), ..env.clone() })),
                    None => return err(span, format!("missing template argument for '{}'", p.name)),
                },
            };
            let v = match &p.kind {
                TParamKind::Type => TVal::Type(self.targ_type(&a, &aenv)?),
                TParamKind::Value(t) => {
                    let ty = self.resolve_type(t, &in_scope(&aenv))?;
                    let (_, v) = self.targ_const(&a, &aenv)?;
                    let s = ty.scalar().unwrap_or(Scalar::Int);
                    TVal::Const(s, ceval::convert(v, s))
                }
            };
            tb.insert(p.name.clone(), v);
        }
        Ok(())
    }

    /// Instantiates a class (template) with arguments: binds the primary
    /// template's parameters, then picks the most specialised matching
    /// (partial or full) specialisation, if any (`spec`).
    pub fn instantiate(
        &self,
        decls: &[Rc<ClassDecl>],
        args: &[TArg],
        env: &Env,
        span: Span,
    ) -> Result<Rc<ClassInst>> {
        // The primary template: the definition rather than a forward declaration.
        let primaries = || decls.iter().filter(|d| d.ast.spec_args.is_none());
        let primary = primaries()
            .find(|d| !d.ast.members.is_empty() || !d.ast.bases.is_empty())
            .or_else(|| primaries().next())
            .or(decls.first())
            .unwrap();
        // A class nested in a class template sees the enclosing
        // instantiation's parameters, and is named inside it.
        let outer: Option<Rc<ClassInst>> = env.class.as_ref().and_then(|c| {
            if c.decl.qual == primary.ns {
                Some(c.clone())
            } else if c.decl.ns == primary.ns {
                c.outer.clone()
            } else {
                None
            }
        });
        let mut tb = outer.as_ref().map(|o| (*o.env.tb).clone()).unwrap_or_default();
        let mut chosen = (primary.clone(), None);
        let mut key = Vec::new();
        if let Some(tp) = &primary.ast.tparams {
            self.bind_args_in(tp, args, env, &primary.ns, &mut tb, span)?;
            key = tp.iter().map(|p| tb[&p.name].clone()).collect();
        } else if !args.is_empty() {
            return err(span, format!("'{}' is not a template", primary.qual));
        }
        let base_name = match &outer {
            Some(o) => format!("{}::{}", o.name, primary.ast.name),
            None => primary.qual.clone(),
        };
        let name = match &primary.ast.tparams {
            Some(tp) => {
                let penv = Env { ns: primary.ns.clone(), ..Env::default() };
                let parts: Vec<String> = tp.iter().map(|p| self.spell_targ(p, &tb[&p.name], &penv)).collect();
                let spelled = || format!("{base_name}<{}>", parts.join(","));
                // An IPU vector type goes by its own name (`float2`).
                match (&primary.ns[..], &parts[..]) {
                    ("", [elem, mask]) => crate::front::vector_types::vector_instance(&base_name, elem, mask)
                        .map_or_else(spelled, |v| v.name.to_string()),
                    _ => spelled(),
                }
            }
            None => base_name,
        };
        if let Some(c) = self.cache.borrow().get(&name) {
            return Ok(c.clone());
        }
        // The specialisation is picked once per instance (the name depends
        // only on the arguments).
        if primary.ast.tparams.is_some() {
            if let Some((d, b)) = self.pick_specialisation(decls, primary, &key, span)? {
                chosen = (d, Some(b));
            }
        }
        if self.building.borrow().contains(&name) {
            // Named while its own definition is being built (in its base
            // clause, as a template argument): an incomplete class, which
            // is all C++ gives there too.
            let (decl, _) = &chosen;
            return Ok(Rc::new(ClassInst {
                name,
                decl: decl.clone(),
                env: Env { ns: decl.ns.clone(), ..Env::default() },
                targs: key,
                outer,
                base: None,
                fields: Vec::new(),
                refs: Vec::new(),
                size: 0,
                align: 1,
                tag: None,
            }));
        }
        if self.cache.borrow().len() >= MAX_INSTANTIATIONS {
            return err(span, format!("more than {MAX_INSTANTIATIONS} class template instances in one compilation (popc's limit)"));
        }
        {
            let mut d = self.depth.borrow_mut();
            *d += 1;
            if *d > MAX_INSTANTIATION_DEPTH {
                *d -= 1;
                return err(span, format!("template instantiation depth exceeds {MAX_INSTANTIATION_DEPTH}"));
            }
        }
        let (decl, bound) = chosen;
        let tb = match (bound, &outer) {
            (Some(mut b), Some(o)) => {
                for (k, v) in o.env.tb.iter() {
                    b.entry(k.clone()).or_insert_with(|| v.clone());
                }
                b
            }
            (Some(b), None) => b,
            (None, _) => tb,
        };
        self.building.borrow_mut().insert(name.clone());
        let r = self.build_class(decl, name.clone(), tb, key, outer);
        self.building.borrow_mut().remove(&name);
        *self.depth.borrow_mut() -= 1;
        let c = Rc::new(r?);
        self.cache.borrow_mut().insert(name, c.clone());
        Ok(c)
    }

    /// A bound template argument as a vertex name spells it: an enum
    /// value by its qualified enumerator (`popops::expr::BinaryOpType::ADD`),
    /// as Poplar names such vertices.
    fn spell_targ(&self, p: &TParam, v: &TVal, env: &Env) -> String {
        if let (TParamKind::Value(t), TVal::Const(_, CV::I(i))) = (&p.kind, v) {
            if let Ok(Ty::Enum(e)) = self.resolve_type(t, env) {
                if let Some((n, _)) = e.values.iter().find(|(_, x)| x == i) {
                    return format!("{}::{n}", e.name);
                }
            }
        }
        spell_tval(v)
    }
}

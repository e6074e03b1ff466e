//! Choosing among a class template's specialisations: C++'s partial
//! specialisation matching and partial ordering ([temp.spec.partial]).
//!
//! A specialisation matches the primary template's bound arguments when its
//! parameters can be deduced from its argument patterns and the patterns,
//! with those parameters substituted, equal the arguments. Among matches,
//! one is more specialised than another when the other matches it too:
//! each match is tried against a key of "unique" stand-ins for its own
//! parameters (an enum type or an out-of-range constant no written
//! argument can equal). The most specialised match wins; two matches
//! neither of which is more specialised than the other are an error, never
//! a silent choice. Full specialisations (`template <>`) take the same path
//! with no parameters.

use std::rc::Rc;

use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::hash::HashMap;
use crate::sema::types::Scalar;
use crate::sema::{ClassDecl, EnumInfo, Env, TVal, Ty, Unit, CV};

/// The first of the unique constants a parameter stands for in partial
/// ordering: far outside every scalar's range, so no written argument
/// equals it, even after conversion.
const UNIQUE_BASE: i128 = 1 << 100;

/// A chosen specialisation and its parameters' bindings.
pub(crate) type Chosen = (Rc<ClassDecl>, HashMap<String, TVal>);

impl Unit {
    /// The most specialised specialisation among `decls` matching the
    /// primary's arguments `key`, with its parameters bound; `None` when
    /// no specialisation matches (the primary template is used).
    pub(crate) fn pick_specialisation(
        &self,
        decls: &[Rc<ClassDecl>],
        primary: &Rc<ClassDecl>,
        key: &[TVal],
        span: Span,
    ) -> Result<Option<Chosen>> {
        let mut matches = Vec::new();
        for d in decls.iter().filter(|d| d.ast.spec_args.is_some()) {
            if let Some(b) = self.match_spec(d, key) {
                matches.push((d.clone(), b));
            }
        }
        if matches.len() <= 1 {
            return Ok(matches.pop());
        }
        // Partial ordering: keep the matches every other match also matches.
        let at_least = |a: &ClassDecl, b: &ClassDecl| -> bool {
            let synth = self.unique_key(a);
            synth.is_some_and(|k| self.match_spec(b, &k).is_some())
        };
        let best: Vec<usize> = (0..matches.len())
            .filter(|&i| {
                (0..matches.len()).all(|j| {
                    i == j
                        || (at_least(&matches[i].0, &matches[j].0) && !at_least(&matches[j].0, &matches[i].0))
                })
            })
            .collect();
        if let [one] = best.as_slice() {
            return Ok(Some(matches.swap_remove(*one)));
        }
        let args: Vec<String> = key.iter().map(crate::sema::spell_tval).collect();
        err(
            span,
            format!(
                "ambiguous partial specialisation of '{}<{}>': {} specialisations match and none is more specialised than the others",
                primary.qual,
                args.join(","),
                matches.len()
            ),
        )
    }

    /// The specialisation's parameters deduced from `key`, if it matches.
    fn match_spec(&self, d: &ClassDecl, key: &[TVal]) -> Option<HashMap<String, TVal>> {
        let sa = d.ast.spec_args.as_ref()?;
        if sa.len() != key.len() {
            return None;
        }
        let params: Vec<TParam> = d.ast.tparams.clone().unwrap_or_default();
        let mut bound = HashMap::default();
        for (pat, k) in sa.iter().zip(key) {
            deduce(pat, k, &params, &mut bound)?;
        }
        if params.iter().any(|p| !bound.contains_key(&p.name)) {
            return None;
        }
        let env = Env { ns: d.ns.clone(), tb: Rc::new(bound.clone()), class: None };
        for (pat, k) in sa.iter().zip(key) {
            if !self.targ_equals(pat, k, &env) {
                return None;
            }
        }
        Some(bound)
    }

    /// Whether the argument pattern, resolved in `env`, is the bound value.
    fn targ_equals(&self, pat: &TArg, k: &TVal, env: &Env) -> bool {
        match k {
            TVal::Type(t) => self.targ_type(pat, env).is_ok_and(|x| x.same(t)),
            TVal::Const(s, v) => self
                .targ_const(pat, env)
                .is_ok_and(|(_, x)| x == *v || crate::sema::ceval::convert(x, *s) == *v),
        }
    }

    /// The specialisation's own arguments with each parameter replaced by
    /// a unique stand-in, for partial ordering.
    fn unique_key(&self, d: &ClassDecl) -> Option<Vec<TVal>> {
        let mut tb = HashMap::default();
        for (i, p) in d.ast.tparams.clone().unwrap_or_default().iter().enumerate() {
            let v = match &p.kind {
                TParamKind::Type => TVal::Type(Ty::Enum(Rc::new(EnumInfo {
                    name: format!("<unique {} of {}@{}>", p.name, d.qual, d.ast.span.lo),
                    underlying: Scalar::Int,
                    values: Vec::new(),
                }))),
                TParamKind::Value(t) => {
                    let env = Env { ns: d.ns.clone(), ..Env::default() };
                    let s = self.resolve_type(t, &env).ok().and_then(|t| t.scalar()).unwrap_or(Scalar::Int);
                    TVal::Const(s, CV::I(UNIQUE_BASE + i as i128))
                }
            };
            tb.insert(p.name.clone(), v);
        }
        let env = Env { ns: d.ns.clone(), tb: Rc::new(tb), class: None };
        let mut key = Vec::new();
        for a in d.ast.spec_args.as_ref()? {
            // A name bound to a constant stand-in stays that constant.
            let v = match self.targ_const(a, &env) {
                Ok((s, c)) => TVal::Const(s, c),
                Err(_) => TVal::Type(self.targ_type(a, &env).ok()?),
            };
            key.push(v);
        }
        Some(key)
    }
}

/// Deduces parameters from one argument pattern; `None` when the pattern
/// cannot match the value (a different shape), `Some` otherwise (checked
/// afterwards by substitution).
fn deduce(pat: &TArg, k: &TVal, params: &[TParam], bound: &mut HashMap<String, TVal>) -> Option<()> {
    let name = match pat {
        TArg::Type(TypeName { kind: TypeKind::Named(p), .. })
        | TArg::Expr(Expr { kind: ExprKind::Name(p), .. }) => p.simple(),
        _ => None,
    };
    if let Some(param) = name.and_then(|n| params.iter().find(|p| p.name == n)) {
        let fits = matches!(
            (&param.kind, k),
            (TParamKind::Type, TVal::Type(_)) | (TParamKind::Value(_), TVal::Const(..))
        );
        if !fits {
            return None;
        }
        return match bound.get(&param.name) {
            Some(old) if !same_tval(old, k) => None,
            _ => {
                bound.insert(param.name.clone(), k.clone());
                Some(())
            }
        };
    }
    match (pat, k) {
        (TArg::Type(TypeName { kind: TypeKind::Ptr(inner), .. }), TVal::Type(Ty::Ptr(t))) => {
            deduce(&TArg::Type((**inner).clone()), &TVal::Type((**t).clone()), params, bound)
        }
        (TArg::Type(TypeName { kind: TypeKind::Ptr(_), .. }), _) => None,
        (TArg::Type(TypeName { kind: TypeKind::Named(p), .. }), TVal::Type(Ty::Class(c))) => {
            if let Some(args) = &p.segs.last().and_then(|s| s.args.clone()) {
                if args.len() <= c.targs.len() {
                    for (a, v) in args.iter().zip(&c.targs) {
                        deduce(a, v, params, bound)?;
                    }
                }
            }
            Some(())
        }
        _ => Some(()),
    }
}

fn same_tval(a: &TVal, b: &TVal) -> bool {
    match (a, b) {
        (TVal::Type(x), TVal::Type(y)) => x.same(y),
        (TVal::Const(_, x), TVal::Const(_, y)) => x == y,
        _ => false,
    }
}

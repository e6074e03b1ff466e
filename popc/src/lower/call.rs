//! Calls of user functions and methods: finding the candidates a call may
//! name (namespace functions, methods of the current class, static and
//! member functions named through a class such as `Op<T>::fn`, methods and
//! `operator()` of a class object), choosing among overloads by how well
//! the arguments fit, class objects built by `T{...}` / `T()`, and
//! overloaded operators on class objects.
//!
//! Overload choice is C++'s in outline: every viable candidate gets a rank
//! per argument (exact, then conversion within integers or within floats,
//! then between them); the lowest total wins, and a non-template beats a
//! template of the same rank. Two best candidates with the same rank are an
//! ambiguity error.

use std::rc::Rc;

use cranelift_codegen::ir::InstBuilder;

use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::lower::{Lowerer, Place, V};
use crate::sema::{ClassInst, Env, FieldTy, Ty};

/// A function a call may name, with the environment its body sees and the
/// object it is called on (for methods).
#[derive(Clone)]
pub(crate) struct Callee {
    pub f: Function,
    pub env: Env,
    pub this: Option<V>,
}

/// The name of the method `obj(args)` calls.
pub(crate) const CALL_OPERATOR: &str = "operator()";

impl Lowerer<'_, '_> {
    /// Methods named `name` of class `c` (member templates included),
    /// called on `this` when given.
    pub(crate) fn methods(&self, c: &Rc<ClassInst>, name: &str, this: Option<&V>) -> Vec<Callee> {
        let env = Env { class: Some(c.clone()), ..c.env.clone() };
        let mut out = Vec::new();
        for m in &c.decl.ast.members {
            let f = match m {
                Member::Method(f) => f,
                Member::Item(Item::Function(f)) => f,
                _ => continue,
            };
            if f.name == name && f.body.is_some() {
                let this = if f.is_static { None } else { this.cloned() };
                out.push(Callee { f: f.clone(), env: env.clone(), this });
            }
        }
        out
    }

    /// Every function a call through path `p` may name.
    pub(crate) fn call_candidates(&self, p: &Path) -> Result<Vec<Callee>> {
        let segs: Vec<&str> = p.segs.iter().map(|s| s.name.as_str()).collect();
        let full = segs.join("::");
        let mut out = Vec::new();
        if let Some(c) = &self.env.class {
            if p.segs.len() == 1 {
                // Methods of the current class: on the current object, if any.
                let this = self.lookup("<this>");
                out.extend(self.methods(c, &full, this.as_ref()));
                if !out.is_empty() {
                    return Ok(out);
                }
            }
        }
        if p.segs.len() >= 2 {
            // `Class::fn` or `Tmpl<args>::fn`: static (or member) functions.
            let mut prefix = p.clone();
            prefix.segs.pop();
            let tn = TypeName { span: p.span, kind: TypeKind::Named(prefix), is_const: false };
            if let Ok(Ty::Class(c)) = self.p.resolve_type(&tn, &self.env) {
                let this = self.lookup("<this>");
                let this = this.filter(|t| matches!(t, V::L(Ty::Class(o), _) if Rc::ptr_eq(o, &c)));
                out.extend(self.methods(&c, p.last(), this.as_ref()));
                if out.is_empty() {
                    return err(p.span, format!("'{}' has no member function '{}'", c.name, p.last()));
                }
                return Ok(out);
            }
        }
        for q in self.p.candidates(&self.env.ns, &full, p.global) {
            if let Some(fs) = self.p.funcs.get(&q) {
                for f in fs.iter().filter(|f| f.ast.body.is_some()) {
                    out.push(Callee {
                        f: f.ast.clone(),
                        env: Env { ns: f.ns.clone(), ..Env::default() },
                        this: None,
                    });
                }
                if !out.is_empty() {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// The best viable candidate for the argument values, with its
    /// template parameters deduced; `None` when no candidate is viable.
    pub(crate) fn choose(
        &mut self,
        cands: Vec<Callee>,
        p: &Path,
        vals: &[V],
        span: Span,
    ) -> Result<Option<Callee>> {
        let mut best: Option<(u32, Callee)> = None;
        let mut tie = false;
        let mut last_err = None;
        let n = cands.len();
        for c in cands {
            if !takes(&c.f, vals.len()) {
                continue;
            }
            let env = match self.deduce(&c.f, c.env.clone(), p, vals, span) {
                Ok(e) => e,
                Err(e) => {
                    last_err = Some(e);
                    continue;
                }
            };
            let Some(rank) = self.rank(&c.f, &env, vals) else { continue };
            let is_template = c.f.tparams.as_ref().is_some_and(|t| !t.is_empty());
            let rank = rank * 2 + u32::from(is_template);
            let c = Callee { env, ..c };
            match &best {
                Some((r, _)) if *r < rank => {}
                Some((r, _)) if *r == rank => tie = true,
                _ => {
                    tie = false;
                    best = Some((rank, c));
                }
            }
        }
        if tie {
            return err(span, format!("call of overloaded '{}' is ambiguous", p.last()));
        }
        match (best, last_err) {
            (Some((_, c)), _) => Ok(Some(c)),
            (None, Some(e)) if n == 1 => Err(e),
            _ => Ok(None),
        }
    }

    /// How well the arguments fit the parameters (lower is better);
    /// `None` when some argument cannot be passed at all.
    fn rank(&self, f: &Function, env: &Env, vals: &[V]) -> Option<u32> {
        let mut total = 0;
        for (prm, v) in f.params.iter().zip(vals) {
            let t = self.p.resolve_type(crate::sema::ceval::strip_ref(&prm.ty), env).ok()?;
            total += match (&t, v) {
                (Ty::Class(a), V::L(Ty::Class(b), _)) => {
                    if a.name != b.name {
                        return None;
                    }
                    0
                }
                (Ty::Class(_), V::Void) => 1,
                (Ty::Array(..), V::L(Ty::Array(..), _)) if t.same(v_ty(v)) => 0,
                (Ty::Class(_), _) | (_, V::L(Ty::Class(_), _)) => return None,
                (Ty::Ptr(_), V::Ptr(..) | V::L(Ty::Ptr(_), _) | V::Vec { .. }) => 0,
                (Ty::Ptr(_), V::C(..)) => 2,
                (Ty::Ptr(_), _) => return None,
                (Ty::Auto, _) => 0,
                (Ty::Edge(_), V::Vec { .. } | V::List { .. } | V::Edges { .. } | V::EdgeS { .. }) => 0,
                (Ty::Edge(_), _) => return None,
                (Ty::Array(..), V::Void) => 1,
                (_, V::Void) if t.scalar().is_some() => 1,
                (t, v) => {
                    let (Some(p), Some(a)) = (t.scalar(), self.ty_of(v)) else { return None };
                    if p == a {
                        0
                    } else if p.is_float() == a.is_float() {
                        1
                    } else {
                        2
                    }
                }
            };
        }
        Some(total)
    }

    /// Builds the braced-list arguments (`f({a, b})`) as objects of the
    /// chosen callee's parameter types.
    pub(crate) fn braced_args(&mut self, c: &Callee, args: &[Expr], mut vals: Vec<V>) -> Result<Vec<V>> {
        for (i, a) in args.iter().enumerate() {
            let (ExprKind::InitList(l), V::Void) = (&a.kind, &vals[i]) else { continue };
            let Some(prm) = c.f.params.get(i) else { continue };
            let t = self.p.resolve_type(crate::sema::ceval::strip_ref(&prm.ty), &c.env)?;
            vals[i] = match &t {
                Ty::Class(_) | Ty::Array(..) => {
                    let h = self.stack(t.size(), t.align());
                    self.zero(h, t.size());
                    self.init_aggregate(&t, h, l, a.span)?;
                    V::L(t, Place::Host(h))
                }
                t => match (t.scalar(), l.as_slice()) {
                    (Some(s), []) => V::C(s, crate::sema::CV::I(0)),
                    _ => return err(a.span, format!("a braced list cannot initialise '{}'", t.spell())),
                },
            };
        }
        Ok(vals)
    }

    /// Inlines a chosen callee with its object.
    pub(crate) fn call_callee(&mut self, c: Callee, vals: Vec<V>, span: Span) -> Result<V> {
        let is_method = c.env.class.as_ref().is_some_and(|k| k.base.is_none()) && !c.f.is_static;
        if is_method && c.this.is_none() {
            return err(span, format!("call of member function '{}' without an object", c.f.name));
        }
        self.next_this = c.this;
        self.inline(&c.f, c.env, vals, span)
    }

    /// The object a pointer points to (`p->m`); other values unchanged.
    pub(crate) fn deref_object(&mut self, v: V) -> V {
        match v {
            V::Ptr(t @ Ty::Class(_), a) => V::L(t, Place::Tile(a)),
            V::L(Ty::Ptr(t), p) if matches!(*t, Ty::Class(_)) => {
                let a = self.load_scalar(crate::sema::types::Scalar::UInt, p);
                V::L(*t, Place::Tile(a))
            }
            v => v,
        }
    }

    /// `obj.name(args)` (and `obj(args)` with `operator()`).
    pub(crate) fn method_call(&mut self, obj: V, name: &str, args: &[Expr], span: Span) -> Result<V> {
        let V::L(Ty::Class(c), _) = &obj else {
            return err(span, "member call on a value that is not an object");
        };
        let c = c.clone();
        let cands = self.methods(&c, name, Some(&obj));
        if cands.is_empty() {
            return err(span, format!("'{}' has no member function '{name}'", c.name));
        }
        let vals = self.args(args)?;
        let path = Path { span, global: false, segs: vec![Seg { name: name.into(), args: None }] };
        match self.choose(cands, &path, &vals, span)? {
            Some(callee) => {
                let vals = self.braced_args(&callee, args, vals)?;
                self.call_callee(callee, vals, span)
            }
            None => err(span, format!("no member function '{name}' of '{}' takes these arguments", c.name)),
        }
    }

    /// An overloaded operator applied to class objects: a member
    /// `operator@` of the left operand or a namespace-level one. `None`
    /// when no operand is an object.
    pub(crate) fn operator_call(&mut self, op: &str, operands: Vec<V>, span: Span) -> Result<Option<V>> {
        if !operands.iter().any(|v| matches!(v, V::L(Ty::Class(_), _))) {
            return Ok(None);
        }
        let name = format!("operator{op}");
        let path = Path { span, global: false, segs: vec![Seg { name: name.clone(), args: None }] };
        let mut cands = Vec::new();
        if let V::L(Ty::Class(c), _) = &operands[0] {
            let c = c.clone();
            for m in self.methods(&c, &name, Some(&operands[0])) {
                if m.this.is_some() {
                    cands.push((m, 1));
                }
            }
        }
        let ns = self.env.ns.clone();
        for q in self.p.candidates(&ns, &name, false) {
            if let Some(fs) = self.p.funcs.get(&q) {
                for f in fs.iter().filter(|f| f.ast.body.is_some()) {
                    let env = Env { ns: f.ns.clone(), ..Env::default() };
                    cands.push((Callee { f: f.ast.clone(), env, this: None }, 0));
                }
            }
        }
        // Members take the operands after the object; free functions all.
        let mut best = None;
        for (c, skip) in cands {
            let vals = operands[skip..].to_vec();
            if let Some(ch) = self.choose(vec![c], &path, &vals, span).ok().flatten() {
                best = Some((ch, vals));
                break;
            }
        }
        match best {
            Some((c, vals)) => self.call_callee(c, vals, span).map(Some),
            None => err(span, format!("no '{name}' for these operands")),
        }
    }

    /// A class object built by `T{a, b}`, `T{}` or `T()`: the class's
    /// constructor when it has one that does work, else aggregate
    /// initialisation of a temporary.
    pub(crate) fn construct(&mut self, ty: &Ty, args: &[Expr], span: Span) -> Result<V> {
        let Ty::Class(c) = ty else { return err(span, "not a class type") };
        if c.base.is_some() {
            return err(span, "vertices cannot be constructed in codelet code");
        }
        let copy = matches!(args, [a] if !matches!(a.kind, ExprKind::InitList(_)));
        let h = self.stack(ty.size(), ty.align());
        if c.has_ctor() {
            let vals = self.args(args)?;
            if let [v @ V::L(Ty::Class(_), _)] = vals.as_slice() {
                self.zero(h, ty.size());
                self.copy_aggregate(ty, h, v.clone(), span)?;
            } else {
                self.run_ctor(c, h, vals, span)?;
            }
            return Ok(V::L(ty.clone(), Place::Host(h)));
        }
        self.zero(h, ty.size());
        let obj = V::L(ty.clone(), Place::Host(h));
        if copy {
            let v = self.expr(&args[0])?;
            if matches!(v, V::L(Ty::Class(_), _)) {
                self.copy_aggregate(ty, h, v, span)?;
                return Ok(obj);
            }
            let (Some(f), 1) = (c.fields.first(), c.fields.len()) else {
                return err(span, format!("'{}' cannot be built from one value", c.name));
            };
            let FieldTy::Plain(ft) = &f.ty else { unreachable!() };
            let at = self.b.ins().iadd_imm_s(h, f.offset as i64);
            let Some(s) = ft.scalar() else {
                return err(span, format!("'{}' cannot be built from this value", c.name));
            };
            let x = self.rv_as(v, s, span)?;
            self.store_scalar(s, Place::Host(at), x);
            return Ok(obj);
        }
        if args.len() > c.fields.len() {
            return err(span, format!("too many initialisers for '{}'", c.name));
        }
        for (e, f) in args.iter().zip(&c.fields) {
            let FieldTy::Plain(ft) = &f.ty else { unreachable!() };
            let at = self.b.ins().iadd_imm_s(h, f.offset as i64);
            self.init_one(ft, at, e)?;
        }
        Ok(obj)
    }
}

/// Whether `f` can be called with `n` arguments.
pub(crate) fn takes(f: &Function, n: usize) -> bool {
    let min = f.params.iter().filter(|x| x.default.is_none()).count();
    n >= min && n <= f.params.len()
}

/// The type of an lvalue (`Void` for other values).
fn v_ty(v: &V) -> &Ty {
    match v {
        V::L(t, _) => t,
        _ => &Ty::Void,
    }
}

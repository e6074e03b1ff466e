//! Calls: what a call names and how it is lowered. A call dispatches
//! (`call`, `named_call`) to a lambda, a built-in member of an edge, vector
//! or array (`member_call`), a built-in function (`expr::builtins`), a
//! functional cast or construction, or user functions and methods: finding
//! the candidates a call may
//! name (namespace functions, methods of the current class, static and
//! member functions named through a class such as `Op<T>::fn`, methods and
//! `operator()` of a class object), deducing template arguments, choosing
//! among overloads by how well
//! the arguments fit, class objects built by `T{...}` / `T()`, and
//! overloaded operators on class objects.
//!
//! Overload choice is C++'s in outline: every viable candidate gets a rank
//! per argument (exact, then conversion within integers or within floats,
//! then between them); the lowest total wins, and a non-template beats a
//! template of the same rank. Two best candidates with the same rank are an
//! ambiguity error.

use std::rc::Rc;

use cranelift_codegen::ir::{types, InstBuilder};

use crate::cost;
use crate::diag::{err, Diagnostic, Result, Span};
use crate::front::ast::*;
use crate::hash::HashMap;
use crate::lower::{Lowerer, Place, V};
use crate::sema::ceval;
use crate::sema::types::Scalar;
use crate::sema::{ClassInst, Env, FieldTy, TVal, Ty, CV};

/// A function a call may name, with the environment its body sees and the
/// object it is called on (for methods).
#[derive(Clone)]
pub(crate) struct Callee {
    pub f: Function,
    pub env: Env,
    pub this: Option<V>,
    /// Called as written, without virtual dispatch (`Base::f()`).
    pub direct: bool,
}

/// The name of the method `obj(args)` calls.
pub(crate) const CALL_OPERATOR: &str = "operator()";

impl Lowerer<'_, '_> {
    pub(super) fn call(&mut self, f: &Expr, args: &[Expr], span: Span) -> Result<V> {
        // `obj.template f<A>(args)`: a member template with explicit arguments.
        if let ExprKind::MemberTemplate(obj, seg, arrow) = &f.kind {
            if matches!(obj.kind, ExprKind::This) {
                let p = Path { span, global: false, segs: vec![seg.clone()] };
                return self.named_call(&p, args, span);
            }
            let o = self.expr(obj)?;
            let o = if *arrow { self.deref_object(o) } else { o };
            if !matches!(o, V::L(Ty::Class(_), _)) {
                return err(span, format!("member template '{}' of a value that is not an object", seg.name));
            }
            return self.method_call_seg(o, seg, args, span);
        }
        // `obj.Base::f(args)`: `Base`'s `f` on `obj`'s base subobject,
        // without virtual dispatch.
        if let ExprKind::Member(obj, m, arrow) = &f.kind {
            if let Some((class, name)) = m.rsplit_once("::") {
                let o = self.expr(obj)?;
                let o = if *arrow { self.deref_object(o) } else { o };
                let segs = class.split("::").map(|s| Seg { name: s.into(), args: None }).collect();
                let tn = TypeName {
                    span,
                    kind: TypeKind::Named(Path { span, global: false, segs }),
                    is_const: false,
                };
                let Ty::Class(c) = self.p.resolve_type(&tn, &self.env)? else {
                    return err(span, format!("'{class}' is not a class"));
                };
                let Some(o) = self.upcast(&o, &c) else {
                    return err(
                        span,
                        format!("'{class}' is not the class of this object or one of its bases"),
                    );
                };
                let cands: Vec<Callee> = self
                    .methods(&c, name, Some(&o))
                    .into_iter()
                    .map(|m| Callee { direct: true, ..m })
                    .collect();
                if cands.is_empty() {
                    return err(span, format!("'{}' has no member function '{name}'", c.name));
                }
                let vals = self.args(args)?;
                let path = Path::simple_name(name, span);
                return match self.choose(cands, &path, &vals, span)? {
                    Some(callee) => {
                        let vals = self.braced_args(&callee, args, vals)?;
                        self.call_callee(callee, vals, span)
                    }
                    None => err(
                        span,
                        format!("no member function '{name}' of '{}' takes these arguments", c.name),
                    ),
                };
            }
        }
        // Member calls.
        if let ExprKind::Member(obj, m, arrow) = &f.kind {
            if !matches!(obj.kind, ExprKind::This) {
                let o = self.expr(obj)?;
                let o = if *arrow { self.deref_object(o) } else { o };
                if matches!(o, V::L(Ty::Class(_), _)) {
                    return self.method_call(o, m, args, span);
                }
                return self.member_call(o, m, args, span);
            }
            // `this->m(…)` of a member the class inherits from std::array.
            if let Some(this @ V::L(Ty::Class(_), _)) = self.lookup("<this>") {
                let V::L(Ty::Class(c), _) = &this else { unreachable!() };
                if self.methods(c, m, None).is_empty() {
                    if let Some(arr) = self.array_base(&this) {
                        return self.array_member(arr, m, args, span);
                    }
                }
            }
            let p = Path { span, global: false, segs: vec![Seg { name: m.clone(), args: None }] };
            return self.named_call(&p, args, span);
        }
        let ExprKind::Name(p) = &f.kind else {
            let fv = self.expr(f)?;
            if matches!(fv, V::L(Ty::Class(_), _)) {
                return self.method_call(fv, crate::lower::call::CALL_OPERATOR, args, span);
            }
            if let V::Func(fp) = fv {
                return self.named_call(&fp, args, span);
            }
            let V::Lambda(l) = fv else { return err(span, "called value is not a function") };
            let vals = self.args(args)?;
            return self.call_lambda(&l, vals, span);
        };
        self.named_call(p, args, span)
    }

    /// Argument values; a braced list of other than one element stays a
    /// placeholder (`V::Void`) until the callee's parameter type is known
    /// ([`Self::braced_args`]).
    pub(crate) fn args(&mut self, args: &[Expr]) -> Result<Vec<V>> {
        args.iter()
            .map(|a| match &a.kind {
                ExprKind::InitList(l) if l.len() != 1 => Ok(V::Void),
                _ => self.expr(a),
            })
            .collect()
    }

    fn member_call(&mut self, o: V, m: &str, args: &[Expr], span: Span) -> Result<V> {
        match (&o, m) {
            (V::Vec { count, .. }, "size") => match count {
                Some(c) => Ok(V::R(Scalar::UInt, *c)),
                None => err(span, "this vector's layout has no size(); its length comes from the graph"),
            },
            (V::List { count, .. }, "size") => Ok(V::R(Scalar::UInt, *count)),
            (V::Edges { count, .. }, "size") => match count {
                Some(c) => Ok(V::R(Scalar::UInt, *c)),
                None => err(span, "this vector's layout has no size(); its length comes from the graph"),
            },
            (V::Vec { elem, addr, .. }, "begin" | "data") => Ok(V::Ptr(Ty::S(*elem), *addr)),
            (V::Vec { elem, addr, count: Some(c) }, "end") => {
                let off = self.b.ins().imul_imm_s(*c, elem.size() as i64);
                let end = self.b.ins().iadd(*addr, off);
                self.note_aligned(end, self.stride_align(*addr, elem.size()));
                Ok(V::Ptr(Ty::S(*elem), end))
            }
            (V::EdgeS { elem, addr }, "get" | "data") => Ok(V::Ptr(Ty::S(*elem), *addr)),
            // A quarter edge's metadata: a pointer to its packed byte.
            (V::EdgeS { addr, .. } | V::Vec { addr, .. } | V::List { addr, .. }, "getMetadata") => {
                match self.metadata.get(addr) {
                    Some(m) => Ok(V::Ptr(Ty::S(Scalar::UChar), *m)),
                    None => err(span, "getMetadata() is only defined for edges of quarter"),
                }
            }
            (V::L(Ty::Array(_, n), _), "size") => Ok(V::C(Scalar::UInt, CV::I(i128::from(*n)))),
            (V::L(Ty::Array(et, n), place @ Place::Host(_)), "data" | "begin") => {
                Ok(V::Local { ty: (**et).clone(), place: *place, room: et.size() * n })
            }
            (V::L(Ty::Array(et, n), Place::Host(h)), "fill") => {
                let (Some(s), [a]) = (et.scalar(), args) else {
                    return err(span, "std::array::fill takes one value and needs scalar elements");
                };
                let v = self.expr(a)?;
                let x = self.rv_as(v, s, span)?;
                // a[i] = x for each i, over host memory.
                let (h, size) = (*h, i64::from(et.size()));
                let n = self.b.ins().iconst(types::I64, i64::from(*n));
                self.counted_loop(n, |l, i| {
                    let off = l.b.ins().imul_imm_s(i, size);
                    let at = l.b.ins().iadd(h, off);
                    l.store_scalar(s, Place::Host(at), x);
                    l.cost(cost::ARITH);
                    Ok(())
                })?;
                Ok(V::Void)
            }
            // `poplar::IeeeHalf::bit16()`: the half's bit pattern.
            (v, "bit16") if self.ty_of(v) == Some(Scalar::Half) && args.is_empty() => {
                let (_, x) = self.rv(o, span)?;
                let bits = crate::lower::half_ir::f32_to_f16(&mut self.b, x);
                Ok(V::R(Scalar::UShort, self.b.ins().ireduce(types::I16, bits)))
            }
            (V::Lambda(l), "operator") => {
                let vals = self.args(args)?;
                self.call_lambda(&l.clone(), vals, span)
            }
            _ => err(span, format!("call of unsupported member function '{m}'")),
        }
    }

    fn named_call(&mut self, p: &Path, args: &[Expr], span: Span) -> Result<V> {
        let segs: Vec<&str> = p.segs.iter().map(|s| s.name.as_str()).collect();
        let full = segs.join("::");
        if let Some(n) = p.simple() {
            match self.lookup(n) {
                Some(V::Lambda(l)) => {
                    let vals = self.args(args)?;
                    return self.call_lambda(&l, vals, span);
                }
                Some(o @ V::L(Ty::Class(_), _)) => {
                    return self.method_call(o, crate::lower::call::CALL_OPERATOR, args, span);
                }
                Some(V::Func(fp)) => return self.named_call(&fp, args, span),
                _ => {}
            }
        }
        if full == crate::lower::decl::BASE_CTOR {
            return self.base_ctor(args, span);
        }
        let bare = full.trim_start_matches("::").trim_start_matches("std::").trim_start_matches("poplar::");
        if matches!(bare, "malloc" | "free" | "calloc" | "realloc" | "alloca") {
            return err(span, format!("dynamic allocation ('{bare}') is not supported in codelets"));
        }
        // `std::numeric_limits<T>::max()` and other constant calls.
        if p.segs.len() >= 2 && args.is_empty() {
            let call = Expr {
                span,
                kind: ExprKind::Call(Box::new(Expr { span, kind: ExprKind::Name(p.clone()) }), vec![]),
            };
            if let Ok((s, c)) = ceval::eval(self.p, &call, &self.env) {
                return Ok(V::C(s, c));
            }
        }
        // User functions first (they may shadow library names).
        let mut cands = self.call_candidates(p)?;
        // Some function of this name exists, but none takes this many arguments.
        let wrong_count = !cands.is_empty();
        cands.retain(|c| crate::lower::call::takes(&c.f, args.len()));
        let count_err = || err(span, format!("no overload of '{full}' takes {} argument(s)", args.len()));
        if cands.is_empty() {
            // The portable ones are declared by the built-in headers
            // (`front::vector_types`); the rest read or write the IPU itself.
            if full == "ipu::load_postinc" {
                return self.load_postinc(args, span);
            }
            if bare == "__builtin_convertvector" {
                return self.convert_vector(args, span);
            }
            if wrong_count && full.starts_with("ipu::") {
                return count_err();
            }
            if let Some(h) = full.strip_prefix("ipu::").and_then(crate::front::vector_types::helper_header) {
                return err(span, format!("'{full}' is declared in <{h}>, which is not included"));
            }
            if let Some(v) = self.ipu_builtin(bare, args, span)? {
                return Ok(v);
            }
            if bare.starts_with("__builtin_ipu") || full.starts_with("ipu::") {
                let d = Diagnostic::new(
                    span,
                    format!("IPU intrinsic '{full}' is not supported (popc targets the host)"),
                );
                let Some(name) = full.strip_prefix("ipu::") else { return Err(d) };
                return Err(d.with_suggestion(name, crate::front::vector_types::helper_names()));
            }
            if let Some(v) = self.builtin(bare, p, args, span)? {
                return Ok(v);
            }
            // A functional cast `T(x)` of a named type, or a class object `T()`.
            let tn = TypeName { span, kind: TypeKind::Named(p.clone()), is_const: false };
            if let Ok(ty) = self.p.resolve_type(&tn, &self.env) {
                if matches!(ty, Ty::Class(_)) {
                    return self.construct(&ty, args, span);
                }
                let v = match args {
                    [a] => self.expr(a)?,
                    [] => V::C(Scalar::Int, CV::I(0)),
                    _ => return err(span, "a functional cast takes one argument"),
                };
                return self.cast(CastKind::Functional, &ty, v, span);
            }
            let declared =
                self.p.candidates(&self.env.ns, &full, p.global).iter().any(|q| self.p.funcs.contains_key(q));
            if wrong_count {
                return count_err();
            }
            if declared {
                return err(
                    span,
                    format!("function '{full}' is declared but not defined (if another source of the library defines it, compile them together: popc a.cpp b.cpp -o lib.gp)"),
                );
            }
            let d = Diagnostic::new(span, format!("use of undeclared function '{full}'"));
            let last = full.rsplit("::").next().unwrap_or(&full);
            return Err(d.with_suggestion(last, self.p.funcs.keys().map(String::as_str)));
        }
        // Constant call?
        if cands.len() == 1 && cands[0].f.is_constexpr && cands[0].this.is_none() {
            if let Ok((s, c)) = ceval::eval(
                self.p,
                &Expr {
                    span,
                    kind: ExprKind::Call(
                        Box::new(Expr { span, kind: ExprKind::Name(p.clone()) }),
                        args.to_vec(),
                    ),
                },
                &self.env,
            ) {
                return Ok(V::C(s, c));
            }
        }
        let vals = self.args(args)?;
        match self.choose(cands, p, &vals, span)? {
            Some(c) => {
                let vals = self.braced_args(&c, args, vals)?;
                self.call_callee(c, vals, span)
            }
            None => err(span, format!("no overload of '{full}' takes these arguments")),
        }
    }

    /// `env` with `f`'s template parameters bound: explicit arguments of
    /// `p`'s last segment first, then deduced from the argument values.
    pub(crate) fn deduce(
        &mut self,
        f: &Function,
        mut env: Env,
        p: &Path,
        vals: &[V],
        span: Span,
    ) -> Result<Env> {
        let Some(tp) = &f.tparams else { return Ok(env) };
        let explicit = p.segs.last().and_then(|s| s.args.clone()).unwrap_or_default();
        let mut tb: HashMap<String, TVal> = (*env.tb).clone();
        for (i, t) in tp.iter().enumerate() {
            if let Some(a) = explicit.get(i) {
                // The argument is the caller's; the parameter's type is
                // looked up where the template is declared.
                let mut one = HashMap::default();
                self.p.bind_args_in(
                    std::slice::from_ref(t),
                    std::slice::from_ref(a),
                    &self.env,
                    &env.ns,
                    &mut one,
                    span,
                )?;
                tb.extend(one);
                continue;
            }
            let mut found = None;
            for (pi, prm) in f.params.iter().enumerate() {
                let mut pt = ceval::strip_ref(&prm.ty);
                let mut ptr = false;
                if let TypeKind::Ptr(inner) = &pt.kind {
                    pt = inner;
                    ptr = true;
                }
                // `T **p` given the address of a local pointer: `T` is what
                // that pointer points to.
                if let (TypeKind::Ptr(inner), Some(V::Local { ty, .. })) = (&pt.kind, vals.get(pi)) {
                    if let (TypeKind::Named(pp), Ty::Ptr(pointee)) = (&inner.kind, ty) {
                        if pp.simple() == Some(t.name.as_str()) {
                            found = Some((**pointee).clone());
                            break;
                        }
                    }
                }
                if let TypeKind::Named(pp) = &pt.kind {
                    if pp.simple() == Some(t.name.as_str()) {
                        if let Some(v) = vals.get(pi) {
                            found = match (v, ptr) {
                                (V::Ptr(ty, _) | V::Local { ty, .. }, true) => Some(ty.clone()),
                                (V::L(Ty::Ptr(ty), _), true) => Some((**ty).clone()),
                                // An array decays to a pointer to its first element.
                                (V::L(Ty::Array(ty, _), _), true) => Some((**ty).clone()),
                                (v, false) => match v {
                                    V::L(t, _) => Some(t.clone()),
                                    V::Ptr(t, _) => Some(Ty::Ptr(Box::new(t.clone()))),
                                    v => self.ty_of(v).map(Ty::S),
                                },
                                _ => None,
                            };
                            if found.is_some() {
                                break;
                            }
                        }
                    }
                }
            }
            match (found, &t.default) {
                (Some(ty), _) => {
                    tb.insert(t.name.clone(), TVal::Type(ty));
                }
                (None, Some(_)) => {
                    // The default sees the parameters bound before it.
                    let mut one = tb.clone();
                    let e2 = Env { tb: Rc::new(tb.clone()), ..env.clone() };
                    self.p.bind_args(std::slice::from_ref(t), &[], &e2, &mut one, span)?;
                    tb.extend(one);
                }
                (None, None) => {
                    return err(
                        span,
                        format!("cannot deduce template parameter '{}' of '{}'", t.name, f.name),
                    )
                }
            }
        }
        env.tb = Rc::new(tb);
        Ok(env)
    }
}

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
            if f.name == name && (f.body.is_some() || f.quals.is_pure) && !f.is_friend {
                let this = if f.is_static { None } else { this.cloned() };
                out.push(Callee { f: f.clone(), env: env.clone(), this, direct: false });
            }
        }
        // Those the class does not declare are its base's (called on the
        // base subobject, at the same address).
        if let (true, Some(Ty::Class(b))) = (out.is_empty(), c.helper_base()) {
            let this = this.map(|t| match t {
                V::L(_, place) => V::L(Ty::Class(b.clone()), *place),
                t => t.clone(),
            });
            return self.methods(b, name, this.as_ref());
        }
        out
    }

    /// The `std::array` a class object is, through its chain of bases.
    pub(crate) fn array_base(&self, v: &V) -> Option<V> {
        let V::L(Ty::Class(c), place) = v else { return None };
        match c.helper_base()? {
            t @ Ty::Array(..) => Some(V::L(t.clone(), *place)),
            t @ Ty::Class(_) => self.array_base(&V::L(t.clone(), *place)),
            _ => None,
        }
    }

    /// A member function of `std::array` called on an array (or a class
    /// deriving from one): `operator[]`, `size`, `data`, `fill`, ….
    pub(crate) fn array_member(&mut self, arr: V, m: &str, args: &[Expr], span: Span) -> Result<V> {
        if m == "operator[]" {
            let [i] = args else { return err(span, "operator[] takes one index") };
            let i = self.expr(i)?;
            return self.index(arr, i, span);
        }
        self.member_call(arr, m, args, span)
    }

    /// `v` as an object of class `to` when `to` is `v`'s class or one of
    /// its bases (all at the object's address); `None` otherwise.
    pub(crate) fn upcast(&self, v: &V, to: &Rc<ClassInst>) -> Option<V> {
        let V::L(Ty::Class(c), place) = v else { return None };
        if c.name == to.name {
            return Some(v.clone());
        }
        match c.helper_base()? {
            t @ Ty::Class(_) => self.upcast(&V::L(t.clone(), *place), to),
            _ => None,
        }
    }

    /// The hidden friends named `name` of class `c` (functions defined in
    /// its body after `friend`), which argument-dependent lookup finds.
    pub(crate) fn friends(&self, c: &Rc<ClassInst>, name: &str) -> Vec<Callee> {
        let env = Env { class: Some(c.clone()), ..c.env.clone() };
        let mut out = Vec::new();
        for m in &c.decl.ast.members {
            if let Member::Method(f) = m {
                if f.name == name && f.is_friend {
                    out.push(Callee { f: f.clone(), env: env.clone(), this: None, direct: false });
                }
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
            let prefix_ty = {
                let _trial = crate::diag::trial();
                self.p.resolve_type(&tn, &self.env)
            };
            if let Ok(Ty::Class(c)) = prefix_ty {
                let this = self.lookup("<this>");
                let this = this.and_then(|t| self.upcast(&t, &c));
                // Named through its class: called as written, not dispatched.
                out.extend(
                    self.methods(&c, p.last(), this.as_ref())
                        .into_iter()
                        .map(|m| Callee { direct: true, ..m }),
                );
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
                        direct: false,
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
            // A return type `enable_if<C, T>::type` whose condition fails.
            if c.f.tparams.is_some() && crate::sema::type_words(&c.f.ret).contains("enable_if") {
                let r = {
                    let _trial = crate::diag::trial();
                    self.p.resolve_type(&c.f.ret, &env)
                };
                if let Err(e) = r {
                    last_err = Some(e);
                    continue;
                }
            }
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
                    if a.name == b.name {
                        0
                    } else {
                        // A derived object for its base: a conversion.
                        self.upcast(v, a)?;
                        1
                    }
                }
                (Ty::Class(_), V::Void) => 1,
                (Ty::Array(..), V::L(Ty::Array(..), _)) if t.same(v_ty(v)) => 0,
                (Ty::Class(_), _) | (_, V::L(Ty::Class(_), _)) => return None,
                (Ty::Ptr(_), V::Ptr(..) | V::L(Ty::Ptr(_), _) | V::Vec { .. }) => 0,
                (Ty::Ptr(p), V::Local { ty, .. }) if p.same(ty) || matches!(**p, Ty::Void) => 0,
                // The address of a derived object for a pointer to its base.
                (Ty::Ptr(p), V::Local { ty: Ty::Class(d), .. }) if matches!(&**p, Ty::Class(b) if d.derives_from(b)) => {
                    1
                }
                (Ty::Ptr(p), V::L(Ty::Array(e, _), Place::Host(_))) if p.same(e) => 0,
                (Ty::Ptr(_), V::Local { .. }) => return None,
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
                    self.stamp(&t, h, a.span)?;
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
        if !c.direct {
            if let Some(v) = self.virtual_call(&c, &vals, span)? {
                return Ok(v);
            }
        }
        if c.f.quals.is_pure && c.f.body.is_none() {
            return err(span, format!("'{}' is pure virtual and has no definition to call", c.f.name));
        }
        self.next_this = c.this;
        self.inline(&c.f, c.env, vals, span)
    }

    /// The object a pointer points to (`p->m`); other values unchanged.
    pub(crate) fn deref_object(&mut self, v: V) -> V {
        match v {
            V::Local { ty: ty @ Ty::Class(_), place: place @ (Place::Host(_) | Place::Var(_)), room }
                if ty.size() <= room =>
            {
                V::L(ty, place)
            }
            V::Ptr(t @ Ty::Class(_), a) => {
                self.check_vector_align(&t, a);
                V::L(t, Place::Tile(a))
            }
            V::L(Ty::Ptr(t), p) if matches!(*t, Ty::Class(_)) => {
                let a = self.load_scalar(crate::sema::types::Scalar::UInt, p);
                self.check_vector_align(&t, a);
                V::L(*t, Place::Tile(a))
            }
            v => v,
        }
    }

    /// `obj.name(args)` (and `obj(args)` with `operator()`).
    pub(crate) fn method_call(&mut self, obj: V, name: &str, args: &[Expr], span: Span) -> Result<V> {
        self.method_call_seg(obj, &Seg { name: name.into(), args: None }, args, span)
    }

    /// `obj.name<targs>(args)`, the template arguments given or not.
    fn method_call_seg(&mut self, obj: V, seg: &Seg, args: &[Expr], span: Span) -> Result<V> {
        let name = seg.name.as_str();
        let V::L(Ty::Class(c), _) = &obj else {
            return err(span, "member call on a value that is not an object");
        };
        let c = c.clone();
        let cands = self.methods(&c, name, Some(&obj));
        if cands.is_empty() {
            if let Some(arr) = self.array_base(&obj) {
                return self.array_member(arr, name, args, span);
            }
            return err(span, format!("'{}' has no member function '{name}'", c.name));
        }
        let vals = self.args(args)?;
        let path = Path { span, global: false, segs: vec![seg.clone()] };
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
        // `v[i]` of a class deriving from std::array without its own `[]`.
        if let (V::L(Ty::Class(c), _), [_, i]) = (&operands[0], operands.as_slice()) {
            if op == "[]" && self.methods(c, &name, None).is_empty() {
                if let Some(arr) = self.array_base(&operands[0]) {
                    return self.index(arr, i.clone(), span).map(Some);
                }
            }
        }
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
        for v in &operands {
            if let V::L(Ty::Class(c), _) = v {
                let c = c.clone();
                cands.extend(self.friends(&c, &name).into_iter().map(|f| (f, 0)));
            }
        }
        let ns = self.env.ns.clone();
        for q in self.p.candidates(&ns, &name, false) {
            if let Some(fs) = self.p.funcs.get(&q) {
                for f in fs.iter().filter(|f| f.ast.body.is_some()) {
                    let env = Env { ns: f.ns.clone(), ..Env::default() };
                    cands.push((Callee { f: f.ast.clone(), env, this: None, direct: false }, 0));
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
            // A copy of an object of the class (or of a class derived
            // from it); an object of another class goes to a constructor.
            let copied = match vals.as_slice() {
                [v @ V::L(Ty::Class(from), _)] if from.derives_from(c) => Some(v.clone()),
                _ => None,
            };
            if let Some(v) = copied {
                self.zero(h, ty.size());
                self.copy_aggregate(ty, h, v, span)?;
                self.stamp(ty, h, span)?;
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
                self.stamp(ty, h, span)?;
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
        self.init_aggregate(ty, h, args, span)?;
        self.stamp(ty, h, span)?;
        if args.is_empty() {
            self.implicit_ctor(ty, h, span)?;
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

//! Lowering of expressions: literals, names, members, the logical
//! operators, casts and `sizeof`, and the types written inside function
//! bodies (`decltype`). Operators live in `ops`, the conditional operator
//! in `cond`, subscripts and assignment in `place`, calls in
//! `super::call`, the built-ins in `builtins`.

use std::rc::Rc;

use cranelift_codegen::ir::{types, InstBuilder, Value};

use crate::diag::{err, Diagnostic, Result, Span};
use crate::front::ast::*;
use crate::lower::{Lowerer, Place, V};
use crate::sema::ceval::{self, convert};
use crate::sema::types::Scalar;
use crate::sema::{Env, TVal, Ty, CV};

mod builtins;
mod cond;
mod ops;
mod place;
mod vector;

pub(crate) use vector::vector_piece;

use ops::op_text;

fn int_literal(v: u64, u: bool, l: bool, nondec: bool) -> (Scalar, CV) {
    let v = v as i128;
    let s = match (u, l) {
        (false, false) if v <= i32::MAX as i128 => Scalar::Int,
        (false, false) if nondec && v <= u32::MAX as i128 => Scalar::UInt,
        (true, false) if v <= u32::MAX as i128 => Scalar::UInt,
        (true, _) => Scalar::ULong,
        _ => Scalar::Long,
    };
    (s, convert(CV::I(v), s))
}

impl Lowerer<'_, '_> {
    /// A constant expression's value. Constant evaluation sees no local
    /// variables, so when it fails the expression is lowered: local
    /// `constexpr`/`const` values and `sizeof` of an edge element fold to
    /// constants there. The original error stands when it does not fold.
    pub(crate) fn const_value(&mut self, e: &Expr) -> Result<(Scalar, CV)> {
        match ceval::eval(self.p, e, &self.env) {
            Ok(v) => Ok(v),
            Err(d) if d.is_limit() => Err(d),
            Err(d) => match self.expr(e) {
                Ok(V::C(s, c)) => Ok((s, c)),
                _ => Err(d),
            },
        }
    }

    pub(crate) fn expr(&mut self, e: &Expr) -> Result<V> {
        let span = e.span;
        let _level = crate::diag::deeper(span)?;
        Ok(match &e.kind {
            ExprKind::Int(v, u, l, nd) => {
                let (s, c) = int_literal(*v, *u, *l, *nd);
                V::C(s, c)
            }
            ExprKind::Float(f, is32) => {
                if *is32 {
                    V::C(Scalar::Float, CV::F(*f as f32 as f64))
                } else {
                    V::C(Scalar::Double, CV::F(*f))
                }
            }
            ExprKind::Bool(b) => V::C(Scalar::Bool, CV::I(*b as i128)),
            ExprKind::Char(c) => V::C(Scalar::Char, CV::I(*c as i128)),
            ExprKind::Str(_) => return err(span, "string literals are only supported as printf formats"),
            ExprKind::This => match self.lookup("<this>") {
                Some(V::L(t, Place::Tile(a))) => V::Ptr(t, a),
                _ => return err(span, "'this' is only supported as 'this->member' and '*this'"),
            },
            ExprKind::Name(p) => self.name(p, span)?,
            ExprKind::Member(obj, name, arrow) => {
                // `this->m`: the member of the method's object (or the
                // vertex's field), never a local or parameter named `m`.
                let this = match obj.kind {
                    ExprKind::This => self.lookup("<this>"),
                    _ => None,
                };
                if matches!(obj.kind, ExprKind::This) && this.is_none() {
                    if let Some(f) = self.field(name) {
                        return Ok(f);
                    }
                    let p = Path { span, global: false, segs: vec![Seg { name: name.clone(), args: None }] };
                    return self.name(&p, span);
                }
                let o = match this {
                    Some(o) => o,
                    None => self.expr(obj)?,
                };
                let arrow = *arrow && !matches!(obj.kind, ExprKind::This);
                let o = if arrow { self.deref_object(o) } else { o };
                match o {
                    V::L(Ty::Class(c), place @ (Place::Host(_) | Place::Tile(_))) => {
                        if let Place::Host(h) = place {
                            if let Some(v) = self.obj_refs.get(&h).and_then(|r| r.get(name)) {
                                return Ok(v.clone());
                            }
                        }
                        let Some((t, offset)) = member_field(&c, name) else {
                            if let Some(v) = self.static_of_object(&c, name, span)? {
                                return Ok(v);
                            }
                            let d = Diagnostic::new(span, format!("'{}' has no member '{name}'", c.name));
                            return Err(d.with_suggestion(name, c.fields.iter().map(|f| f.name.as_str())));
                        };
                        match place {
                            Place::Host(h) => V::L(t, Place::Host(self.b.ins().iadd_imm_s(h, offset as i64))),
                            Place::Tile(a) => {
                                let at = self.b.ins().iadd_imm_s(a, offset as i64);
                                self.derive(a, at);
                                V::L(t, Place::Tile(at))
                            }
                            Place::Var(_) => unreachable!(),
                        }
                    }
                    _ => return err(span, format!("member '{name}' of a value that has no members")),
                }
            }
            ExprKind::Unary(op, a) => self.unary(*op, a, span)?,
            ExprKind::Binary(BinOp::Comma, a, b) => {
                self.expr(a)?;
                self.expr(b)?
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let x = self.expr(a)?;
                if let V::C(_, c) = x {
                    let t = ceval::truthy(c);
                    if (*op == BinOp::And) != t {
                        return Ok(V::C(Scalar::Bool, CV::I(t as i128)));
                    }
                    let y = self.expr(b)?;
                    let y = self.cond(y, b.span)?;
                    return Ok(V::R(Scalar::Bool, y));
                }
                let x = self.cond(x, a.span)?;
                let var = self.b.declare_var(types::I8);
                self.b.def_var(var, x);
                let rhs = self.b.create_block();
                let join = self.b.create_block();
                if *op == BinOp::And {
                    self.brif(x, rhs, join);
                } else {
                    self.brif(x, join, rhs);
                }
                self.b.switch_to_block(rhs);
                let y = self.expr(b)?;
                let y = self.cond(y, b.span)?;
                self.b.def_var(var, y);
                self.jump(join, &[]);
                self.b.switch_to_block(join);
                V::R(Scalar::Bool, self.b.use_var(var))
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a)?;
                let y = self.expr(b)?;
                if let Some(v) = self.vector_operator_call(op_text(*op), vec![x.clone(), y.clone()], span)? {
                    return Ok(v);
                }
                if let Some(v) = self.operator_call(op_text(*op), vec![x.clone(), y.clone()], span)? {
                    return Ok(v);
                }
                self.binop(*op, x, y, span)?
            }
            ExprKind::Assign(None, lhs, rhs) if tie_args(lhs).is_some() => {
                self.assign_tie(tie_args(lhs).unwrap_or_default(), rhs, span)?
            }
            ExprKind::Assign(op, lhs, rhs) => {
                let l = self.expr(lhs)?;
                // `obj = {a, b}`: a temporary of the object's type, copied.
                if let (None, V::L(ty @ (Ty::Class(_) | Ty::Array(..)), _), ExprKind::InitList(list)) =
                    (op, &l, &rhs.kind)
                {
                    let r = match ty {
                        Ty::Class(_) => self.construct(ty, list, rhs.span)?,
                        _ => {
                            let h = self.stack(ty.size(), ty.align());
                            self.zero(h, ty.size());
                            self.init_aggregate(ty, h, list, rhs.span)?;
                            self.stamp(ty, h, rhs.span)?;
                            V::L(ty.clone(), Place::Host(h))
                        }
                    };
                    self.assign(l.clone(), r, span)?;
                    return Ok(l);
                }
                let r = self.expr(rhs)?;
                if let (Some(op), V::L(Ty::Class(_), _)) = (op, &l) {
                    let name = format!("{}=", op_text(*op));
                    if let Some(v) = self.vector_operator_call(&name, vec![l.clone(), r.clone()], span)? {
                        return Ok(v);
                    }
                    if let Some(v) = self.operator_call(&name, vec![l.clone(), r.clone()], span)? {
                        return Ok(v);
                    }
                }
                let r = match op {
                    Some(op) => {
                        let cur = l.clone();
                        self.binop(*op, cur, r, span)?
                    }
                    None => r,
                };
                self.assign(l.clone(), r, span)?;
                l
            }
            ExprKind::Cond(c, a, b) => self.conditional(c, a, b, span)?,
            ExprKind::Cast(_, TypeName { kind: TypeKind::Named(tp), .. }, _)
                if ceval::is_trait(tp.last()) =>
            {
                let (s, c) = ceval::eval(self.p, e, &self.env)?;
                V::C(s, c)
            }
            ExprKind::Cast(kind, t, a) => {
                let ty = self.local_type(t)?;
                if let TypeKind::Ref(_) = t.kind {
                    // A cast to a reference names the same object.
                    // A derived object cast to a reference to its base.
                    let v = self.expr(a)?;
                    let v = self.as_base(&ty, v);
                    return match v {
                        V::L(vt, p) if vt.same(&ty) || vt.size() == ty.size() => Ok(V::L(ty, p)),
                        V::EdgeS { elem, addr } if Ty::S(elem).same(&ty) => Ok(V::EdgeS { elem, addr }),
                        _ => err(
                            span,
                            format!(
                                "cast to '{} &' of a value that is not an object of that size",
                                ty.spell()
                            ),
                        ),
                    };
                }
                if let (Ty::Class(_), CastKind::Functional) = (&ty, kind) {
                    return match &a.kind {
                        ExprKind::InitList(l) => self.construct(&ty, l, span),
                        _ => self.construct(&ty, std::slice::from_ref(a), span),
                    };
                }
                let v = self.expr(a)?;
                self.cast(*kind, &ty, v, span)?
            }
            ExprKind::SizeofType(_) | ExprKind::AlignofType(_) => {
                let (s, c) = ceval::eval(self.p, e, &self.env)?;
                V::C(s, c)
            }
            ExprKind::SizeofExpr(a) => {
                if let ExprKind::Str(b) = &a.kind {
                    return Ok(V::C(Scalar::UInt, CV::I(b.len() as i128 + 1)));
                }
                let v = self.expr(a)?;
                let n = match &v {
                    V::L(t, _) => t.size(),
                    v => self.ty_of(v).map_or(4, |s| s.size()),
                };
                V::C(Scalar::UInt, CV::I(n as i128))
            }
            ExprKind::Lambda(l) => {
                let snap = self.scopes_snapshot();
                V::Lambda(Rc::new(((**l).clone(), snap, self.env.clone())))
            }
            ExprKind::InitList(l) => match l.as_slice() {
                [one] => self.expr(one)?,
                [] => V::C(Scalar::Int, CV::I(0)),
                _ => return err(span, "braced list is not supported here"),
            },
            ExprKind::Index(a, i) => {
                let base = self.expr(a)?;
                let idx = self.expr(i)?;
                if let Some(v) = self.vector_index(&base, &idx, span)? {
                    return Ok(v);
                }
                if let Some(v) = self.operator_call("[]", vec![base.clone(), idx.clone()], span)? {
                    return Ok(v);
                }
                self.index(base, idx, span)?
            }
            ExprKind::Call(f, args) => self.call(f, args, span)?,
            ExprKind::MemberTemplate(_, seg, _) => {
                return err(span, format!("member template '{}' named without being called", seg.name))
            }
        })
    }

    fn name(&mut self, p: &Path, span: Span) -> Result<V> {
        if let Some(n) = p.simple() {
            if let Some(v) = self.lookup(n) {
                return Ok(v);
            }
            if self.env.class.as_ref().is_some_and(|c| c.base.is_some()) {
                if let Some(v) = self.field(n) {
                    return Ok(v);
                }
            }
            if let Some(TVal::Const(s, c)) = self.env.tb.get(n) {
                return Ok(V::C(*s, *c));
            }
        }
        if let Some(v) = self.static_name(p)? {
            return Ok(v);
        }
        match ceval::eval(self.p, &Expr { span, kind: ExprKind::Name(p.clone()) }, &self.env) {
            Ok((s, c)) => Ok(V::C(s, c)),
            Err(d) if d.is_limit() => Err(d),
            Err(_) if !self.call_candidates(p).unwrap_or_default().is_empty() => {
                Ok(V::Func(Rc::new(p.clone())))
            }
            // The name is a constant whose definition has an error (a static
            // member's initialiser naming an unknown macro): that error,
            // not "undeclared", is the one to fix.
            Err(mut d) if d.span.file != span.file || d.span.lo < span.lo || d.span.hi > span.hi => {
                let n: Vec<&str> = p.segs.iter().map(|s| s.name.as_str()).collect();
                d.notes.push(format!("while evaluating '{}'", n.join("::")));
                Err(d)
            }
            Err(_) => {
                let n: Vec<&str> = p.segs.iter().map(|s| s.name.as_str()).collect();
                if let Some(c) = self.env.class.as_ref().filter(|c| c.decl.ast.members.iter().any(|m| {
                    matches!(m, Member::Field(f) if f.is_static && f.init.is_none() && f.names.iter().any(|x| x.0 == n.join("::")))
                })) {
                    return err(
                        span,
                        format!(
                            "static data member '{}::{}' is declared but never defined: C++ needs its definition \
                             outside the class, or an initialiser in it",
                            c.name,
                            n.join("::")
                        ),
                    );
                }
                let d = Diagnostic::new(span, format!("use of undeclared identifier '{}'", n.join("::")));
                let last = n.last().copied().unwrap_or_default();
                let names = self
                    .names_in_scope()
                    .chain(self.p.globals.keys())
                    .chain(self.p.enum_consts.keys())
                    .chain(self.p.funcs.keys())
                    .map(String::as_str)
                    .filter(|k| !k.starts_with('<'));
                Err(d.with_suggestion(last, names))
            }
        }
    }

    /// A written type inside a function body: as [`crate::sema::Unit::resolve_type`],
    /// plus `decltype(name)` of a local name (evaluating a name has no
    /// effects, so nothing is run that C++ would not run).
    pub(crate) fn local_type(&mut self, t: &TypeName) -> Result<Ty> {
        match &t.kind {
            // `decltype(edge)` of a vertex field: its edge type.
            TypeKind::Decltype(e) if matches!(&e.kind, ExprKind::Name(p) if p.simple().is_some_and(|n| self.lookup(n).is_none())) =>
            {
                let ExprKind::Name(p) = &e.kind else { unreachable!() };
                let n = p.simple().unwrap_or_default();
                let field = self.env.class.as_ref().and_then(|c| c.fields.iter().find(|f| f.name == n));
                match field {
                    Some(f @ crate::sema::FieldInfo { ty: crate::sema::FieldTy::Edge { .. }, .. }) => {
                        Ok(Ty::Edge(Box::new(f.ty.clone())))
                    }
                    _ => match self.expr(e)? {
                        V::L(t, _) => Ok(t),
                        V::C(s, _) | V::R(s, _) | V::EdgeS { elem: s, .. } => Ok(Ty::S(s)),
                        V::Ptr(t, _) => Ok(Ty::Ptr(Box::new(t))),
                        _ => err(e.span, "'decltype' of this name is not supported"),
                    },
                }
            }
            TypeKind::Decltype(e) if matches!(e.kind, ExprKind::Name(_)) => match self.expr(e)? {
                V::L(t, _) => Ok(t),
                V::C(s, _) | V::R(s, _) | V::EdgeS { elem: s, .. } => Ok(Ty::S(s)),
                V::Ptr(t, _) => Ok(Ty::Ptr(Box::new(t))),
                _ => err(e.span, "'decltype' of this name is not supported"),
            },
            // `decltype(f(a, b))` with names as arguments: the declared
            // return type of the overload chosen (the call is not run).
            TypeKind::Decltype(e) => {
                let ExprKind::Call(f, args) = &e.kind else {
                    return err(e.span, "'decltype' of this expression is not supported");
                };
                let (ExprKind::Name(p), true) =
                    (&f.kind, args.iter().all(|a| matches!(a.kind, ExprKind::Name(_))))
                else {
                    return err(e.span, "'decltype' of this call is not supported (arguments must be names)");
                };
                let vals = self.args(args)?;
                let cands = self.call_candidates(p)?;
                let Some(c) = self.choose(cands, p, &vals, e.span)? else {
                    return err(e.span, format!("no overload of '{}' takes these arguments", p.last()));
                };
                match c.f.ret.kind {
                    TypeKind::Auto => err(e.span, "'decltype' of a call of a function returning 'auto'"),
                    _ => self.p.resolve_type(&c.f.ret, &c.env),
                }
            }
            TypeKind::Ref(inner) => self.local_type(inner),
            // `S<decltype(a), T>`: each `decltype` argument resolved here,
            // then bound in the environment under a name of its own.
            TypeKind::Named(p)
                if p.segs.iter().any(|s| s.args.as_ref().is_some_and(|a| a.iter().any(is_decltype))) =>
            {
                let mut p = p.clone();
                let mut tb = (*self.env.tb).clone();
                for seg in &mut p.segs {
                    for a in seg.args.iter_mut().flatten() {
                        if let TArg::Type(at) = a {
                            if matches!(at.kind, TypeKind::Decltype(_)) {
                                let ty = self.local_type(at)?;
                                let name = format!("<decltype {}>", tb.len());
                                tb.insert(name.clone(), TVal::Type(ty));
                                let seg = Seg { name, args: None };
                                at.kind =
                                    TypeKind::Named(Path { span: at.span, global: false, segs: vec![seg] });
                            }
                        }
                    }
                }
                let env = Env { tb: Rc::new(tb), ..self.env.clone() };
                self.p.resolve_type(&TypeName { kind: TypeKind::Named(p), ..t.clone() }, &env)
            }
            _ => self.p.resolve_type(t, &self.env),
        }
    }

    /// A pointer value's pointee type and tile address (`None` for others).
    fn pointer_value(&mut self, v: &V) -> Option<(Ty, Value)> {
        match v {
            V::Ptr(t, a) => Some((t.clone(), *a)),
            // A vector edge chosen by `?:` becomes a pointer to its data.
            V::Vec { elem, addr, .. } => Some((Ty::S(*elem), *addr)),
            V::L(Ty::Ptr(t), p) => Some(((**t).clone(), self.load_scalar(Scalar::UInt, *p))),
            _ => None,
        }
    }
}

/// The arguments of `std::tie(…)` (or `tie(…)`), when `e` is that call.
fn tie_args(e: &Expr) -> Option<&[Expr]> {
    let ExprKind::Call(f, args) = &e.kind else { return None };
    let ExprKind::Name(p) = &f.kind else { return None };
    let std = p.segs.len() == 1 || (p.segs.len() == 2 && p.segs[0].name == "std");
    (std && p.last() == "tie").then_some(args.as_slice())
}

/// Whether template argument `a` is a `decltype(…)` type.
fn is_decltype(a: &TArg) -> bool {
    matches!(a, TArg::Type(TypeName { kind: TypeKind::Decltype(_), .. }))
}

/// The type and offset of field `name` of class `c` or of its base (whose
/// subobject is at offset 0).
pub(crate) fn member_field(c: &crate::sema::ClassInst, name: &str) -> Option<(Ty, u32)> {
    if let Some(f) = c.fields.iter().find(|f| f.name == name) {
        let crate::sema::FieldTy::Plain(t) = &f.ty else { return None };
        return Some((t.clone(), f.offset));
    }
    // The members of an anonymous struct or union member.
    for f in c.fields.iter().filter(|f| f.name.starts_with(crate::front::parse::ANON_FIELD)) {
        if let crate::sema::FieldTy::Plain(Ty::Class(a)) = &f.ty {
            if let Some((t, off)) = member_field(a, name) {
                return Some((t, f.offset + off));
            }
        }
    }
    match c.helper_base()? {
        Ty::Class(b) => member_field(b, name),
        _ => None,
    }
}

//! Lowering of expressions and calls: operators with the usual arithmetic
//! conversions, edges and pointers, the maths library, `printf`, `assert`
//! and inlined user calls.

use std::collections::HashMap;
use std::rc::Rc;

use cranelift_codegen::ir::{
    condcodes::FloatCC, condcodes::IntCC, types, AbiParam, InstBuilder, MemFlagsData, Signature, Value,
};
use linker::abi::{self, HostFn};

use crate::cost;
use crate::diag::{err, Diagnostic, Result, Span};
use crate::front::ast::*;
use crate::lower::{Lowerer, Place, V};
use crate::sema::ceval::{self, convert};
use crate::sema::types::Scalar;
use crate::sema::{Env, TVal, Ty, CV};

mod builtins;

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
                        let Some(f) = c.fields.iter().find(|f| f.name == *name) else {
                            let d = Diagnostic::new(span, format!("'{}' has no member '{name}'", c.name));
                            return Err(d.with_suggestion(name, c.fields.iter().map(|f| f.name.as_str())));
                        };
                        let crate::sema::FieldTy::Plain(t) = &f.ty else { unreachable!() };
                        match place {
                            Place::Host(h) => {
                                V::L(t.clone(), Place::Host(self.b.ins().iadd_imm_s(h, f.offset as i64)))
                            }
                            Place::Tile(a) => {
                                let at = self.b.ins().iadd_imm_s(a, f.offset as i64);
                                self.derive(a, at);
                                V::L(t.clone(), Place::Tile(at))
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
                    let y = self.cond(y)?;
                    return Ok(V::R(Scalar::Bool, y));
                }
                let x = self.cond(x)?;
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
                let y = self.cond(y)?;
                self.b.def_var(var, y);
                self.jump(join, &[]);
                self.b.switch_to_block(join);
                V::R(Scalar::Bool, self.b.use_var(var))
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a)?;
                let y = self.expr(b)?;
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
                let r = self.expr(rhs)?;
                if let (Some(op), V::L(Ty::Class(_), _)) = (op, &l) {
                    let name = format!("{}=", op_text(*op));
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
            ExprKind::Cond(c, a, b) => {
                let cv = self.expr(c)?;
                if let V::C(_, k) = cv {
                    return if ceval::truthy(k) { self.expr(a) } else { self.expr(b) };
                }
                let c = self.cond(cv)?;
                let tb = self.b.create_block();
                let fb = self.b.create_block();
                let tb2 = self.b.create_block();
                let join = self.b.create_block();
                self.brif(c, tb, fb);
                self.b.switch_to_block(tb);
                let x = self.expr(a)?;
                if let V::List { elem, addr: xa, count: xn } = x {
                    // `c ? list1 : list2` of vector lists: a vector list.
                    let (va, vn) = (self.b.declare_var(types::I32), self.b.declare_var(types::I32));
                    self.b.def_var(va, xa);
                    self.b.def_var(vn, xn);
                    self.jump(join, &[]);
                    self.b.switch_to_block(fb);
                    let V::List { elem: ye, addr: ya, count: yn } = self.expr(b)? else {
                        return err(span, "'?:' of a vector list and something else");
                    };
                    if ye != elem {
                        return err(span, "'?:' of vector lists of different element types");
                    }
                    self.b.def_var(va, ya);
                    self.b.def_var(vn, yn);
                    self.jump(join, &[]);
                    self.b.switch_to_block(join);
                    let (r, n) = (self.b.use_var(va), self.b.use_var(vn));
                    self.derive(xa, r);
                    self.derive(ya, r);
                    return Ok(V::List { elem, addr: r, count: n });
                }
                if let Some((pt, xa)) = self.pointer_value(&x) {
                    // `c ? p : q` of pointers: a pointer.
                    let var = self.b.declare_var(types::I32);
                    self.b.def_var(var, xa);
                    self.jump(join, &[]);
                    self.b.switch_to_block(fb);
                    let y = self.expr(b)?;
                    let Some((_, ya)) = self.pointer_value(&y) else {
                        return err(span, "'?:' of a pointer and a non-pointer");
                    };
                    self.b.def_var(var, ya);
                    self.jump(join, &[]);
                    self.b.switch_to_block(join);
                    let r = self.b.use_var(var);
                    self.derive(xa, r);
                    self.derive(ya, r);
                    return Ok(V::Ptr(pt, r));
                }
                let (sx, xv) = self.rv(x, span)?;
                let vx = self.b.declare_var(crate::lower::cl_pub(sx));
                self.b.def_var(vx, xv);
                self.jump(tb2, &[]);
                self.b.switch_to_block(fb);
                let y = self.expr(b)?;
                let (sy, yv) = self.rv(y, span)?;
                let t = if sx == sy { sx } else { Scalar::common(sx, sy) };
                let yv = self.conv(yv, sy, t);
                let var = self.b.declare_var(crate::lower::cl_pub(t));
                self.b.def_var(var, yv);
                self.jump(join, &[]);
                self.b.switch_to_block(tb2);
                let xv = self.b.use_var(vx);
                let xv = self.conv(xv, sx, t);
                self.b.def_var(var, xv);
                self.jump(join, &[]);
                self.b.switch_to_block(join);
                V::R(t, self.b.use_var(var))
            }
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
                    let v = self.expr(a)?;
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
                if let Some(v) = self.operator_call("[]", vec![base.clone(), idx.clone()], span)? {
                    return Ok(v);
                }
                self.index(base, idx, span)?
            }
            ExprKind::Call(f, args) => self.call(f, args, span)?,
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
        match ceval::eval(self.p, &Expr { span, kind: ExprKind::Name(p.clone()) }, &self.env) {
            Ok((s, c)) => Ok(V::C(s, c)),
            Err(d) if d.is_limit() => Err(d),
            Err(_) if !self.call_candidates(p).unwrap_or_default().is_empty() => {
                Ok(V::Func(Rc::new(p.clone())))
            }
            Err(_) => {
                let n: Vec<&str> = p.segs.iter().map(|s| s.name.as_str()).collect();
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

    fn unary(&mut self, op: UnOp, a: &Expr, span: Span) -> Result<V> {
        if let (UnOp::Deref, ExprKind::This) = (op, &a.kind) {
            if let Some(o) = self.lookup("<this>") {
                return Ok(o);
            }
        }
        let v = self.expr(a)?;
        if matches!(v, V::L(Ty::Class(_), _)) {
            let name = match op {
                UnOp::Neg => "-",
                UnOp::Plus => "+",
                UnOp::Not => "!",
                UnOp::BitNot => "~",
                UnOp::Deref => "*",
                UnOp::PreInc => "++",
                UnOp::PreDec => "--",
                _ => return err(span, "this operator is not supported on class objects"),
            };
            if let Some(r) = self.operator_call(name, vec![v], span)? {
                return Ok(r);
            }
            unreachable!()
        }
        Ok(match op {
            UnOp::Plus => {
                let (s, x) = self.rv(v, span)?;
                let t = if s.is_float() { s } else { s.promote() };
                V::R(t, self.conv(x, s, t))
            }
            UnOp::Neg | UnOp::BitNot | UnOp::Not => {
                if let V::C(s, c) = v {
                    let (s2, c2) = ceval::eval(
                        self.p,
                        &Expr { span, kind: ExprKind::Unary(op, Box::new(const_expr(s, c, span))) },
                        &self.env,
                    )?;
                    return Ok(V::C(s2, c2));
                }
                if op == UnOp::Not {
                    let c = self.cond(v)?;
                    let one = self.b.ins().iconst(types::I8, 1);
                    return Ok(V::R(Scalar::Bool, self.b.ins().bxor(c, one)));
                }
                let (s, x) = self.rv(v, span)?;
                self.cost(cost::ARITH);
                if s.is_float() {
                    if op == UnOp::BitNot {
                        return err(span, "'~' of a floating-point value");
                    }
                    return Ok(V::R(s, self.b.ins().fneg(x)));
                }
                let t = s.promote();
                let x = self.conv(x, s, t);
                V::R(t, if op == UnOp::Neg { self.b.ins().ineg(x) } else { self.b.ins().bnot(x) })
            }
            UnOp::Deref => match v {
                V::Ptr(t, a) => V::L(t, Place::Tile(a)),
                V::L(Ty::Ptr(t), p) => {
                    let a = self.load_scalar(Scalar::UInt, p);
                    V::L(*t, Place::Tile(a))
                }
                V::EdgeS { elem, addr } => V::L(Ty::S(elem), Place::Tile(addr)),
                V::Vec { elem, addr, .. } => V::L(Ty::S(elem), Place::Tile(addr)),
                V::L(Ty::Array(t, _), Place::Host(h)) => V::L(*t, Place::Host(h)),
                _ => return err(span, "'*' of a value that is not a pointer"),
            },
            UnOp::AddrOf => match v {
                V::L(t, Place::Tile(a)) => V::Ptr(t, a),
                V::EdgeS { elem, addr } => V::Ptr(Ty::S(elem), addr),
                V::Vec { elem, addr, .. } => V::Ptr(Ty::S(elem), addr),
                _ => {
                    return err(
                        span,
                        "cannot take the address of a local variable (only tile memory has addresses)",
                    )
                }
            },
            UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => {
                let old = match &v {
                    // A scalar edge (`InOut<unsigned> count; count++;`) too.
                    V::L(..) | V::EdgeS { .. } => self.load_value(v.clone(), span)?,
                    _ => return err(span, "'++'/'--' needs a variable"),
                };
                let bop = if matches!(op, UnOp::PreInc | UnOp::PostInc) { BinOp::Add } else { BinOp::Sub };
                let new = self.binop(bop, old.clone(), V::C(Scalar::Int, CV::I(1)), span)?;
                self.assign(v.clone(), new, span)?;
                if matches!(op, UnOp::PostInc | UnOp::PostDec) {
                    old
                } else {
                    v
                }
            }
        })
    }

    /// A written type inside a function body: as [`Unit::resolve_type`],
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

    /// The current value of an lvalue, as an rvalue (pointers stay pointers).
    /// `std::tie(a, b, …) = t`: each name gets the field of the pair or
    /// tuple `t` in its position (`std::ignore` skips one). The fields are
    /// read before any is written, as `t` is a temporary in C++.
    fn assign_tie(&mut self, names: &[Expr], rhs: &Expr, span: Span) -> Result<V> {
        let r = self.expr(rhs)?;
        let V::L(Ty::Class(c), Place::Host(h)) = r else {
            return err(rhs.span, "std::tie(…) = needs a std::pair or std::tuple value on the right");
        };
        if c.fields.len() != names.len() {
            return err(
                span,
                format!(
                    "std::tie of {} names from '{}', which has {} fields",
                    names.len(),
                    c.name,
                    c.fields.len()
                ),
            );
        }
        let mut values = Vec::new();
        for f in &c.fields {
            let crate::sema::FieldTy::Plain(t) = &f.ty else { unreachable!() };
            let at = self.b.ins().iadd_imm_s(h, f.offset as i64);
            values.push(self.load_value(V::L(t.clone(), Place::Host(at)), span)?);
        }
        for (n, v) in names.iter().zip(values) {
            if matches!(&n.kind, ExprKind::Name(p) if p.last() == "ignore") {
                continue;
            }
            let l = self.expr(n)?;
            self.assign(l, v, n.span)?;
        }
        Ok(V::Void)
    }

    fn load_value(&mut self, v: V, span: Span) -> Result<V> {
        Ok(match v {
            V::L(Ty::Ptr(t), p) => {
                let a = self.load_scalar(Scalar::UInt, p);
                V::Ptr(*t, a)
            }
            v => {
                let (s, x) = self.rv(v, span)?;
                V::R(s, x)
            }
        })
    }

    pub(crate) fn assign(&mut self, l: V, r: V, span: Span) -> Result<()> {
        match &l {
            V::L(_, p) => self.check_writable(*p, span)?,
            V::EdgeS { addr, .. } => self.check_writable(Place::Tile(*addr), span)?,
            _ => {}
        }
        match l {
            V::L(Ty::Ptr(_), p) => {
                let a = match r {
                    V::Ptr(_, a) => a,
                    V::L(Ty::Ptr(_), q) => self.load_scalar(Scalar::UInt, q),
                    V::C(_, CV::I(0)) => self.b.ins().iconst(types::I32, 0),
                    _ => return err(span, "assigning a non-pointer to a pointer"),
                };
                if let (Place::Var(var), true) = (p, self.readonly.contains(&a)) {
                    self.readonly_vars.insert(cranelift_codegen::entity::EntityRef::index(var));
                }
                self.store_scalar(Scalar::UInt, p, a);
            }
            V::L(t, p) => match t.scalar() {
                Some(s) => {
                    let x = self.rv_as(r, s, span)?;
                    self.store_scalar(s, p, x);
                }
                None => {
                    let Place::Host(h) = p else { return err(span, "cannot assign this aggregate") };
                    self.copy_agg(&t, h, r, span)?;
                }
            },
            V::EdgeS { elem, addr } => {
                let x = self.rv_as(r, elem, span)?;
                self.store_scalar(elem, Place::Tile(addr), x);
            }
            _ => return err(span, "expression is not assignable"),
        }
        Ok(())
    }

    fn index(&mut self, base: V, idx: V, span: Span) -> Result<V> {
        let i = self.rv_as(idx, Scalar::Int, span)?;
        // Indexing is free: the IPU's loads and stores take base + index.
        let scaled = |l: &mut Self, size: u32| l.b.ins().imul_imm_s(i, size as i64);
        // `addr + i * size`, reusing the value computed earlier in this
        // straight-line region (so its bounds check is reused too).
        let elem_at = |l: &mut Self, addr: Value, size: u32| {
            l.sync_region();
            if let Some(&a) = l.addr_memo.get(&(addr, i, size)) {
                return a;
            }
            let off = scaled(l, size);
            let a = l.b.ins().iadd(addr, off);
            l.addr_memo.insert((addr, i, size), a);
            l.derive(addr, a);
            a
        };
        Ok(match base {
            V::Vec { elem, addr, .. } | V::Ptr(Ty::S(elem), addr) => {
                V::L(Ty::S(elem), Place::Tile(elem_at(self, addr, elem.size())))
            }
            V::Ptr(t, addr) => {
                let a = elem_at(self, addr, t.size());
                V::L(t, Place::Tile(a))
            }
            V::L(Ty::Ptr(t), p) => {
                let addr = self.load_scalar(Scalar::UInt, p);
                let a = elem_at(self, addr, t.size());
                V::L(*t, Place::Tile(a))
            }
            V::EdgeS { elem, addr } => V::L(Ty::S(elem), Place::Tile(elem_at(self, addr, elem.size()))),
            V::List { elem, addr, count: _ } => {
                let off = scaled(self, 8);
                let at = self.b.ins().iadd(addr, off);
                let a = self.load_scalar(Scalar::UInt, Place::Tile(at));
                self.derive(addr, a);
                let at4 = self.b.ins().iadd_imm_s(at, 4);
                let n = self.load_scalar(Scalar::UInt, Place::Tile(at4));
                V::Vec { elem, addr: a, count: Some(n) }
            }
            V::Edges { elem, addr, count: _ } => {
                let off = scaled(self, 4);
                let at = self.b.ins().iadd(addr, off);
                let a = self.load_scalar(Scalar::UInt, Place::Tile(at));
                self.derive(addr, a);
                V::EdgeS { elem, addr: a }
            }
            V::L(Ty::Array(t, n), Place::Host(h)) => {
                // Local arrays live on the host stack: check the index.
                let bad = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, i, n as i64);
                let off64 = self.b.ins().uextend(types::I64, i);
                self.trap_if(bad, abi::STATUS_OUT_OF_BOUNDS, off64);
                let off = self.b.ins().imul_imm_s(off64, t.size() as i64);
                V::L(*t, Place::Host(self.b.ins().iadd(h, off)))
            }
            _ => return err(span, "subscript of a value that is not a vector, pointer or array"),
        })
    }

    fn cast(&mut self, kind: CastKind, ty: &Ty, v: V, span: Span) -> Result<V> {
        match ty {
            Ty::Ptr(t) => {
                let a = match v {
                    V::Ptr(_, a) => a,
                    V::L(Ty::Ptr(_), p) => self.load_scalar(Scalar::UInt, p),
                    V::Vec { addr, .. } => addr,
                    V::C(_, CV::I(0)) => self.b.ins().iconst(types::I32, 0),
                    _ if kind == CastKind::Static => {
                        return err(span, "static_cast to a pointer from a non-pointer")
                    }
                    v => self.rv_as(v, Scalar::UInt, span)?,
                };
                Ok(V::Ptr((**t).clone(), a))
            }
            t => {
                let Some(s) = t.scalar() else {
                    return err(span, format!("cast to '{}' is not supported", t.spell()));
                };
                if kind == CastKind::Reinterpret {
                    return err(span, "reinterpret_cast is only supported between pointer types");
                }
                if let V::C(_, c) = v {
                    return Ok(V::C(s, convert(c, s)));
                }
                let x = self.rv_as(v, s, span)?;
                Ok(match t {
                    Ty::Enum(_) => V::R(s, x),
                    _ => V::R(s, x),
                })
            }
        }
    }

    pub(crate) fn binop(&mut self, op: BinOp, a: V, b: V, span: Span) -> Result<V> {
        if let (V::C(sa, ca), V::C(sb, cb)) = (&a, &b) {
            let (s, c) = ceval::arith(op, (*sa, *ca), (*sb, *cb), span)?;
            return Ok(V::C(s, c));
        }
        // Pointer arithmetic.
        let a = match a {
            V::L(Ty::Ptr(t), p) => V::Ptr(*t, self.load_scalar(Scalar::UInt, p)),
            V::Vec { elem, addr, .. } if matches!(op, BinOp::Add | BinOp::Sub) => V::Ptr(Ty::S(elem), addr),
            a => a,
        };
        let b = match b {
            V::L(Ty::Ptr(t), p) => V::Ptr(*t, self.load_scalar(Scalar::UInt, p)),
            b => b,
        };
        if let V::Ptr(t, pa) = &a {
            match (&b, op) {
                (V::Ptr(_, pb), BinOp::Sub) => {
                    let d = self.b.ins().isub(*pa, *pb);
                    let n = self.b.ins().sdiv_imm_s(d, t.size().max(1) as i64);
                    return Ok(V::R(Scalar::Int, n));
                }
                (V::Ptr(_, pb), _) => {
                    let bv = *pb;
                    return self.cmp_ints(op, *pa, bv, false, span);
                }
                (_, BinOp::Add | BinOp::Sub) => {
                    let i = self.rv_as(b, Scalar::Int, span)?;
                    let off = self.b.ins().imul_imm_s(i, t.size() as i64);
                    let r = if op == BinOp::Add {
                        self.b.ins().iadd(*pa, off)
                    } else {
                        self.b.ins().isub(*pa, off)
                    };
                    self.derive(*pa, r);
                    self.cost(cost::ARITH);
                    return Ok(V::Ptr(t.clone(), r));
                }
                _ => return err(span, "invalid pointer arithmetic"),
            }
        }
        let (Some(sa), Some(sb)) = (self.ty_of(&a), self.ty_of(&b)) else {
            return err(span, "invalid operands to a binary operator");
        };
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            let t = sa.promote();
            let x = self.rv_as(a, t, span)?;
            let y = self.rv_as(b, t, span)?;
            self.cost(cost::ARITH);
            let r = match op {
                BinOp::Shl => self.b.ins().ishl(x, y),
                _ if t.is_signed() => self.b.ins().sshr(x, y),
                _ => self.b.ins().ushr(x, y),
            };
            return Ok(V::R(t, r));
        }
        let t = Scalar::common(sa, sb);
        let x = self.rv_as(a, t, span)?;
        let y = self.rv_as(b, t, span)?;
        if matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge) {
            if t.is_float() {
                self.cost(cost::COMPARE);
                let cc = match op {
                    BinOp::Eq => FloatCC::Equal,
                    BinOp::Ne => FloatCC::NotEqual,
                    BinOp::Lt => FloatCC::LessThan,
                    BinOp::Gt => FloatCC::GreaterThan,
                    BinOp::Le => FloatCC::LessThanOrEqual,
                    _ => FloatCC::GreaterThanOrEqual,
                };
                return Ok(V::R(Scalar::Bool, self.b.ins().fcmp(cc, x, y)));
            }
            return self.cmp_ints(op, x, y, t.is_signed(), span);
        }
        if t.is_float() {
            self.cost(if op == BinOp::Div { cost::DIV_FLOAT } else { cost::ARITH });
            let r = match op {
                BinOp::Add => self.b.ins().fadd(x, y),
                BinOp::Sub => self.b.ins().fsub(x, y),
                BinOp::Mul => self.b.ins().fmul(x, y),
                BinOp::Div => self.b.ins().fdiv(x, y),
                _ => return err(span, "invalid operands of floating-point type to this operator"),
            };
            let r = if t == Scalar::Half { self.round_half(r) } else { r };
            return Ok(V::R(t, r));
        }
        let r = match op {
            BinOp::Add => self.b.ins().iadd(x, y),
            BinOp::Sub => self.b.ins().isub(x, y),
            BinOp::Mul => self.b.ins().imul(x, y),
            BinOp::BitAnd => self.b.ins().band(x, y),
            BinOp::BitOr => self.b.ins().bor(x, y),
            BinOp::BitXor => self.b.ins().bxor(x, y),
            BinOp::Div | BinOp::Rem => {
                self.cost(cost::DIV_INT);
                let z = self.b.ins().icmp_imm_s(IntCC::Equal, y, 0);
                let zero = self.b.ins().iconst(types::I64, 0);
                self.trap_if(z, abi::STATUS_DIV_BY_ZERO, zero);
                if t.is_signed() {
                    let ty = crate::lower::cl_pub(t);
                    let min = self.iconst(ty, if ty == types::I64 { i64::MIN } else { i32::MIN as i64 });
                    let m1 = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
                    let mn = self.b.ins().icmp(IntCC::Equal, x, min);
                    let both = self.b.ins().band(m1, mn);
                    self.trap_if(both, abi::STATUS_DIV_OVERFLOW, zero);
                    if op == BinOp::Div {
                        self.b.ins().sdiv(x, y)
                    } else {
                        self.b.ins().srem(x, y)
                    }
                } else if op == BinOp::Div {
                    self.b.ins().udiv(x, y)
                } else {
                    self.b.ins().urem(x, y)
                }
            }
            _ => return err(span, "invalid binary operator"),
        };
        self.cost(cost::ARITH);
        Ok(V::R(t, r))
    }

    fn cmp_ints(&mut self, op: BinOp, x: Value, y: Value, signed: bool, _span: Span) -> Result<V> {
        self.cost(cost::COMPARE);
        let cc = match (op, signed) {
            (BinOp::Eq, _) => IntCC::Equal,
            (BinOp::Ne, _) => IntCC::NotEqual,
            (BinOp::Lt, true) => IntCC::SignedLessThan,
            (BinOp::Lt, false) => IntCC::UnsignedLessThan,
            (BinOp::Gt, true) => IntCC::SignedGreaterThan,
            (BinOp::Gt, false) => IntCC::UnsignedGreaterThan,
            (BinOp::Le, true) => IntCC::SignedLessThanOrEqual,
            (BinOp::Le, false) => IntCC::UnsignedLessThanOrEqual,
            (BinOp::Ge, true) => IntCC::SignedGreaterThanOrEqual,
            _ => IntCC::UnsignedGreaterThanOrEqual,
        };
        Ok(V::R(Scalar::Bool, self.b.ins().icmp(cc, x, y)))
    }

    fn copy_agg(&mut self, t: &Ty, to: Value, r: V, span: Span) -> Result<()> {
        let V::L(rt, Place::Host(from)) = r else { return err(span, "cannot assign this aggregate") };
        if !rt.same(t) {
            return err(span, "aggregate types differ");
        }
        for off in 0..t.size() {
            let x = self.b.ins().load(types::I8, MemFlagsData::trusted(), from, off as i32);
            self.b.ins().store(MemFlagsData::trusted(), x, to, off as i32);
        }
        Ok(())
    }

    // ---------------------------------------------------------------- calls

    fn call(&mut self, f: &Expr, args: &[Expr], span: Span) -> Result<V> {
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
                Ok(V::Ptr(Ty::S(*elem), self.b.ins().iadd(*addr, off)))
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
            (V::L(Ty::Array(et, n), Place::Host(h)), "fill") => {
                let (Some(s), [a]) = (et.scalar(), args) else {
                    return err(span, "std::array::fill takes one value and needs scalar elements");
                };
                let v = self.expr(a)?;
                let x = self.rv_as(v, s, span)?;
                // for (i = 0; i < n; ++i) a[i] = x, over host memory.
                let (h, n, size) = (*h, i64::from(*n), i64::from(et.size()));
                let i = self.b.declare_var(types::I64);
                let z = self.b.ins().iconst(types::I64, 0);
                self.b.def_var(i, z);
                let head = self.b.create_block();
                let body = self.b.create_block();
                let exit = self.b.create_block();
                self.jump(head, &[]);
                self.b.switch_to_block(head);
                let iv = self.b.use_var(i);
                let c = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, iv, n);
                self.brif(c, body, exit);
                self.b.switch_to_block(body);
                let off = self.b.ins().imul_imm_s(iv, size);
                let at = self.b.ins().iadd(h, off);
                self.store_scalar(s, Place::Host(at), x);
                self.cost(cost::ARITH);
                let ni = self.b.ins().iadd_imm_s(iv, 1);
                self.b.def_var(i, ni);
                self.jump(head, &[]);
                self.b.switch_to_block(exit);
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
        let bare = full.trim_start_matches("::").trim_start_matches("std::").trim_start_matches("poplar::");
        if bare.starts_with("__builtin_ipu") || full.starts_with("ipu::") {
            return err(span, format!("IPU intrinsic '{full}' is not supported (popc targets the host)"));
        }
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
        cands.retain(|c| crate::lower::call::takes(&c.f, args.len()));
        if cands.is_empty() {
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
                let mut one = HashMap::new();
                self.p.bind_args(
                    std::slice::from_ref(t),
                    std::slice::from_ref(a),
                    &self.env,
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
                if let TypeKind::Named(pp) = &pt.kind {
                    if pp.simple() == Some(t.name.as_str()) {
                        if let Some(v) = vals.get(pi) {
                            found = match (v, ptr) {
                                (V::Ptr(ty, _), true) => Some(ty.clone()),
                                (V::L(Ty::Ptr(ty), _), true) => Some((**ty).clone()),
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
                    let mut one = HashMap::new();
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

/// The C++ spelling of a binary operator (for `operator@` names).
fn op_text(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::And => "&&",
        BinOp::Or => "||",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Gt => ">",
        BinOp::Le => "<=",
        BinOp::Ge => ">=",
        BinOp::Comma => ",",
    }
}

fn const_expr(s: Scalar, c: CV, span: Span) -> Expr {
    let inner = match c {
        CV::I(i) => Expr { span, kind: ExprKind::Int(i as u64, false, true, false) },
        CV::F(f) => Expr { span, kind: ExprKind::Float(f, false) },
    };
    let ty = TypeName { span, kind: TypeKind::Scalar(s), is_const: false };
    Expr { span, kind: ExprKind::Cast(CastKind::Static, ty, Box::new(inner)) }
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

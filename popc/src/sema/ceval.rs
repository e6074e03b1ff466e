//! Compile-time evaluation: template arguments, `constexpr` variables and
//! functions, `static_assert`, `if constexpr`, enumerator values.
//!
//! Constants are a [`Scalar`] type and a value ([`CV`]). `constexpr`
//! functions are interpreted statement by statement (declarations,
//! assignments, `if`, loops, `return`) under a step cap, so an endless
//! constant loop is a diagnostic, not a hang.

use std::cell::Cell;
use std::rc::Rc;

use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::hash::HashMap;
use crate::sema::types::Scalar;
use crate::sema::{ClassInst, Env, TVal, Ty, Unit, CV};

/// Steps a constant evaluation may take.
pub const MAX_STEPS: u64 = 1_000_000;

thread_local! {
    static STEPS: Cell<u64> = const { Cell::new(0) };
}

/// Converts a constant to type `s` (C++ conversion rules, wrapping integers).
pub fn convert(v: CV, s: Scalar) -> CV {
    match (v, s.is_float()) {
        (CV::I(i), true) => CV::F(round_to(i as f64, s)),
        (CV::F(f), true) => CV::F(round_to(f, s)),
        (CV::F(f), false) => {
            if s == Scalar::Bool {
                CV::I((f != 0.0) as i128)
            } else {
                wrap(f as i128, s)
            }
        }
        (CV::I(i), false) => {
            if s == Scalar::Bool {
                CV::I((i != 0) as i128)
            } else {
                wrap(i, s)
            }
        }
    }
}

fn round_to(f: f64, s: Scalar) -> f64 {
    match s {
        Scalar::Float => f as f32 as f64,
        Scalar::Half => half::f16::from_f32(f as f32).to_f64(),
        _ => f,
    }
}

fn wrap(i: i128, s: Scalar) -> CV {
    let bits = s.size() * 8;
    let m = i & ((1i128 << bits) - 1);
    if s.is_signed() && m >= 1i128 << (bits - 1) {
        CV::I(m - (1i128 << bits))
    } else {
        CV::I(m)
    }
}

pub fn truthy(v: CV) -> bool {
    match v {
        CV::I(i) => i != 0,
        CV::F(f) => f != 0.0,
    }
}

/// Evaluates a constant expression.
pub fn eval(p: &Unit, e: &Expr, env: &Env) -> Result<(Scalar, CV)> {
    STEPS.with(|s| s.set(0));
    Ev { p, locals: vec![HashMap::default()], depth: 0, project: None, calls: 0 }.expr(e, env)
}

struct Ev<'a> {
    p: &'a Unit,
    locals: Vec<HashMap<String, (Scalar, CV)>>,
    depth: u32,
    /// Under `std::get<I>(e)`: the component `I` wanted of the tuple `e`
    /// makes, and the call depth whose `return {a, b, ..}` gives it.
    /// Tuples are never built: only the component asked for is evaluated.
    project: Option<(usize, u32)>,
    /// Constexpr calls open (what `project` counts in).
    calls: u32,
}

enum Flow {
    Normal,
    Return(Scalar, CV),
    Break,
    Continue,
}

fn step(span: Span) -> Result<()> {
    let n = STEPS.with(|s| {
        let n = s.get() + 1;
        s.set(n);
        n
    });
    if n > MAX_STEPS {
        return err(span, format!("constant evaluation exceeds {MAX_STEPS} steps"));
    }
    Ok(())
}

/// Constant value of a limit of `numeric_limits<T>`.
pub fn limit(s: Scalar, what: &str) -> Option<CV> {
    Some(match (s, what) {
        (Scalar::Float, "max") => CV::F(f32::MAX as f64),
        (Scalar::Float, "min") => CV::F(f32::MIN_POSITIVE as f64),
        (Scalar::Float, "lowest") => CV::F(f32::MIN as f64),
        (Scalar::Float, "epsilon") => CV::F(f32::EPSILON as f64),
        (Scalar::Float, "infinity") => CV::F(f64::INFINITY),
        (Scalar::Float | Scalar::Half | Scalar::Double, "quiet_NaN") => CV::F(f64::NAN),
        (Scalar::Half, "max") => CV::F(65504.0),
        (Scalar::Half, "min") => CV::F(6.103515625e-05),
        (Scalar::Half, "lowest") => CV::F(-65504.0),
        (Scalar::Half, "epsilon") => CV::F(0.0009765625),
        (Scalar::Half | Scalar::Double, "infinity") => CV::F(f64::INFINITY),
        (Scalar::Double, "max") => CV::F(f64::MAX),
        (Scalar::Double, "min") => CV::F(f64::MIN_POSITIVE),
        (Scalar::Double, "lowest") => CV::F(f64::MIN),
        (Scalar::Double, "epsilon") => CV::F(f64::EPSILON),
        (s, "max") if !s.is_float() => {
            let bits = s.size() * 8 - s.is_signed() as u32;
            if s == Scalar::Bool {
                CV::I(1)
            } else {
                CV::I((1i128 << bits) - 1)
            }
        }
        (s, "min" | "lowest") if !s.is_float() => {
            if s.is_signed() {
                CV::I(-(1i128 << (s.size() * 8 - 1)))
            } else {
                CV::I(0)
            }
        }
        (s, "digits") => CV::I(match s {
            Scalar::Float => 24,
            Scalar::Half => 11,
            Scalar::Double => 53,
            s => (s.size() * 8 - s.is_signed() as u32) as i128,
        }),
        (s, "is_signed") => CV::I(s.is_signed() as i128),
        (s, "is_integer") => CV::I(!s.is_float() as i128),
        _ => return None,
    })
}

pub fn arith(op: BinOp, a: (Scalar, CV), b: (Scalar, CV), span: Span) -> Result<(Scalar, CV)> {
    use BinOp::*;
    if matches!(op, And | Or) {
        let r = if op == And { truthy(a.1) && truthy(b.1) } else { truthy(a.1) || truthy(b.1) };
        return Ok((Scalar::Bool, CV::I(r as i128)));
    }
    if matches!(op, Shl | Shr) {
        let t = a.0.promote();
        let (CV::I(x), CV::I(y)) = (convert(a.1, t), b.1) else { return err(span, "shift of a non-integer") };
        let y = (y as u32) % (t.size() * 8);
        let r = if op == Shl {
            x << y
        } else if t.is_signed() {
            x >> y
        } else {
            (x & ((1i128 << (t.size() * 8)) - 1)) >> y
        };
        return Ok((t, convert(CV::I(r), t)));
    }
    let t = Scalar::common(a.0, b.0);
    let (x, y) = (convert(a.1, t), convert(b.1, t));
    let cmp = |o: std::cmp::Ordering| -> (Scalar, CV) {
        let r = match op {
            Eq => o.is_eq(),
            Ne => o.is_ne(),
            Lt => o.is_lt(),
            Gt => o.is_gt(),
            Le => o.is_le(),
            _ => o.is_ge(),
        };
        (Scalar::Bool, CV::I(r as i128))
    };
    Ok(match (x, y) {
        (CV::I(x), CV::I(y)) => match op {
            Add => (t, convert(CV::I(x + y), t)),
            Sub => (t, convert(CV::I(x - y), t)),
            Mul => (t, convert(CV::I(x.wrapping_mul(y)), t)),
            Div | Rem if y == 0 => return err(span, "division by zero in a constant expression"),
            Div => (t, convert(CV::I(x / y), t)),
            Rem => (t, convert(CV::I(x % y), t)),
            BitAnd => (t, convert(CV::I(x & y), t)),
            BitOr => (t, convert(CV::I(x | y), t)),
            BitXor => (t, convert(CV::I(x ^ y), t)),
            Comma => (b.0, b.1),
            _ => cmp(x.cmp(&y)),
        },
        (CV::F(x), CV::F(y)) => match op {
            Add => (t, convert(CV::F(x + y), t)),
            Sub => (t, convert(CV::F(x - y), t)),
            Mul => (t, convert(CV::F(x * y), t)),
            Div => (t, convert(CV::F(x / y), t)),
            Comma => (b.0, b.1),
            Eq | Ne | Lt | Gt | Le | Ge => match x.partial_cmp(&y) {
                Some(o) => cmp(o),
                None => (Scalar::Bool, CV::I((op == Ne) as i128)),
            },
            _ => return err(span, "invalid operands to a floating-point operator"),
        },
        _ => return err(span, "invalid constant operands"),
    })
}

impl Ev<'_> {
    fn lookup_local(&self, n: &str) -> Option<(Scalar, CV)> {
        self.locals.iter().rev().find_map(|m| m.get(n).copied())
    }

    fn expr(&mut self, e: &Expr, env: &Env) -> Result<(Scalar, CV)> {
        step(e.span)?;
        let _level = crate::diag::deeper(e.span)?;
        let p = self.p;
        Ok(match &e.kind {
            ExprKind::Int(v, u, l, nondec) => {
                let v = *v as i128;
                let s = match (u, l) {
                    (false, false) if v <= i32::MAX as i128 => Scalar::Int,
                    (false, false) if *nondec && v <= u32::MAX as i128 => Scalar::UInt,
                    (true, false) if v <= u32::MAX as i128 => Scalar::UInt,
                    (true, _) => Scalar::ULong,
                    _ => Scalar::Long,
                };
                (s, convert(CV::I(v), s))
            }
            ExprKind::Float(f, is32) => {
                if *is32 {
                    (Scalar::Float, CV::F(*f as f32 as f64))
                } else {
                    (Scalar::Double, CV::F(*f))
                }
            }
            ExprKind::Bool(b) => (Scalar::Bool, CV::I(*b as i128)),
            ExprKind::Char(c) => (Scalar::Char, CV::I(*c as i128)),
            ExprKind::Name(path) => return self.name(path, env, e.span),
            ExprKind::Unary(op, a) => {
                let v = self.expr(a, env)?;
                match op {
                    UnOp::Neg => {
                        let t = if v.0.is_float() { v.0 } else { v.0.promote() };
                        match v.1 {
                            CV::I(i) => (t, convert(CV::I(-i), t)),
                            CV::F(f) => (t, CV::F(-f)),
                        }
                    }
                    UnOp::Plus => (v.0.promote(), v.1),
                    UnOp::Not => (Scalar::Bool, CV::I(!truthy(v.1) as i128)),
                    UnOp::BitNot => {
                        let t = v.0.promote();
                        match v.1 {
                            CV::I(i) => (t, convert(CV::I(!i), t)),
                            _ => return err(e.span, "'~' of a non-integer"),
                        }
                    }
                    _ => return err(e.span, "expression is not a constant"),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a, env)?;
                if *op == BinOp::And && !truthy(x.1) {
                    return Ok((Scalar::Bool, CV::I(0)));
                }
                if *op == BinOp::Or && truthy(x.1) {
                    return Ok((Scalar::Bool, CV::I(1)));
                }
                let y = self.expr(b, env)?;
                arith(*op, x, y, e.span)?
            }
            ExprKind::Cond(c, a, b) => {
                if truthy(self.expr(c, env)?.1) {
                    self.expr(a, env)?
                } else {
                    self.expr(b, env)?
                }
            }
            ExprKind::Cast(CastKind::Functional, TypeName { kind: TypeKind::Named(tp), .. }, a)
                if is_trait(tp.last()) && matches!(&a.kind, ExprKind::InitList(l) if l.is_empty()) =>
            {
                // `std::is_same<A, B>{}`: the trait object converts to its value.
                let args = tp.segs.last().and_then(|s| s.args.as_deref()).unwrap_or(&[]);
                self.trait_value(tp.last(), args, env, e.span)?
            }
            ExprKind::Cast(_, t, a) => {
                let ty = p.resolve_type(t, env)?;
                let v = self.expr(a, env)?;
                let Some(s) = ty.scalar() else { return err(e.span, "cast to a non-scalar in a constant") };
                (s, convert(v.1, s))
            }
            ExprKind::SizeofType(t) => {
                let ty = p.resolve_type(t, env)?;
                (Scalar::UInt, CV::I(ty.size() as i128))
            }
            ExprKind::AlignofType(t) => {
                let ty = p.resolve_type(t, env)?;
                (Scalar::UInt, CV::I(ty.align() as i128))
            }
            ExprKind::SizeofExpr(a) => {
                let v = self.expr(a, env)?;
                (Scalar::UInt, CV::I(v.0.size() as i128))
            }
            ExprKind::Call(f, args) => return self.call(f, args, env, e.span),
            ExprKind::Assign(op, lhs, rhs) => {
                let ExprKind::Name(path) = &lhs.kind else {
                    return err(e.span, "expression is not a constant");
                };
                let Some(n) = path.simple() else { return err(e.span, "expression is not a constant") };
                let Some(old) = self.lookup_local(n) else {
                    return err(e.span, "expression is not a constant");
                };
                let r = self.expr(rhs, env)?;
                let v = match op {
                    Some(op) => arith(*op, old, r, e.span)?,
                    None => r,
                };
                let v = (old.0, convert(v.1, old.0));
                self.set_local(n, v);
                v
            }
            _ => return err(e.span, "expression is not a constant"),
        })
    }

    fn set_local(&mut self, n: &str, v: (Scalar, CV)) {
        for m in self.locals.iter_mut().rev() {
            if let Some(x) = m.get_mut(n) {
                *x = v;
                return;
            }
        }
    }

    fn name(&mut self, path: &Path, env: &Env, span: Span) -> Result<(Scalar, CV)> {
        let p = self.p;
        if let Some(n) = path.simple() {
            if let Some(v) = self.lookup_local(n) {
                return Ok(v);
            }
            if let Some(TVal::Const(s, v)) = env.tb.get(n) {
                return Ok((*s, *v));
            }
        }
        let segs: Vec<&str> = path.segs.iter().map(|s| s.name.as_str()).collect();
        let name = segs.join("::");
        // Type traits and numeric_limits.
        if path.segs.len() >= 2 {
            let holder = &path.segs[path.segs.len() - 2];
            let member = path.last();
            match holder.name.as_str() {
                "numeric_limits" => {
                    if let Some(a) = holder.args.as_ref().and_then(|a| a.first()) {
                        if let Ok(Ty::S(s)) = p.targ_type(a, env) {
                            if let Some(v) = limit(s, member) {
                                let t = if matches!(member, "digits" | "is_signed" | "is_integer") {
                                    Scalar::Int
                                } else {
                                    s
                                };
                                return Ok((t, v));
                            }
                        }
                    }
                }
                "is_same" | "is_integral" | "is_floating_point" | "is_signed" | "is_unsigned"
                    if member == "value" =>
                {
                    return self.trait_value(&holder.name, holder.args.as_deref().unwrap_or(&[]), env, span);
                }
                _ => {}
            }
        }
        if let Some(last) = path.segs.last() {
            if let Some(t) = last.name.strip_suffix("_v") {
                if matches!(t, "is_same" | "is_integral" | "is_floating_point" | "is_signed" | "is_unsigned")
                {
                    return self.trait_value(t, last.args.as_deref().unwrap_or(&[]), env, span);
                }
            }
        }
        // Static members of the current class, by their own name (a
        // qualified name is looked up as written first: `F<N-1>::v` inside
        // `F<N>` is not `F<N>::v`). The initialiser sees the class's other
        // members too.
        if let (Some(c), true) = (&env.class, path.segs.len() == 1) {
            let cenv = Env { class: Some(c.clone()), ..c.env.clone() };
            if let Some(v) = self.static_member(c, &cenv, path.last())? {
                return Ok(v);
            }
        }
        for q in p.candidates(&env.ns, &name, path.global) {
            if let Some((e, v)) = p.enum_consts.get(&q) {
                return Ok((e.underlying, CV::I(*v)));
            }
            if let Some((v, ns)) = p.globals.get(&q) {
                // Only a constant's value is known before the program runs;
                // other variables are storage (`super::statics`).
                let constant = (v.is_constexpr || v.ty.is_const) && v.dims.is_empty();
                if let (Some(init), true) = (&v.init, constant) {
                    let genv = Env { ns: ns.clone(), ..Env::default() };
                    let ty = p.resolve_type(&v.ty, &genv)?;
                    let r = self.expr(init, &genv)?;
                    let s = ty.scalar().unwrap_or(r.0);
                    return Ok((s, convert(r.1, s)));
                }
            }
        }
        // `Class<args>::member`, the class named in any way a type can be
        // (an alias, a member alias, a template-id).
        if path.segs.len() >= 2 {
            let mut cp = path.clone();
            cp.segs.pop();
            let tn = TypeName { span, kind: TypeKind::Named(cp.clone()), is_const: false };
            let class = p.resolve_type(&tn, env);
            if let Err(d) = &class {
                if d.is_limit() {
                    return Err(d.clone());
                }
            }
            if let Ok(Ty::Class(c)) = class {
                let cenv = Env { class: Some(c.clone()), ..c.env.clone() };
                if let Some(v) = self.static_member(&c, &cenv, path.last())? {
                    return Ok(v);
                }
            }
            let cname: Vec<&str> = cp.segs.iter().map(|s| s.name.as_str()).collect();
            if let Some(decls) = p.find_class(env, &cname.join("::"), cp.global) {
                let args = cp.segs.last().unwrap().args.clone().unwrap_or_default();
                let c = p.instantiate(&decls, &args, env, span)?;
                let cenv = Env { class: Some(c.clone()), ..c.env.clone() };
                if let Some(v) = self.static_member(&c, &cenv, path.last())? {
                    return Ok(v);
                }
            }
        }
        // `Alias::VALUE` where the alias names an enum type.
        if path.segs.len() >= 2 {
            let mut ep = path.clone();
            ep.segs.pop();
            let tn = TypeName { span, kind: TypeKind::Named(ep), is_const: false };
            if let Ok(Ty::Enum(e)) = p.resolve_type(&tn, env) {
                if let Some((_, v)) = e.values.iter().find(|(n, _)| n == path.last()) {
                    return Ok((e.underlying, CV::I(*v)));
                }
            }
        }
        if let (Some(c), true) = (&env.class, path.segs.len() >= 2) {
            if let Some(v) = self.static_member(c, &c.env, path.last())? {
                return Ok(v);
            }
        }
        err(span, format!("'{name}' is not a constant expression"))
    }

    /// The value of static constant member `n` of class instance `c`,
    /// evaluated once per instance (memoised in [`Unit::statics`]) in
    /// a frame of its own.
    fn static_member(&mut self, c: &ClassInst, cenv: &Env, n: &str) -> Result<Option<(Scalar, CV)>> {
        let key = (c.name.clone(), n.to_string());
        if let Some(v) = self.p.statics.borrow().get(&key) {
            return Ok(Some(*v));
        }
        for m in &c.decl.ast.members {
            if let Member::Field(f) = m {
                if f.is_static && f.names.iter().any(|x| x.0 == n) && constant_init(self.p, c, f, n).is_some()
                {
                    self.depth += 1;
                    if self.depth > crate::sema::MAX_INSTANTIATION_DEPTH {
                        let span = f.span;
                        return err(
                            span,
                            format!(
                                "template instantiation depth exceeds {} while evaluating '{n}'",
                                crate::sema::MAX_INSTANTIATION_DEPTH
                            ),
                        );
                    }
                    let saved = std::mem::replace(&mut self.locals, vec![HashMap::default()]);
                    let r = self.static_member_inner(c, cenv, n);
                    self.locals = saved;
                    self.depth -= 1;
                    // An instance still being built is incomplete (its
                    // parameters unbound): its values are not kept.
                    if let Ok(Some(v)) = &r {
                        if !self.p.building.borrow().contains(&c.name) {
                            self.p.statics.borrow_mut().insert(key, *v);
                        }
                    }
                    return r;
                }
            }
        }
        Ok(None)
    }

    fn static_member_inner(&mut self, c: &ClassInst, cenv: &Env, n: &str) -> Result<Option<(Scalar, CV)>> {
        for m in &c.decl.ast.members {
            if let Member::Field(f) = m {
                if f.is_static && f.names.iter().any(|x| x.0 == n) {
                    if let Some(init) = constant_init(self.p, c, f, n) {
                        let ty = self.p.resolve_type(&f.ty, cenv)?;
                        let r = self.expr(init, cenv)?;
                        let s = ty.scalar().unwrap_or(r.0);
                        return Ok(Some((s, convert(r.1, s))));
                    }
                }
            }
        }
        Ok(None)
    }

    fn trait_value(&mut self, t: &str, args: &[TArg], env: &Env, span: Span) -> Result<(Scalar, CV)> {
        let p = self.p;
        let Some(a) = args.first() else { return err(span, "missing template argument") };
        let x = p.targ_type(a, env)?;
        let r = match t {
            "is_same" => {
                let Some(b) = args.get(1) else { return err(span, "std::is_same takes 2 arguments") };
                x.same(&p.targ_type(b, env)?)
            }
            "is_integral" => x.scalar().is_some_and(|s| !s.is_float()) && !matches!(x, Ty::Enum(_)),
            "is_floating_point" => x.scalar().is_some_and(|s| s.is_float()),
            "is_signed" => x.scalar().is_some_and(|s| s.is_signed()),
            _ => x.scalar().is_some_and(|s| !s.is_signed()),
        };
        Ok((Scalar::Bool, CV::I(r as i128)))
    }

    fn call(&mut self, f: &Expr, args: &[Expr], env: &Env, span: Span) -> Result<(Scalar, CV)> {
        let p = self.p;
        let ExprKind::Name(path) = &f.kind else { return err(span, "expression is not a constant") };
        let segs: Vec<&str> = path.segs.iter().map(|s| s.name.as_str()).collect();
        let name = segs.join("::");
        // `std::is_same<A, B>()`: the trait object converts to its value.
        if is_trait(path.last()) && args.is_empty() {
            let targs = path.segs.last().and_then(|s| s.args.as_deref()).unwrap_or(&[]);
            return self.trait_value(path.last(), targs, env, span);
        }
        // `std::get<I>(e)` of a tuple: `e` evaluated at component `I`.
        if path.last() == "get"
            && args.len() == 1
            && !path.segs.iter().any(|s| s.name != "std" && s.name != "get")
        {
            let targs = path.segs.last().and_then(|s| s.args.as_deref()).unwrap_or(&[]);
            let [i] = targs else { return err(span, "std::get takes one template argument") };
            let (_, i) = p.targ_const(i, env)?;
            let CV::I(i) = i else { return err(span, "std::get needs an integer index") };
            let saved = self.project.replace((i.clamp(0, 64) as usize, self.calls + 1));
            let r = match &args[0].kind {
                ExprKind::Call(..) | ExprKind::Name(_) => self.expr(&args[0], env),
                _ => err(args[0].span, "std::get of this expression is not a constant"),
            };
            self.project = saved;
            return r;
        }
        // numeric_limits<T>::max() and friends.
        if let Ok(v) = self.name(path, env, span) {
            if args.is_empty() {
                return Ok(v);
            }
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a, env)?);
        }
        let bare = name.trim_start_matches("std::");
        match (bare, vals.as_slice()) {
            ("min" | "max", [a, b]) => {
                let lt = truthy(arith(BinOp::Lt, *a, *b, span)?.1);
                return Ok(if (bare == "min") == lt { *a } else { *b });
            }
            ("abs", [a]) => {
                let neg = truthy(arith(BinOp::Lt, *a, (Scalar::Int, CV::I(0)), span)?.1);
                return Ok(if neg { arith(BinOp::Sub, (a.0, CV::I(0)), *a, span)? } else { *a });
            }
            _ => {}
        }
        let mut func = None;
        if let Some(c) = &env.class {
            for m in &c.decl.ast.members {
                if let Member::Method(m) = m {
                    if m.name == name && m.params.len() >= args.len() {
                        func = Some((m.clone(), c.env.clone()));
                    }
                }
            }
        }
        if func.is_none() {
            for q in p.candidates(&env.ns, &name, path.global) {
                if let Some(fs) = p.funcs.get(&q) {
                    if let Some(fd) =
                        fs.iter().find(|f| f.ast.params.len() >= args.len() && f.ast.body.is_some())
                    {
                        let mut tb = HashMap::default();
                        if let Some(tp) = &fd.ast.tparams {
                            let targs = path.segs.last().unwrap().args.clone().unwrap_or_default();
                            if targs.len() < tp.len() {
                                // Deduce from argument types.
                                for (i, t) in tp.iter().enumerate() {
                                    if let Some(a) = targs.get(i) {
                                        let mut one = HashMap::default();
                                        p.bind_args(
                                            std::slice::from_ref(t),
                                            std::slice::from_ref(a),
                                            env,
                                            &mut one,
                                            span,
                                        )?;
                                        tb.extend(one);
                                        continue;
                                    }
                                    for (pi, prm) in fd.ast.params.iter().enumerate() {
                                        if let TypeKind::Named(pp) = &strip_ref(&prm.ty).kind {
                                            if pp.simple() == Some(t.name.as_str()) {
                                                if let Some(v) = vals.get(pi) {
                                                    tb.insert(t.name.clone(), TVal::Type(Ty::S(v.0)));
                                                }
                                            }
                                        }
                                    }
                                }
                            } else {
                                p.bind_args(tp, &targs, env, &mut tb, span)?;
                            }
                        }
                        func =
                            Some((fd.ast.clone(), Env { ns: fd.ns.clone(), tb: Rc::new(tb), class: None }));
                        break;
                    }
                }
            }
        }
        let Some((fun, fenv)) = func else {
            return err(span, format!("'{name}' is not a constant expression"));
        };
        if !fun.is_constexpr {
            return err(span, format!("call of non-constexpr function '{name}' in a constant expression"));
        }
        self.depth += 1;
        if self.depth > 256 {
            return err(span, "constant evaluation nested too deeply");
        }
        let mut frame = HashMap::default();
        for (i, prm) in fun.params.iter().enumerate() {
            let ty = p.resolve_type(&prm.ty, &fenv)?;
            let v = match vals.get(i) {
                Some(v) => *v,
                None => match &prm.default {
                    Some(d) => self.expr(d, &fenv)?,
                    None => return err(span, "too few arguments"),
                },
            };
            let s = ty.scalar().unwrap_or(v.0);
            if let Some(n) = &prm.name {
                frame.insert(n.clone(), (s, convert(v.1, s)));
            }
        }
        let saved = std::mem::replace(&mut self.locals, vec![frame]);
        self.calls += 1;
        // A projected call returns one component: of `std::tuple<T..>`, `T_I`.
        let ret = match self.project {
            Some((i, d)) if d == self.calls => match &fun.ret.kind {
                TypeKind::Named(rp) if matches!(rp.last(), "tuple" | "pair") => {
                    match rp.segs.last().and_then(|s| s.args.as_deref()).and_then(|a| a.get(i)) {
                        Some(a) => p.targ_type(a, &fenv),
                        None => err(span, format!("std::get<{i}> is past the end of the tuple")),
                    }
                }
                _ => p.resolve_type(&fun.ret, &fenv),
            },
            _ => p.resolve_type(&fun.ret, &fenv),
        };
        let r = ret.and_then(|ret| Ok((ret, self.stmts(fun.body.as_deref().unwrap_or(&[]), &fenv)?)));
        self.calls -= 1;
        self.locals = saved;
        self.depth -= 1;
        let (ret, r) = r?;
        match r {
            Flow::Return(s, v) => {
                let s2 = ret.scalar().unwrap_or(s);
                Ok((s2, convert(v, s2)))
            }
            _ => err(span, format!("constexpr function '{name}' did not return a value")),
        }
    }

    fn stmts(&mut self, ss: &[Stmt], env: &Env) -> Result<Flow> {
        for s in ss {
            let f = self.stmt(s, env)?;
            if !matches!(f, Flow::Normal) {
                return Ok(f);
            }
        }
        Ok(Flow::Normal)
    }

    fn stmt(&mut self, s: &Stmt, env: &Env) -> Result<Flow> {
        step(s.span)?;
        let _level = crate::diag::deeper(s.span)?;
        match &s.kind {
            StmtKind::Decl(ds) => {
                for d in ds {
                    let ty = self.p.resolve_type(&d.ty, env)?;
                    let v = match &d.init {
                        Some(i) => self.expr(i, env)?,
                        None => (Scalar::Int, CV::I(0)),
                    };
                    let st = ty.scalar().unwrap_or(v.0);
                    self.locals.last_mut().unwrap().insert(d.name.clone(), (st, convert(v.1, st)));
                }
                Ok(Flow::Normal)
            }
            StmtKind::Expr(e) => {
                self.side_effect(e, env)?;
                Ok(Flow::Normal)
            }
            StmtKind::Return(Some(e)) => {
                if let (Some((i, d)), ExprKind::InitList(l)) = (self.project, &e.kind) {
                    if d == self.calls {
                        let Some(x) = l.get(i) else {
                            return err(e.span, format!("std::get<{i}> is past the end of the tuple"));
                        };
                        let v = self.expr(x, env)?;
                        return Ok(Flow::Return(v.0, v.1));
                    }
                }
                let v = self.expr(e, env)?;
                Ok(Flow::Return(v.0, v.1))
            }
            StmtKind::If { cond, then, els, .. } => {
                if truthy(self.expr(cond, env)?.1) {
                    self.scoped(then, env)
                } else if let Some(e) = els {
                    self.scoped(e, env)
                } else {
                    Ok(Flow::Normal)
                }
            }
            StmtKind::Block(b) => {
                self.locals.push(HashMap::default());
                let r = self.stmts(b, env);
                self.locals.pop();
                r
            }
            StmtKind::For { init, cond, step: st, body } => {
                self.locals.push(HashMap::default());
                let r = (|| -> Result<Flow> {
                    if let Some(i) = init {
                        self.stmt(i, env)?;
                    }
                    loop {
                        if let Some(c) = cond {
                            if !truthy(self.expr(c, env)?.1) {
                                break;
                            }
                        }
                        match self.scoped(body, env)? {
                            Flow::Break => break,
                            Flow::Return(a, b) => return Ok(Flow::Return(a, b)),
                            _ => {}
                        }
                        if let Some(st) = st {
                            self.side_effect(st, env)?;
                        }
                    }
                    Ok(Flow::Normal)
                })();
                self.locals.pop();
                r
            }
            StmtKind::While { cond, body } => {
                while truthy(self.expr(cond, env)?.1) {
                    match self.scoped(body, env)? {
                        Flow::Break => break,
                        Flow::Return(a, b) => return Ok(Flow::Return(a, b)),
                        _ => {}
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::Break => Ok(Flow::Break),
            StmtKind::Continue => Ok(Flow::Continue),
            StmtKind::Empty | StmtKind::StaticAssert(..) => Ok(Flow::Normal),
            _ => err(s.span, "statement not allowed in a constant expression"),
        }
    }

    fn scoped(&mut self, s: &Stmt, env: &Env) -> Result<Flow> {
        self.locals.push(HashMap::default());
        let r = self.stmt(s, env);
        self.locals.pop();
        r
    }

    fn side_effect(&mut self, e: &Expr, env: &Env) -> Result<()> {
        match &e.kind {
            ExprKind::Unary(op @ (UnOp::PreInc | UnOp::PostInc | UnOp::PreDec | UnOp::PostDec), a) => {
                let ExprKind::Name(path) = &a.kind else {
                    return err(e.span, "expression is not a constant");
                };
                let n = path.simple().unwrap_or("");
                let Some(old) = self.lookup_local(n) else {
                    return err(e.span, "expression is not a constant");
                };
                let d = if matches!(op, UnOp::PreInc | UnOp::PostInc) { BinOp::Add } else { BinOp::Sub };
                let v = arith(d, old, (Scalar::Int, CV::I(1)), e.span)?;
                self.set_local(n, (old.0, convert(v.1, old.0)));
                Ok(())
            }
            _ => self.expr(e, env).map(|_| ()),
        }
    }
}

/// The type traits whose `::value` (or object) is a constant.
pub fn is_trait(name: &str) -> bool {
    matches!(name, "is_same" | "is_integral" | "is_floating_point" | "is_signed" | "is_unsigned")
}

pub fn strip_ref(t: &TypeName) -> &TypeName {
    match &t.kind {
        TypeKind::Ref(i) => i,
        _ => t,
    }
}

/// The initialiser of static data member `n` (declared by `f`) of class
/// `c` when it is a constant: `const` or `constexpr`, not an array,
/// initialised in the class or in its definition outside.
fn constant_init<'e>(p: &'e Unit, c: &ClassInst, f: &'e FieldDecl, n: &str) -> Option<&'e Expr> {
    let (_, _, dims) = f.names.iter().find(|x| x.0 == n)?;
    if !(f.is_constexpr || f.ty.is_const) || !dims.is_empty() {
        return None;
    }
    let outside = || p.static_defs.get(&format!("{}::{n}", c.decl.qual)).and_then(|d| d.0.init.as_ref());
    f.init.as_ref().or_else(outside)
}

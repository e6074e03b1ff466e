//! Lowering of statements: blocks, declarations and their initialisers,
//! `if`, the loops (with the counted-loop and elementwise-copy handling of
//! `for`), range-for, `switch`, and `static_assert`.

use std::collections::HashMap;
use std::rc::Rc;

use cranelift_codegen::ir::{self, condcodes::IntCC, types, InstBuilder, Value};

use super::{cl, mflags, Lowerer, Place, RetOther, V};
use crate::cost;
use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::sema::ceval::{self, convert, truthy};
use crate::sema::types::Scalar;
use crate::sema::{ClassInst, Env, FieldTy, Ty, CV};

impl Lowerer<'_, '_> {
    pub(crate) fn stmts(&mut self, ss: &[Stmt]) -> Result<()> {
        for s in ss {
            self.stmt(s)?;
        }
        Ok(())
    }

    pub(crate) fn scoped(&mut self, s: &Stmt) -> Result<()> {
        self.scopes.push(HashMap::new());
        let r = self.stmt(s);
        self.scopes.pop();
        r
    }

    pub(crate) fn stmt(&mut self, s: &Stmt) -> Result<()> {
        let _level = crate::diag::deeper(s.span)?;
        self.set_line(s.span);
        let within = self.calls.last().map_or("", |k| k.split('@').next().unwrap_or(""));
        self.check_size(s.span, within)?;
        match &s.kind {
            StmtKind::Empty => {}
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::Decl(ds) => {
                for d in ds {
                    self.decl(d)?;
                }
            }
            StmtKind::Block(b) => {
                self.scopes.push(HashMap::new());
                let r = self.stmts(b);
                self.scopes.pop();
                r?;
            }
            StmtKind::StaticAssert(e, m) => self.static_assert(e, m.as_deref())?,
            StmtKind::Item(it) => match &**it {
                Item::StaticAssert(_, e, m) => self.static_assert(e, m.as_deref())?,
                Item::Alias(_, name, None, t) => {
                    // Visible to the rest of the function (a type binding).
                    let ty = self.local_type(t)?;
                    let mut tb = (*self.env.tb).clone();
                    tb.insert(name.clone(), crate::sema::TVal::Type(ty));
                    self.env.tb = Rc::new(tb);
                }
                Item::Alias(..) => return err(s.span, "local alias templates are not supported"),
                _ => {
                    return err(
                        s.span,
                        "local type declarations are not supported; declare them at namespace scope",
                    )
                }
            },
            StmtKind::If { init, cond, then, els, is_constexpr } => {
                self.scopes.push(HashMap::new());
                if let Some(i) = init {
                    self.stmt(i)?;
                }
                if *is_constexpr {
                    let (_, v) = self.const_value(cond)?;
                    if truthy(v) {
                        self.scoped(then)?;
                    } else if let Some(e) = els {
                        self.scoped(e)?;
                    }
                } else {
                    let c = self.expr(cond)?;
                    if let V::C(_, v) = c {
                        // Fold constant conditions.
                        if truthy(v) {
                            self.scoped(then)?;
                        } else if let Some(e) = els {
                            self.scoped(e)?;
                        }
                    } else {
                        let c = self.cond(c)?;
                        let tb = self.b.create_block();
                        let eb = self.b.create_block();
                        let join = self.b.create_block();
                        self.brif(c, tb, eb);
                        self.b.switch_to_block(tb);
                        self.scoped(then)?;
                        self.jump(join, &[]);
                        self.b.switch_to_block(eb);
                        if let Some(e) = els {
                            self.scoped(e)?;
                        }
                        self.jump(join, &[]);
                        self.b.switch_to_block(join);
                    }
                }
                self.scopes.pop();
            }
            StmtKind::While { cond, body } => {
                let head = self.b.create_block();
                let bb = self.b.create_block();
                let exit = self.b.create_block();
                self.jump(head, &[]);
                self.b.switch_to_block(head);
                self.stop_check();
                let c = self.expr(cond)?;
                let c = self.cond(c)?;
                self.brif(c, bb, exit);
                self.b.switch_to_block(bb);
                self.loops.push((exit, head));
                let r = self.scoped(body);
                self.loops.pop();
                r?;
                self.jump(head, &[]);
                self.b.switch_to_block(exit);
            }
            StmtKind::DoWhile { body, cond } => {
                let bb = self.b.create_block();
                let cb = self.b.create_block();
                let exit = self.b.create_block();
                self.jump(bb, &[]);
                self.b.switch_to_block(bb);
                self.loops.push((exit, cb));
                let r = self.scoped(body);
                self.loops.pop();
                r?;
                self.jump(cb, &[]);
                self.b.switch_to_block(cb);
                self.stop_check();
                let c = self.expr(cond)?;
                let c = self.cond(c)?;
                self.brif(c, bb, exit);
                self.b.switch_to_block(exit);
            }
            StmtKind::For { init, cond, step, body } => {
                self.scopes.push(HashMap::new());
                if let Some(i) = init {
                    self.stmt(i)?;
                }
                // An elementwise float loop gets a guarded SIMD copy in
                // front of it, which hands over to the scalar loop below
                // (`vectorize`); `simd` is (pattern, the copy's entry, the
                // scalar loop's entry), the copy filled in after the loop.
                let pattern = if self.vectorize || self.counting {
                    self.match_elementwise(cond.as_ref(), step.as_ref(), body)
                } else {
                    None
                };
                // A counted elementwise loop is one a tile compiler unrolls
                // by four: the counting variant counts its iterations in
                // `iters` and charges one trip per four at the exit, so the
                // count is the same whether the copy or the scalar loop ran.
                let counted = is_counted_loop(cond.as_ref(), step.as_ref());
                let iters = (self.counting && counted && pattern.is_some()).then(|| {
                    let v = self.b.declare_var(types::I64);
                    let zero = self.b.ins().iconst(types::I64, 0);
                    self.b.def_var(v, zero);
                    v
                });
                let simd = pattern.filter(|_| self.vectorize).map(|pattern| {
                    let entry = self.b.create_block();
                    let scalar = self.b.create_block();
                    self.flush();
                    self.b.ins().jump(entry, &[]);
                    self.b.switch_to_block(scalar);
                    (pattern, entry, scalar)
                });
                // Rotated: the condition is tested once before the loop
                // and again after the step, so an iteration takes one
                // branch back. The counting variant still counts the jump
                // to the (notional) loop head, as before.
                let bb = self.b.create_block();
                let sb = self.b.create_block();
                let exit = self.b.create_block();
                let line = self.line;
                self.loop_test(cond.as_ref(), bb, exit)?;
                self.b.switch_to_block(bb);
                let iteration_start = self.cost_total;
                self.loops.push((exit, sb));
                let r = self.scoped(body);
                self.loops.pop();
                r?;
                // A counted loop's increment, test and branch back are one
                // `brnzdec`: count one trip, not the pieces.
                if counted {
                    match iters {
                        Some(it) => {
                            let n = self.b.use_var(it);
                            let n = self.b.ins().iadd_imm_s(n, 1);
                            self.b.def_var(it, n);
                        }
                        None => self.cost(cost::COUNTED_LOOP_TRIP),
                    }
                    self.uncounted += 1;
                }
                self.jump(sb, &[]);
                self.b.switch_to_block(sb);
                self.stop_check();
                if let Some(st) = step {
                    self.expr(st)?;
                }
                // The condition's traps report the line they did before.
                self.line = line;
                if self.debug {
                    self.b.set_srcloc(ir::SourceLoc::new(line));
                }
                self.loop_test(cond.as_ref(), bb, exit)?;
                if counted {
                    self.uncounted -= 1;
                }
                if let Some((pattern, entry, scalar)) = simd {
                    // The body is straight-line: everything counted since
                    // `bb` is what one scalar iteration counts.
                    let per_iteration = self.cost_total - iteration_start;
                    self.emit_elementwise(&pattern, per_iteration, iters, entry, scalar);
                }
                self.b.switch_to_block(exit);
                if let Some(it) = iters {
                    let n = self.b.use_var(it);
                    let n = self.b.ins().iadd_imm_s(n, 3);
                    let trips = self.b.ins().ushr_imm_s(n, 2);
                    let trips = self.b.ins().imul_imm_s(trips, cost::COUNTED_LOOP_TRIP as i64);
                    let c = self.b.use_var(self.count);
                    let c = self.b.ins().iadd(c, trips);
                    self.b.def_var(self.count, c);
                }
                self.scopes.pop();
            }
            StmtKind::RangeFor { var, range, body } => self.range_for(var, range, body)?,
            StmtKind::Switch { cond, body } => self.switch(cond, body)?,
            StmtKind::Case(_) | StmtKind::Default => return err(s.span, "'case' outside a switch"),
            StmtKind::Break => {
                let Some(&(exit, _)) = self.loops.last() else {
                    return err(s.span, "'break' outside a loop");
                };
                self.jump(exit, &[]);
            }
            StmtKind::Continue => {
                let Some(cont) = self.loops.iter().rev().map(|l| l.1).find(|b| *b != self.trap) else {
                    return err(s.span, "'continue' outside a loop");
                };
                self.jump(cont, &[]);
            }
            StmtKind::Return(Some(Expr { kind: ExprKind::InitList(l), .. }))
                if matches!(self.frames.last().map(|f| f.ret_other), Some(RetOther::Agg(_))) =>
            {
                // `return {a, b};` from a function returning a class: built in place.
                let Some(frame) = self.frames.last() else { unreachable!() };
                let (exit, ty, RetOther::Agg(h)) = (frame.exit, frame.ret_ty.clone(), frame.ret_other) else {
                    unreachable!()
                };
                self.zero(h, ty.size());
                self.init_aggregate(&ty, h, l, s.span)?;
                self.jump(exit, &[]);
                return Ok(());
            }
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => Some(self.expr(e)?),
                    None => None,
                };
                let Some(frame) = self.frames.last() else {
                    return err(s.span, "'return' outside a function");
                };
                let (exit, ret, auto, other) = (frame.exit, frame.ret, frame.auto_ret, frame.ret_other);
                if !matches!(other, RetOther::None) {
                    let Some(v) = v else { return err(s.span, "missing return value") };
                    self.return_other(other, v, s.span)?;
                    self.jump(exit, &[]);
                    return Ok(());
                }
                match (v, ret) {
                    (Some(v), Some((var, rs))) => {
                        let x = self.rv_as(v, rs, s.span)?;
                        self.b.def_var(var, x);
                    }
                    (Some(v), None) if auto => {
                        let Some(rs) = self.ty_of(&v) else { return err(s.span, "unsupported return value") };
                        let rs = if let V::C(s, _) = v { s } else { rs };
                        let x = self.rv_as(v, rs, s.span)?;
                        let var = self.b.declare_var(cl(rs));
                        self.b.def_var(var, x);
                        let f = self.frames.last_mut().unwrap();
                        f.ret = Some((var, rs));
                        f.ret_ty = Ty::S(rs);
                        f.auto_ret = false;
                    }
                    (Some(V::Void), None) | (None, None) => {}
                    (Some(_), None) => return err(s.span, "returning a value from a void function"),
                    (None, Some(_)) => return err(s.span, "missing return value"),
                }
                self.jump(exit, &[]);
            }
        }
        Ok(())
    }

    pub(crate) fn static_assert(&mut self, e: &Expr, m: Option<&str>) -> Result<()> {
        let (_, v) = self.const_value(e)?;
        if !truthy(v) {
            return err(e.span, crate::sema::assertion_failed(m));
        }
        Ok(())
    }

    pub(crate) fn decl(&mut self, d: &VarDecl) -> Result<()> {
        self.set_line(d.span);
        let is_ref = matches!(d.ty.kind, TypeKind::Ref(_));
        let mut ty = self.local_type(&d.ty)?;
        if !d.dims.is_empty() {
            let mut total = u128::from(ty.size());
            let mut dims = Vec::with_capacity(d.dims.len());
            for dim in &d.dims {
                let (_, n) = self.const_value(dim)?;
                let CV::I(n) = n else { return err(dim.span, "array size must be an integer") };
                if !(1..=1 << 20).contains(&n) {
                    return err(dim.span, "array size must be between 1 and 1048576");
                }
                total = total.saturating_mul(n as u128);
                dims.push(n as u32);
            }
            let max = crate::sema::MAX_OBJECT_SIZE;
            if total > u128::from(max) {
                return err(
                    d.span,
                    format!(
                        "array '{}' is too large: {total} bytes (the limit for one object is {max})",
                        d.name
                    ),
                );
            }
            for n in dims.into_iter().rev() {
                ty = Ty::Array(Box::new(ty), n);
            }
        }
        let const_scalar = d.ty.is_const && ty.scalar().is_some() && !is_ref;
        if d.is_constexpr || const_scalar {
            if let Some(init) = &d.init {
                let value = if d.is_constexpr {
                    self.const_value(init)
                } else {
                    ceval::eval(self.p, init, &self.env)
                };
                match value {
                    Ok((s, v)) => {
                        let s = ty.scalar().unwrap_or(s);
                        self.bind(&d.name, V::C(s, convert(v, s)));
                        return Ok(());
                    }
                    Err(e) if d.is_constexpr => return Err(e),
                    Err(_) => {}
                }
            }
        }
        let init = match &d.init {
            Some(e) if !matches!(e.kind, ExprKind::InitList(_)) => Some(self.expr(e)?),
            _ => None,
        };
        // A `const` scalar whose initialiser folded here (it names local
        // constants) is a constant too: usable as an array bound.
        if let (true, Some(V::C(s, v))) = (const_scalar, &init) {
            let s = ty.scalar().unwrap_or(*s);
            self.bind(&d.name, V::C(s, convert(*v, s)));
            return Ok(());
        }
        if is_ref {
            let Some(v) = init else { return err(d.span, "a reference needs an initialiser") };
            self.bind(&d.name, v);
            return Ok(());
        }
        match &ty {
            Ty::Auto => {
                let Some(v) = init else { return err(d.span, "'auto' needs an initialiser") };
                let v = match v {
                    V::C(s, c) => {
                        let x = self.konst(s, c);
                        self.new_var(s, x)
                    }
                    V::Ptr(t, a) => {
                        let var = self.b.declare_var(types::I32);
                        self.def_ptr(var, a);
                        V::L(Ty::Ptr(Box::new(t)), Place::Var(var))
                    }
                    V::L(Ty::Ptr(t), p) => {
                        let a = self.load_scalar(Scalar::UInt, p);
                        let var = self.b.declare_var(types::I32);
                        self.def_ptr(var, a);
                        V::L(Ty::Ptr(t), Place::Var(var))
                    }
                    v @ (V::Lambda(_) | V::Func(_) | V::Vec { .. } | V::List { .. } | V::Edges { .. }) => v,
                    v @ V::L(Ty::Class(_) | Ty::Array(..), _) => {
                        let V::L(t, _) = &v else { unreachable!() };
                        let t = t.clone();
                        let h = self.stack(t.size(), t.align());
                        self.copy_aggregate(&t, h, v, d.span)?;
                        V::L(t, Place::Host(h))
                    }
                    v => {
                        let (s, x) = self.rv(v, d.span)?;
                        self.new_var(s, x)
                    }
                };
                self.bind(&d.name, v);
            }
            Ty::S(_) | Ty::Enum(_) => {
                let s = ty.scalar().unwrap();
                let x = match (init, &d.init) {
                    (Some(v), _) => self.rv_as(v, s, d.span)?,
                    (None, Some(Expr { kind: ExprKind::InitList(l), .. })) => match l.first() {
                        Some(e) => {
                            let v = self.expr(e)?;
                            self.rv_as(v, s, d.span)?
                        }
                        None => self.konst(s, CV::I(0)),
                    },
                    _ => self.konst(s, CV::I(0)),
                };
                let v = self.new_var(s, x);
                let v = match v {
                    V::L(_, p) => V::L(ty.clone(), p),
                    v => v,
                };
                self.bind(&d.name, v);
            }
            Ty::Ptr(t) => {
                // `auto *p = ...` takes the pointee type from the initialiser.
                let pointee = match &init {
                    Some(V::Ptr(pt, _)) => Some(pt.clone()),
                    Some(V::L(Ty::Ptr(pt), _)) => Some((**pt).clone()),
                    Some(V::Vec { elem, .. }) => Some(Ty::S(*elem)),
                    _ => None,
                };
                let t = match (&**t, pointee) {
                    (Ty::Auto, Some(pt)) => Box::new(pt),
                    (Ty::Auto, None) => return err(d.span, "cannot deduce the type of 'auto *'"),
                    _ => t.clone(),
                };
                let a = match init {
                    Some(V::Ptr(_, a)) => a,
                    Some(V::C(_, CV::I(0))) | None => self.b.ins().iconst(types::I32, 0),
                    Some(V::L(Ty::Ptr(_), p)) => self.load_scalar(Scalar::UInt, p),
                    Some(V::Vec { addr, .. }) => addr,
                    Some(_) => return err(d.span, "pointer initialised from a non-pointer"),
                };
                let var = self.b.declare_var(types::I32);
                self.def_ptr(var, a);
                self.bind(&d.name, V::L(Ty::Ptr(t.clone()), Place::Var(var)));
            }
            Ty::Array(..) | Ty::Class(_) => {
                if let Ty::Class(c) = &ty {
                    if c.base.is_some() {
                        return err(d.span, "vertices cannot be local variables");
                    }
                }
                let h = self.stack(ty.size(), ty.align());
                if let Ty::Class(c) = &ty {
                    if c.has_ctor() {
                        // `S s{a, b}`, `S s(a)`: the constructor; `S s = t`: a copy.
                        let args = match (&d.init, init) {
                            (Some(Expr { kind: ExprKind::InitList(l), .. }), _) => self.args(l)?,
                            (_, Some(v @ V::L(Ty::Class(_), _))) => {
                                self.zero(h, ty.size());
                                self.copy_aggregate(&ty, h, v, d.span)?;
                                self.bind(&d.name, V::L(ty.clone(), Place::Host(h)));
                                return Ok(());
                            }
                            (_, Some(v)) => vec![v],
                            (_, None) => vec![],
                        };
                        self.run_ctor(c, h, args, d.span)?;
                        self.bind(&d.name, V::L(ty.clone(), Place::Host(h)));
                        return Ok(());
                    }
                }
                // Zero, then initialise.
                self.zero(h, ty.size());
                if let Some(Expr { kind: ExprKind::InitList(l), .. }) = &d.init {
                    self.init_aggregate(&ty, h, l, d.span)?;
                } else if let Some(v) = init {
                    self.copy_aggregate(&ty, h, v, d.span)?;
                }
                self.bind(&d.name, V::L(ty.clone(), Place::Host(h)));
            }
            Ty::Void => return err(d.span, "variable of type void"),
            Ty::Edge(_) => {
                return err(d.span, "an edge or vector type can only be the type of a vertex field")
            }
        }
        Ok(())
    }

    /// Runs a constructor of helper class `c` on the object at host address
    /// `h`, inlined like a method: the object is zeroed, reference members
    /// are bound to the arguments their initialisers name, other member
    /// initialisers become assignments ahead of the body.
    pub(crate) fn run_ctor(&mut self, c: &Rc<ClassInst>, h: Value, args: Vec<V>, span: Span) -> Result<()> {
        let fits = |k: &Ctor| {
            let required = k.params.iter().filter(|p| p.default.is_none()).count();
            (required..=k.params.len()).contains(&args.len())
        };
        let mut ctors = c.decl.ast.members.iter().filter_map(|m| match m {
            Member::Ctor(k) if fits(k) => Some(k),
            _ => None,
        });
        let (Some(k), None) = (ctors.next(), ctors.next()) else {
            return err(
                span,
                format!("no single constructor of '{}' takes {} argument(s)", c.name, args.len()),
            );
        };
        let ty = Ty::Class(c.clone());
        self.zero(h, ty.size());
        let mut refs = HashMap::new();
        let mut body = Vec::new();
        for (name, nspan, init) in &k.inits {
            if c.refs.contains(name) {
                // A reference member names a reference parameter.
                let param = match init.as_slice() {
                    [Expr { kind: ExprKind::Name(p), .. }] => p.simple().and_then(|n| {
                        k.params.iter().position(|q| {
                            q.name.as_deref() == Some(n) && matches!(q.ty.kind, TypeKind::Ref(_))
                        })
                    }),
                    _ => None,
                };
                let Some(v) = param.and_then(|i| args.get(i)) else {
                    return err(
                        *nspan,
                        format!("reference member '{name}' must be initialised from a reference parameter"),
                    );
                };
                refs.insert(name.clone(), v.clone());
                continue;
            }
            if !c.fields.iter().any(|f| f.name == *name) {
                return err(*nspan, format!("'{}' has no member '{name}'", c.name));
            }
            let [value] = init.as_slice() else {
                return err(*nspan, format!("member initialiser of '{name}' takes one value"));
            };
            let this = Box::new(Expr { span: *nspan, kind: ExprKind::This });
            let lhs = Expr { span: *nspan, kind: ExprKind::Member(this, name.clone(), true) };
            let assign = ExprKind::Assign(None, Box::new(lhs), Box::new(value.clone()));
            body.push(Stmt { span: *nspan, kind: StmtKind::Expr(Expr { span: *nspan, kind: assign }) });
        }
        if let Some(r) = c.refs.iter().find(|r| !refs.contains_key(*r)) {
            return err(k.span, format!("reference member '{r}' is not initialised by this constructor"));
        }
        self.obj_refs.insert(h, Rc::new(refs));
        body.extend(k.body.iter().cloned());
        let f = Function {
            span: k.span,
            name: c.name.clone(),
            tparams: None,
            ret: TypeName { span: k.span, kind: TypeKind::Void, is_const: false },
            params: k.params.clone(),
            body: Some(body),
            is_constexpr: false,
            is_static: false,
        };
        self.next_this = Some(V::L(ty, Place::Host(h)));
        let env = Env { class: Some(c.clone()), ..c.env.clone() };
        self.inline(&f, env, args, span)?;
        Ok(())
    }

    pub(crate) fn zero(&mut self, h: Value, size: u32) {
        let z = self.b.ins().iconst(types::I8, 0);
        let mut off = 0;
        let z64 = self.b.ins().iconst(types::I64, 0);
        while off + 8 <= size {
            self.b.ins().store(mflags(), z64, h, off as i32);
            off += 8;
        }
        while off < size {
            self.b.ins().store(mflags(), z, h, off as i32);
            off += 1;
        }
    }

    pub(crate) fn init_aggregate(&mut self, ty: &Ty, h: Value, l: &[Expr], span: Span) -> Result<()> {
        match ty {
            Ty::Array(et, n) => {
                if l.len() > *n as usize {
                    return err(span, "too many initialisers for the array");
                }
                for (i, e) in l.iter().enumerate() {
                    let at = self.b.ins().iadd_imm_s(h, (i as u32 * et.size()) as i64);
                    self.init_one(et, at, e)?;
                }
            }
            Ty::Class(c) => {
                for (i, e) in l.iter().enumerate() {
                    let Some(f) = c.fields.get(i) else {
                        return err(span, "too many initialisers for the struct");
                    };
                    let FieldTy::Plain(ft) = &f.ty else { unreachable!() };
                    let at = self.b.ins().iadd_imm_s(h, f.offset as i64);
                    let ft = ft.clone();
                    self.init_one(&ft, at, e)?;
                }
            }
            _ => return err(span, "braced initialiser for a non-aggregate"),
        }
        Ok(())
    }

    pub(crate) fn init_one(&mut self, ty: &Ty, at: Value, e: &Expr) -> Result<()> {
        if let ExprKind::InitList(l) = &e.kind {
            return self.init_aggregate(ty, at, l, e.span);
        }
        let v = self.expr(e)?;
        if let Ty::Ptr(_) = ty {
            let a = match v {
                V::Ptr(_, a) | V::Vec { addr: a, .. } => a,
                V::L(Ty::Ptr(_), p) => self.load_scalar(Scalar::UInt, p),
                V::C(_, CV::I(0)) => self.b.ins().iconst(types::I32, 0),
                _ => return err(e.span, "pointer member initialised from a non-pointer"),
            };
            self.store_scalar(Scalar::UInt, Place::Host(at), a);
            return Ok(());
        }
        match ty.scalar() {
            Some(s) => {
                let x = self.rv_as(v, s, e.span)?;
                self.store_scalar(s, Place::Host(at), x);
            }
            None => self.copy_aggregate(ty, at, v, e.span)?,
        }
        Ok(())
    }

    /// Copies an aggregate (from the host stack or tile memory) into host memory.
    pub(crate) fn copy_aggregate(&mut self, ty: &Ty, to: Value, v: V, span: Span) -> Result<()> {
        let V::L(vt, place) = v else { return err(span, "cannot initialise an aggregate from this value") };
        if !vt.same(ty) {
            return err(span, format!("cannot convert '{}' to '{}'", vt.spell(), ty.spell()));
        }
        let mut off = 0;
        while off < ty.size() {
            let x = match place {
                Place::Host(from) => self.b.ins().load(types::I8, mflags(), from, off as i32),
                Place::Tile(a) => {
                    let at = self.b.ins().iadd_imm_s(a, off as i64);
                    self.load_scalar(Scalar::UChar, Place::Tile(at))
                }
                Place::Var(_) => return err(span, "cannot copy this aggregate"),
            };
            self.b.ins().store(mflags(), x, to, off as i32);
            off += 1;
        }
        Ok(())
    }

    pub(crate) fn range_for(&mut self, var: &VarDecl, range: &Expr, body: &Stmt) -> Result<()> {
        let r = self.expr(range)?;
        // `list`: the element type of a vector list's sub-vectors, which
        // the loop variable names in turn (its table holds 8-byte entries).
        let (elem_ty, base, count, host, list) = match r {
            V::Vec { elem, addr, count } => {
                let Some(c) = count else {
                    return err(range.span, "range-for needs a vector with a size (SPAN layout)");
                };
                (Ty::S(elem), addr, c, false, None)
            }
            V::L(Ty::Array(et, n), Place::Host(h)) => {
                let c = self.b.ins().iconst(types::I32, n as i64);
                (*et, h, c, true, None)
            }
            V::List { elem, addr, count } => (Ty::S(Scalar::ULong), addr, count, false, Some(elem)),
            _ => return err(range.span, "range-for needs a vector or an array"),
        };
        let is_ref = matches!(var.ty.kind, TypeKind::Ref(_));
        let i = self.b.declare_var(types::I32);
        let z = self.b.ins().iconst(types::I32, 0);
        self.b.def_var(i, z);
        let head = self.b.create_block();
        let bb = self.b.create_block();
        let sb = self.b.create_block();
        let exit = self.b.create_block();
        self.jump(head, &[]);
        self.b.switch_to_block(head);
        let iv = self.b.use_var(i);
        let c = self.b.ins().icmp(IntCC::UnsignedLessThan, iv, count);
        self.cost(cost::COMPARE);
        self.brif(c, bb, exit);
        self.b.switch_to_block(bb);
        self.scopes.push(HashMap::new());
        let esz = elem_ty.size();
        let off = self.b.ins().imul_imm_s(iv, esz as i64);
        let place = if host {
            let off = self.b.ins().uextend(types::I64, off);
            Place::Host(self.b.ins().iadd(base, off))
        } else {
            Place::Tile(self.b.ins().iadd(base, off))
        };
        let lv = V::L(elem_ty.clone(), place);
        if let (Some(elem), Place::Tile(at)) = (list, place) {
            // A sub-vector: its (address, count) entry.
            let a = self.load_scalar(Scalar::UInt, Place::Tile(at));
            self.derive(base, a);
            let at4 = self.b.ins().iadd_imm_s(at, 4);
            let n = self.load_scalar(Scalar::UInt, Place::Tile(at4));
            if let Some(m) = self.metadata.get(&base).copied() {
                self.metadata.insert(a, m);
            }
            self.bind(&var.name, V::Vec { elem, addr: a, count: Some(n) });
        } else if is_ref {
            self.bind(&var.name, lv);
        } else {
            let dty = self.p.resolve_type(&var.ty, &self.env)?;
            let s = match dty {
                Ty::Auto => elem_ty.scalar(),
                t => t.scalar(),
            };
            let Some(s) = s else { return err(var.span, "range-for variable must be a scalar") };
            let x = self.rv_as(lv, s, var.span)?;
            let v = self.new_var(s, x);
            self.bind(&var.name, v);
        }
        self.loops.push((exit, sb));
        let r = self.stmt(body);
        self.loops.pop();
        self.scopes.pop();
        r?;
        self.jump(sb, &[]);
        self.b.switch_to_block(sb);
        let iv = self.b.use_var(i);
        let n = self.b.ins().iadd_imm_s(iv, 1);
        self.b.def_var(i, n);
        self.jump(head, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    pub(crate) fn switch(&mut self, cond: &Expr, body: &Stmt) -> Result<()> {
        let c = self.expr(cond)?;
        let (s, x) = self.rv(c, cond.span)?;
        let x = self.conv(x, s, Scalar::LongLong);
        let StmtKind::Block(stmts) = &body.kind else { return err(body.span, "switch body must be a block") };
        let exit = self.b.create_block();
        // One block per label, in order.
        let mut labels = Vec::new();
        for st in stmts {
            match &st.kind {
                StmtKind::Case(e) => {
                    let (_, v) = self.const_value(e)?;
                    let CV::I(v) = v else { return err(e.span, "case label must be an integer") };
                    labels.push((Some(v), self.b.create_block()));
                }
                StmtKind::Default => labels.push((None, self.b.create_block())),
                _ => {}
            }
        }
        let default = labels.iter().find(|l| l.0.is_none()).map_or(exit, |l| l.1);
        // Dispatch through a jump table or a balanced search
        // (`cranelift_frontend::Switch`), linear in the cases to compile;
        // a chain of compares would make a dominator tree as deep as the
        // case list, which the register allocator handles in quadratic
        // time. The counting variant counts what the chain the model
        // describes (a compare and a branch per label, in order) costs:
        // each target goes through a block adding its own count.
        let mut table = cranelift_frontend::Switch::new();
        let mut values = std::collections::HashSet::new();
        let mut landings = Vec::new();
        let mut tested = 0;
        for (v, blk) in &labels {
            let Some(v) = v else { continue };
            let key = *v as i64 as u64;
            if !values.insert(key) {
                let span = stmts
                    .iter()
                    .filter_map(|st| match &st.kind {
                        StmtKind::Case(e) => Some(e.span),
                        _ => None,
                    })
                    .nth(tested)
                    .unwrap_or(body.span);
                return err(span, format!("duplicate case value {v}"));
            }
            tested += 1;
            let to = if self.counting { self.b.create_block() } else { *blk };
            landings.push((to, tested, *blk));
            table.set_entry(key as u128, to);
        }
        let otherwise = if self.counting { self.b.create_block() } else { default };
        self.flush();
        table.emit(&mut self.b, x, otherwise);
        if self.counting {
            let step = cost::COMPARE + cost::BRANCH;
            for (to, n, blk) in landings {
                self.b.switch_to_block(to);
                // The last compare's branch is `jump`'s own.
                self.cost(n as u64 * step - cost::BRANCH);
                self.jump(blk, &[]);
            }
            self.b.switch_to_block(otherwise);
            self.cost(tested as u64 * step);
            self.jump(default, &[]);
        } else {
            let dead = self.b.create_block();
            self.b.switch_to_block(dead);
        }
        self.loops.push((exit, self.loops.last().map_or(self.trap, |l| l.1)));
        self.scopes.push(HashMap::new());
        let mut li = 0;
        let mut r = Ok(());
        for st in stmts {
            match &st.kind {
                StmtKind::Case(_) | StmtKind::Default => {
                    let blk = labels[li].1;
                    li += 1;
                    self.jump(blk, &[]);
                    self.b.switch_to_block(blk);
                }
                _ => {
                    r = self.stmt(st);
                    if r.is_err() {
                        break;
                    }
                }
            }
        }
        self.scopes.pop();
        self.loops.pop();
        r?;
        self.jump(exit, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }
}

/// Whether a `for` loop has the shape a tile compiler turns into a counted
/// loop: an ordering or inequality test of a variable, stepped by `++`,
/// `--`, `+=` or `-=`.
fn is_counted_loop(cond: Option<&Expr>, step: Option<&Expr>) -> bool {
    let test = matches!(
        cond.map(|c| &c.kind),
        Some(ExprKind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Ne, a, _))
            if matches!(a.kind, ExprKind::Name(_))
    );
    let stepped = match step.map(|s| &s.kind) {
        Some(ExprKind::Unary(UnOp::PreInc | UnOp::PostInc | UnOp::PreDec | UnOp::PostDec, v)) => {
            matches!(v.kind, ExprKind::Name(_))
        }
        Some(ExprKind::Assign(Some(BinOp::Add | BinOp::Sub), v, _)) => matches!(v.kind, ExprKind::Name(_)),
        _ => false,
    };
    test && stepped
}

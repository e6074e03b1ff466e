//! Lowering of statements: blocks, `if`, the loops (with the counted-loop
//! and elementwise-copy handling of `for`), range-for, `switch`, `return`,
//! and `static_assert`. Declarations are in `decl`.

use std::rc::Rc;

use cranelift_codegen::ir::{self, condcodes::IntCC, types, InstBuilder};

use super::{cl, Lowerer, Place, RetOther, V};
use crate::cost;
use crate::diag::{err, Result};
use crate::front::ast::*;
use crate::hash::HashMap;
use crate::sema::ceval::truthy;
use crate::sema::types::Scalar;
use crate::sema::{Ty, CV};

impl Lowerer<'_, '_> {
    pub(crate) fn stmts(&mut self, ss: &[Stmt]) -> Result<()> {
        for s in ss {
            self.stmt(s)?;
        }
        Ok(())
    }

    pub(crate) fn scoped(&mut self, s: &Stmt) -> Result<()> {
        self.scopes.push(HashMap::default());
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
            StmtKind::Unsupported(what) => return err(s.span, what.clone()),
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::Decl(ds) => {
                for d in ds {
                    self.decl(d)?;
                }
            }
            StmtKind::Block(b) => {
                self.scopes.push(HashMap::default());
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
                self.scopes.push(HashMap::default());
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
                        let c = self.cond(c, cond.span)?;
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
                let c = self.cond(c, cond.span)?;
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
                let c = self.cond(c, cond.span)?;
                self.brif(c, bb, exit);
                self.b.switch_to_block(exit);
            }
            StmtKind::For { init, cond, step, body } => {
                self.scopes.push(HashMap::default());
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
                // An elementwise loop's body is counted at the exit, per
                // vector (`Elementwise::counted_width`), not per iteration.
                let width = match (&iters, &pattern) {
                    (Some(_), Some(p)) => p.counted_width(),
                    _ => 1,
                };
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
                let deferred = u32::from(width > 1);
                self.deferred += deferred;
                self.loops.push((exit, sb));
                let r = self.scoped(body);
                self.loops.pop();
                self.deferred -= deferred;
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
                // The body is straight-line: everything counted since `bb`
                // is what one scalar iteration counts.
                let per_iteration = self.cost_total - iteration_start;
                if let Some((pattern, entry, scalar)) = simd {
                    let copy_counts = if deferred > 0 { 0 } else { per_iteration };
                    self.emit_elementwise(&pattern, copy_counts, iters, entry, scalar);
                }
                self.b.switch_to_block(exit);
                if let Some(it) = iters {
                    let iterations = self.b.use_var(it);
                    let n = self.b.ins().iadd_imm_s(iterations, 3);
                    let trips = self.b.ins().ushr_imm_s(n, 2);
                    let mut add = self.b.ins().imul_imm_s(trips, cost::COUNTED_LOOP_TRIP as i64);
                    if deferred > 0 {
                        let n = self.b.ins().iadd_imm_s(iterations, width as i64 - 1);
                        let vectors = self.b.ins().udiv_imm_s(n, width as i64);
                        let body = self.b.ins().imul_imm_s(vectors, per_iteration as i64);
                        add = self.b.ins().iadd(add, body);
                    }
                    let c = self.b.use_var(self.count);
                    let c = self.b.ins().iadd(c, add);
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
        self.scopes.push(HashMap::default());
        let esz = elem_ty.size();
        let off = self.b.ins().imul_imm_s(iv, esz as i64);
        let place = if host {
            let off = self.b.ins().uextend(types::I64, off);
            Place::Host(self.b.ins().iadd(base, off))
        } else {
            let at = self.b.ins().iadd(base, off);
            self.note_aligned(at, self.stride_align(base, esz));
            Place::Tile(at)
        };
        let lv = V::L(elem_ty.clone(), place);
        if let (Some(elem), Place::Tile(at)) = (list, place) {
            // A sub-vector: its (address, count) entry.
            let a = self.load_scalar(Scalar::UInt, Place::Tile(at));
            self.derive(base, a);
            // Edge data: aligned to its element (see `lower_vertex`).
            self.note_aligned(a, 1 << elem.size().trailing_zeros());
            let at4 = self.b.ins().iadd_imm_s(at, 4);
            self.note_aligned(at4, self.stride_align(at, 4));
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
        let mut values = crate::hash::HashSet::default();
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
        self.scopes.push(HashMap::default());
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

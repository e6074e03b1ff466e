//! The conditional operator `c ? a : b`: of scalars (converted to their
//! common type), pointers, vector lists, and class objects. Of two class
//! objects that are both lvalues in the same memory the result is an
//! lvalue, the one the condition picks (`(c ? a : b).x = 1` writes `a` or
//! `b`, and a reference binds to it); otherwise it is a temporary copy of
//! the picked one, as C++ makes a prvalue. A derived object is converted
//! to its base when the other operand is of the base class.

use cranelift_codegen::ir::{types, Block};

use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::lower::{Lowerer, Place, V};
use crate::sema::ceval;
use crate::sema::types::Scalar;
use crate::sema::Ty;

impl Lowerer<'_, '_> {
    pub(super) fn conditional(&mut self, c: &Expr, a: &Expr, b: &Expr, span: Span) -> Result<V> {
        let cv = self.expr(c)?;
        if let V::C(_, k) = cv {
            return if ceval::truthy(k) { self.expr(a) } else { self.expr(b) };
        }
        let c = self.cond(cv, c.span)?;
        let tb = self.b.create_block();
        let fb = self.b.create_block();
        let tb2 = self.b.create_block();
        let join = self.b.create_block();
        self.brif(c, tb, fb);
        self.b.switch_to_block(tb);
        let x = self.expr(a)?;
        if let V::L(Ty::Class(_), _) = x {
            return self.conditional_objects(x, (a, b), (fb, tb2, join), span);
        }
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
        Ok(V::R(t, self.b.use_var(var)))
    }

    /// `c ? a : b` where `a`, lowered to `x` in the current block, is a
    /// class object: `b` is lowered in `fb`, then `x` is converted in
    /// `tb2` (reached only from here) once the result's kind is known,
    /// and both meet in `join`.
    fn conditional_objects(
        &mut self,
        x: V,
        (a, b): (&Expr, &Expr),
        (fb, tb2, join): (Block, Block, Block),
        span: Span,
    ) -> Result<V> {
        self.jump(tb2, &[]);
        self.b.switch_to_block(fb);
        let y = self.expr(b)?;
        let (V::L(Ty::Class(xc), _), V::L(Ty::Class(yc), _)) = (&x, &y) else {
            return err(
                span,
                format!("'?:' of a class object and {}: both operands must be objects", self.spell_value(&y)),
            );
        };
        let t = if yc.derives_from(xc) {
            xc.clone()
        } else if xc.derives_from(yc) {
            yc.clone()
        } else {
            return err(
                span,
                format!("'?:' of objects of unrelated classes '{}' and '{}'", xc.name, yc.name),
            );
        };
        if !xc.refs.is_empty() || !yc.refs.is_empty() {
            return err(
                span,
                format!(
                    "'?:' of objects of class '{}', which has reference members, is not supported",
                    t.name
                ),
            );
        }
        let ty = Ty::Class(t);
        let (x, y) = (self.as_base(&ty, x), self.as_base(&ty, y));
        let lvalues = is_lvalue(a) && is_lvalue(b);
        let r = match (lvalues, &x, &y) {
            (true, V::L(_, Place::Host(xh)), V::L(_, Place::Host(yh))) => {
                let var = self.b.declare_var(types::I64);
                self.b.def_var(var, *yh);
                self.jump(join, &[]);
                self.b.switch_to_block(tb2);
                self.b.def_var(var, *xh);
                self.jump(join, &[]);
                self.b.switch_to_block(join);
                Place::Host(self.b.use_var(var))
            }
            (true, V::L(_, Place::Tile(xa)), V::L(_, Place::Tile(ya))) => {
                let (xa, ya) = (*xa, *ya);
                let var = self.b.declare_var(types::I32);
                self.b.def_var(var, ya);
                self.jump(join, &[]);
                self.b.switch_to_block(tb2);
                self.b.def_var(var, xa);
                self.jump(join, &[]);
                self.b.switch_to_block(join);
                let r = self.b.use_var(var);
                self.derive(xa, r);
                self.derive(ya, r);
                Place::Tile(r)
            }
            // A temporary: each branch copies its object into a slot of
            // its own.
            _ => {
                let var = self.b.declare_var(types::I64);
                let h = self.temporary(&ty, y, b.span)?;
                self.b.def_var(var, h);
                self.jump(join, &[]);
                self.b.switch_to_block(tb2);
                let h = self.temporary(&ty, x, a.span)?;
                self.b.def_var(var, h);
                self.jump(join, &[]);
                self.b.switch_to_block(join);
                Place::Host(self.b.use_var(var))
            }
        };
        Ok(V::L(ty, r))
    }

    /// A new object of class type `ty` on the stack, a copy of `v`: its
    /// host address.
    fn temporary(&mut self, ty: &Ty, v: V, span: Span) -> Result<cranelift_codegen::ir::Value> {
        let h = self.stack(ty.size(), ty.align());
        self.copy_aggregate(ty, h, v, span)?;
        self.stamp(ty, h, span)?;
        Ok(h)
    }
}

/// Whether `e` is an lvalue by its form: a name, `*p`, `a[i]`, a member,
/// an assignment or prefix increment, a cast to a reference, `?:` of two
/// lvalues, a comma whose right operand is one. A call counts as a
/// temporary (the copy reads the same values).
fn is_lvalue(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Index(..) | ExprKind::Member(..) | ExprKind::Assign(..) => true,
        ExprKind::Unary(op, _) => matches!(op, UnOp::Deref | UnOp::PreInc | UnOp::PreDec),
        ExprKind::Cast(_, t, _) => matches!(t.kind, TypeKind::Ref(_)),
        ExprKind::Cond(_, a, b) => is_lvalue(a) && is_lvalue(b),
        ExprKind::Binary(BinOp::Comma, _, b) => is_lvalue(b),
        _ => false,
    }
}

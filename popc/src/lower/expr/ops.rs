//! Operators on scalars and pointers: unary and binary arithmetic with the
//! usual arithmetic conversions, comparisons, pointer arithmetic, the
//! checked integer division, and casts.

use cranelift_codegen::ir::{condcodes::FloatCC, condcodes::IntCC, types, InstBuilder, Value};
use linker::abi;

use crate::cost;
use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::lower::{Lowerer, Place, V};
use crate::sema::ceval::{self, convert};
use crate::sema::types::Scalar;
use crate::sema::{Ty, CV};

impl Lowerer<'_, '_> {
    pub(super) fn unary(&mut self, op: UnOp, a: &Expr, span: Span) -> Result<V> {
        if let (UnOp::Deref, ExprKind::This) = (op, &a.kind) {
            if let Some(o) = self.lookup("<this>") {
                return Ok(o);
            }
        }
        let v = self.expr(a)?;
        if matches!(v, V::L(Ty::Class(_), _)) && op != UnOp::AddrOf {
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
            if let Some(r) = self.vector_operator_call(name, vec![v.clone()], span)? {
                return Ok(r);
            }
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
                    let c = self.cond(v, span)?;
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
                V::Ptr(t, a) => {
                    self.check_vector_align(&t, a);
                    V::L(t, Place::Tile(a))
                }
                V::L(Ty::Ptr(t), p) => {
                    let a = self.load_scalar(Scalar::UInt, p);
                    self.check_vector_align(&t, a);
                    V::L(*t, Place::Tile(a))
                }
                V::EdgeS { elem, addr } => V::L(Ty::S(elem), Place::Tile(addr)),
                V::Vec { elem, addr, .. } => V::L(Ty::S(elem), Place::Tile(addr)),
                V::L(Ty::Array(t, _), Place::Host(h)) => V::L(*t, Place::Host(h)),
                V::Local { ty, place, room } => self.local_at(ty, place, room, 0, span)?,
                _ => return err(span, "'*' of a value that is not a pointer"),
            },
            UnOp::AddrOf => match v {
                V::L(t, Place::Tile(a)) => V::Ptr(t, a),
                V::EdgeS { elem, addr } => V::Ptr(Ty::S(elem), addr),
                V::Vec { elem, addr, .. } => V::Ptr(Ty::S(elem), addr),
                V::L(t, place @ (Place::Host(_) | Place::Var(_))) => {
                    let room = t.size();
                    V::Local { ty: t, place, room }
                }
                _ => return err(span, "'&' of a value that is not an object"),
            },
            UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => {
                let old = match &v {
                    // A scalar edge (`InOut<unsigned> count; count++;`) too.
                    V::L(..) | V::EdgeS { .. } => self.load_value(v.clone(), span)?,
                    V::Local { .. } => return err(span, LOCAL_POINTER_FIXED),
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

    pub(crate) fn cast(&mut self, kind: CastKind, ty: &Ty, v: V, span: Span) -> Result<V> {
        match ty {
            Ty::Ptr(t) => {
                if let Some(l) = self.local_pointer(&v, t, span)? {
                    return Ok(l);
                }
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
                // A pointer's tile address as an integer (a C-style cast or
                // `reinterpret_cast`, PopLibs' alignment test
                // `reinterpret_cast<std::uintptr_t>(p) & 7`), or its truth.
                let from_pointer = matches!(v, V::Ptr(..) | V::L(Ty::Ptr(_), _));
                let narrow = s.is_float() || s.size() < 4;
                if from_pointer && narrow && (s != Scalar::Bool || kind == CastKind::Reinterpret) {
                    let what = format!(
                        "cast from a pointer to '{}', which cannot hold a tile address (32 bits)",
                        s.name()
                    );
                    return err(span, what);
                }
                if kind == CastKind::Reinterpret && !from_pointer {
                    let what = "reinterpret_cast is only supported between pointer types and from a pointer to an integer";
                    return err(span, what);
                }
                if let V::C(_, c) = v {
                    return Ok(V::C(s, convert(c, s)));
                }
                let x = self.rv_as(v, s, span)?;
                Ok(V::R(s, x))
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
            V::L(Ty::Array(e, n), Place::Host(h)) if matches!(op, BinOp::Add | BinOp::Sub) => {
                V::Local { room: e.size() * n, ty: *e, place: Place::Host(h) }
            }
            a => a,
        };
        if let V::Local { ty, place, room } = a {
            return self.local_offset(ty, place, room, op, b, span);
        }
        if matches!(b, V::Local { .. }) {
            return err(span, "this operator is not supported on the address of a local variable");
        }
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
                    self.note_aligned(r, self.stride_align(*pa, t.size()));
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
            self.derive(x, r);
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
        // An integer computed from an `Input` edge's address stays read-only
        // data's address (see `cast`).
        self.derive(x, r);
        self.derive(y, r);
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
}

/// The C++ spelling of a binary operator (for `operator@` names).
pub(super) fn op_text(op: BinOp) -> &'static str {
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

/// Why a pointer to a local cannot move.
pub(crate) const LOCAL_POINTER_FIXED: &str =
    "a pointer to a local variable cannot be changed (popc keeps the addresses of locals at compile time)";

impl Lowerer<'_, '_> {
    /// `v` as a pointer to `to` when it points into a local: the address of
    /// a local cast to another pointer type, or a local array decayed to a
    /// pointer to its first element (`reinterpret_cast<uint32_t *>(pair)`).
    /// A local scalar in a variable has no bytes to reinterpret: only its
    /// own type may point at it.
    pub(crate) fn local_pointer(&mut self, v: &V, to: &Ty, span: Span) -> Result<Option<V>> {
        let (ty, place, room) = match v {
            V::Local { ty, place, room } => (ty, *place, *room),
            V::L(t @ Ty::Array(..), place @ Place::Host(_)) => (t, *place, t.size()),
            _ => return Ok(None),
        };
        if let (Place::Var(_), false) = (place, ty.same(to) || matches!(to, Ty::Void)) {
            return err(
                span,
                format!(
                    "cannot point at local variable of type '{}' as '{} *' (it lives in a register; \
                     make it an array or struct to reinterpret its bytes)",
                    ty.spell(),
                    to.spell()
                ),
            );
        }
        // The bytes of a polymorphic object are not to be reinterpreted:
        // its tag must stay the one its constructor wrote (`virtuals`).
        let related = match (ty, to) {
            (Ty::Class(a), Ty::Class(b)) => a.derives_from(b) || b.derives_from(a),
            _ => ty.same(to),
        };
        if !related && !matches!(to, Ty::Void) && (crate::sema::has_tags(ty) || crate::sema::has_tags(to)) {
            return err(
                span,
                format!(
                    "cannot point at a local '{}' as '{} *': one of them has virtual functions, whose objects' bytes \
                     popc does not reinterpret",
                    ty.spell(),
                    to.spell()
                ),
            );
        }
        Ok(Some(V::Local { ty: to.clone(), place, room }))
    }

    /// The object `k` elements after a local address (`*p`, `p[k]`),
    /// checked against the object it points into.
    pub(crate) fn local_at(&mut self, ty: Ty, place: Place, room: u32, k: i64, span: Span) -> Result<V> {
        let size = i64::from(ty.size());
        if size == 0 || k < 0 || (k + 1) * size > i64::from(room) {
            return err(
                span,
                format!(
                    "access of '{}' at element {k} is outside the local object it points into ({room} bytes)",
                    ty.spell()
                ),
            );
        }
        Ok(match place {
            Place::Host(h) => V::L(ty, Place::Host(self.b.ins().iadd_imm_s(h, k * size))),
            place => V::L(ty, place),
        })
    }

    /// `p + k`, `p - k` of a local address with a constant `k`.
    fn local_offset(&mut self, ty: Ty, place: Place, room: u32, op: BinOp, b: V, span: Span) -> Result<V> {
        let k = match (op, &b) {
            (BinOp::Add | BinOp::Sub, V::C(s, CV::I(k))) if !s.is_float() => {
                if op == BinOp::Sub {
                    -*k
                } else {
                    *k
                }
            }
            (BinOp::Add | BinOp::Sub, _) => {
                return err(
                    span,
                    "only a constant may be added to the address of a local variable (its address is not a run-time value)",
                )
            }
            _ => return err(span, "this operator is not supported on the address of a local variable"),
        };
        let off = k.saturating_mul(i128::from(ty.size()));
        if k == 0 {
            return Ok(V::Local { ty, place, room });
        }
        let Place::Host(h) = place else {
            return err(span, "pointer arithmetic past a local scalar variable");
        };
        if off < 0 || off > i128::from(room) {
            return err(
                span,
                format!("pointer arithmetic leaves the local object it points into ({room} bytes)"),
            );
        }
        let h = self.b.ins().iadd_imm_s(h, off as i64);
        Ok(V::Local { ty, place: Place::Host(h), room: room - off as u32 })
    }
}

//! What the IPU's vector types (`front::vector_types`) have beyond the
//! structs they are declared as: `v[i]` (an element, the index checked
//! against the element count: at compile time when constant, else a trap),
//! alignment traps when a vector is reached through a pointer into tile
//! memory, the error for operands that are vectors of different types, and
//! the cost of a vector operation: for float vectors one instruction per
//! 64 bits, as the IPU's SIMD instructions do (division and integer
//! vectors element by element, which is all the IPU has for them), plus one
//! load per 64 bits of an operand in tile memory, rather than the
//! element-wise work the struct's operator does. On the host, `+ - * /`
//! and unary `-` of `float4`, and `+ - *`, unary `-` and `~` of
//! `int4`/`uint4`, are one SIMD operation here instead of the struct's
//! operator (the same result in every lane).
//! Scalar operands are broadcast here, and `ipu::load_postinc` and
//! `__builtin_convertvector` are built in here.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value};
use linker::abi;

use crate::cost;
use crate::diag::{err, Result, Span};
use crate::front::ast::{BinOp, Expr, ExprKind, TypeKind, TypeName, UnOp};
use crate::front::vector_types::VectorType;
use crate::lower::vectorize::VECTOR_FLAGS;
use crate::lower::{Lowerer, Place, V};
use crate::sema::types::Scalar;
use crate::sema::{FieldTy, Ty, CV};

/// The host SIMD type of a vector with four 32-bit elements (`float4`,
/// `int4`, `uint4`), which popc operates on as one value.
fn simd_lane(vt: &VectorType) -> Option<types::Type> {
    match (vt.n, vt.elem_size, vt.float) {
        (4, 4, true) => Some(types::F32X4),
        (4, 4, false) => Some(types::I32X4),
        _ => None,
    }
}

/// The vector type `t` is, if it is one.
pub(crate) fn vector_type(t: &Ty) -> Option<&'static VectorType> {
    match t {
        Ty::Class(c) => c.vector(),
        _ => None,
    }
}

/// The vector type of a value, if it is an object of one.
fn vector_of(v: &V) -> Option<&'static VectorType> {
    match v {
        V::L(t, _) => vector_type(t),
        _ => None,
    }
}

/// The unsigned scalar a copy of an object of type `t` moves at a time
/// when `t` is a vector: up to 64 bits, one IPU load or store.
pub(crate) fn vector_piece(t: &Ty) -> Option<Scalar> {
    vector_type(t).map(|v| match (v.elem_size * v.n).min(8) {
        2 => Scalar::UShort,
        4 => Scalar::UInt,
        _ => Scalar::ULong,
    })
}

/// 64-bit pieces of a vector: the IPU's loads, stores and SIMD arithmetic
/// each handle one.
fn pieces(v: &VectorType) -> u64 {
    u64::from((v.elem_size * v.n).div_ceil(8))
}

impl Lowerer<'_, '_> {
    /// `v[i]` on a vector object: the element, or `None` when `base` is
    /// not a vector.
    pub(super) fn vector_index(&mut self, base: &V, idx: &V, span: Span) -> Result<Option<V>> {
        let (V::L(t, place), Some(vt)) = (base, vector_of(base)) else { return Ok(None) };
        let Ty::Class(c) = t else { return Ok(None) };
        let FieldTy::Plain(Ty::S(elem)) = &c.fields[0].ty else { return Ok(None) };
        let elem = *elem;
        if let V::C(_, CV::I(k)) = idx {
            if !(0..i128::from(vt.n)).contains(k) {
                return err(span, format!("index {k} is out of range for '{}' ({} elements)", vt.name, vt.n));
            }
        }
        let constant = matches!(idx, V::C(..));
        let i = self.rv_as(idx.clone(), Scalar::Int, span)?;
        let i64v = self.b.ins().uextend(types::I64, i);
        if !constant {
            let bad = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, i, i64::from(vt.n));
            self.trap_if(bad, abi::STATUS_INDEX, i64v);
        }
        Ok(Some(match *place {
            Place::Host(h) => {
                let off = self.b.ins().imul_imm_s(i64v, i64::from(vt.elem_size));
                V::L(Ty::S(elem), Place::Host(self.b.ins().iadd(h, off)))
            }
            Place::Tile(a) => {
                let off = self.b.ins().imul_imm_s(i, i64::from(vt.elem_size));
                let at = self.b.ins().iadd(a, off);
                self.derive(a, at);
                self.note_aligned(at, self.stride_align(a, vt.elem_size));
                V::L(Ty::S(elem), Place::Tile(at))
            }
            Place::Var(_) => return err(span, "subscript of a vector that is not in memory"),
        }))
    }

    /// Traps with the misaligned-access status when `addr` (a tile address
    /// of an object of type `t`) is not a multiple of a vector's alignment.
    pub(crate) fn check_vector_align(&mut self, t: &Ty, addr: Value) {
        if vector_type(t).is_none() {
            return;
        }
        let low = self.b.ins().band_imm_s(addr, i64::from(t.align() - 1));
        let bad = self.b.ins().icmp_imm_s(IntCC::NotEqual, low, 0);
        let at = self.b.ins().uextend(types::I64, addr);
        self.trap_if(bad, abi::STATUS_MISALIGNED, at);
    }

    /// Before an operator on `operands`: an error when two of them are
    /// vectors of different types (C++ converts neither). Returns the cost
    /// the operation has on the IPU when a vector takes part, which the
    /// caller charges instead of what the struct's operator does.
    pub(super) fn vector_operation(&mut self, op: &str, operands: &[V], span: Span) -> Result<Option<u64>> {
        let vecs: Vec<&VectorType> = operands.iter().filter_map(vector_of).collect();
        let Some(first) = vecs.first() else { return Ok(None) };
        if let Some(other) = vecs.iter().find(|v| v.name != first.name) {
            return err(
                span,
                format!(
                    "invalid operands to '{op}': '{}' and '{}' are vectors of different types",
                    first.name, other.name
                ),
            );
        }
        let integer_only = matches!(op.trim_end_matches('='), "%" | "&" | "|" | "^" | "<<" | ">>" | "~");
        if first.float && integer_only {
            return err(
                span,
                format!("invalid operand to '{op}': '{}' has floating-point elements", first.name),
            );
        }
        let loads = operands
            .iter()
            .filter(|v| matches!(v, V::L(_, Place::Tile(_))))
            .filter_map(vector_of)
            .map(pieces)
            .sum::<u64>();
        // The IPU's float SIMD (`f32v2add`, `f16v4cmplt`...) does 64 bits
        // in one instruction; it has no vector division and no integer
        // vector arithmetic, so those go element by element.
        let n = u64::from(first.n);
        let arith = match (op.trim_end_matches('='), first.float) {
            ("/", true) => n * cost::DIV_FLOAT,
            ("/" | "%", false) => n * cost::DIV_INT,
            (_, true) => pieces(first) * cost::ARITH,
            (_, false) => n * cost::ARITH,
        };
        Ok(Some(arith + loads * cost::MEMORY))
    }

    /// An operator on vectors through the struct's `operator@`, counted as
    /// the IPU's SIMD instructions.
    pub(super) fn vector_operator_call(
        &mut self,
        op: &str,
        mut operands: Vec<V>,
        span: Span,
    ) -> Result<Option<V>> {
        let Some(cost) = self.vector_operation(op, &operands, span)? else { return Ok(None) };
        let ty = operands.iter().find_map(|v| match v {
            V::L(t, _) if vector_type(t).is_some() => Some(t.clone()),
            _ => None,
        });
        let Some(ty) = ty else { return Ok(None) };
        let compound = op.ends_with('=') && !matches!(op, "==" | "!=" | "<=" | ">=");
        if let (true, Some(V::L(_, place))) = (compound, operands.first()) {
            // Here, so a write into an `Input` edge is reported at the
            // user's line rather than inside the struct's operator.
            self.check_writable(*place, span)?;
        }
        self.uncounted += 1;
        let mut r = Ok(None);
        for v in operands.iter_mut() {
            if vector_of(v).is_none() {
                match self.broadcast(&ty, v.clone(), op, span) {
                    Ok(b) => *v = b,
                    Err(e) => r = Err(e),
                }
            }
        }
        if r.is_ok() {
            r = match self.simd_operator(op, &operands, &ty) {
                Ok(None) => self.operator_call(op, operands, span),
                done => done,
            };
        }
        self.uncounted -= 1;
        self.cost(cost);
        r
    }

    /// `a op b` or `a op= b` on two 128-bit vectors of 32-bit elements
    /// (`float4`, `int4`, `uint4`) as one host SIMD operation instead of
    /// the struct's operator, which works element by element through
    /// memory. Each lane does the operation the element-wise code does
    /// (IEEE single precision, or wrapping 32-bit integers), so results are
    /// the same; counts are the caller's either way. `None` for anything
    /// else (narrower vectors, integer division, other operators), which
    /// the struct's operator does.
    fn simd_operator(&mut self, op: &str, operands: &[V], ty: &Ty) -> Result<Option<V>> {
        let Some(vt) = vector_type(ty) else { return Ok(None) };
        let (base, compound) = match op.strip_suffix('=') {
            Some(b) => (b, true),
            None => (op, false),
        };
        let Some(lane) = simd_lane(vt) else { return Ok(None) };
        if let [V::L(t, a)] = operands {
            // Unary `-` (and `~` of integers): `T(-x)` is the negation, or
            // the complement, of each element's bits.
            if vector_type(t).is_none_or(|v| v.name != vt.name) || compound {
                return Ok(None);
            }
            if !matches!((base, vt.float), ("-", _) | ("~", false)) {
                return Ok(None);
            }
            let Some(ha) = self.vector_host_addr(*a) else { return Ok(None) };
            let x = self.b.ins().load(lane, VECTOR_FLAGS, ha, 0);
            let r = match (base, vt.float) {
                ("-", true) => self.b.ins().fneg(x),
                ("-", false) => self.b.ins().ineg(x),
                _ => self.b.ins().bnot(x),
            };
            let h = self.stack(ty.size(), ty.align());
            self.b.ins().store(VECTOR_FLAGS, r, h, 0);
            return Ok(Some(V::L(ty.clone(), Place::Host(h))));
        }
        if !matches!((vt.float, base), (true, "+" | "-" | "*" | "/") | (false, "+" | "-" | "*")) {
            return Ok(None);
        }
        let [V::L(ta, a), V::L(tb, b)] = operands else { return Ok(None) };
        let same = |t: &Ty| vector_type(t).is_some_and(|v| v.name == vt.name);
        if !same(ta) || !same(tb) {
            return Ok(None);
        }
        let (Some(ha), Some(hb)) = (self.vector_host_addr(*a), self.vector_host_addr(*b)) else {
            return Ok(None);
        };
        let x = self.b.ins().load(lane, VECTOR_FLAGS, ha, 0);
        let y = self.b.ins().load(lane, VECTOR_FLAGS, hb, 0);
        let r = match (base, vt.float) {
            ("+", true) => self.b.ins().fadd(x, y),
            ("-", true) => self.b.ins().fsub(x, y),
            ("*", true) => self.b.ins().fmul(x, y),
            ("/", true) => self.b.ins().fdiv(x, y),
            ("+", false) => self.b.ins().iadd(x, y),
            ("-", false) => self.b.ins().isub(x, y),
            _ => self.b.ins().imul(x, y),
        };
        if compound {
            self.b.ins().store(VECTOR_FLAGS, r, ha, 0);
            return Ok(Some(operands[0].clone()));
        }
        let h = self.stack(ty.size(), ty.align());
        self.b.ins().store(VECTOR_FLAGS, r, h, 0);
        Ok(Some(V::L(ty.clone(), Place::Host(h))))
    }

    /// The host address of a vector object in `place`: a stack object's,
    /// or one in tile memory after its bounds check.
    fn vector_host_addr(&mut self, place: Place) -> Option<Value> {
        match place {
            Place::Host(h) => Some(h),
            Place::Tile(a) => Some(self.tile_addr(a, 16)),
            _ => None,
        }
    }

    /// A scalar operand of a vector operator as a vector of type `ty`, every
    /// element the scalar converted to the element type.
    fn broadcast(&mut self, ty: &Ty, v: V, op: &str, span: Span) -> Result<V> {
        let (Ty::Class(c), Some(vt)) = (ty, vector_type(ty)) else { return err(span, "not a vector type") };
        let FieldTy::Plain(Ty::S(elem)) = &c.fields[0].ty else { return err(span, "not a vector type") };
        if self.ty_of(&v).is_none() {
            return err(
                span,
                format!("invalid operands to '{op}': a '{}' and a value that is not a scalar", vt.name),
            );
        }
        let x = self.rv_as(v, *elem, span)?;
        let h = self.stack(ty.size(), ty.align());
        if let Some(lane) = simd_lane(vt) {
            // One 128-bit store of the splatted scalar.
            let all = self.b.ins().splat(lane, x);
            self.b.ins().store(VECTOR_FLAGS, all, h, 0);
            return Ok(V::L(ty.clone(), Place::Host(h)));
        }
        for i in 0..vt.n {
            let at = self.b.ins().iadd_imm_s(h, i64::from(i * vt.elem_size));
            self.store_scalar(*elem, Place::Host(at), x);
        }
        Ok(V::L(ty.clone(), Place::Host(h)))
    }

    /// `ipu::load_postinc(&p, step)`: the object `p` points to, then `p`
    /// advanced by `step` objects (the IPU's post-incrementing load). Built
    /// in, since popc's locals have no addresses.
    pub(crate) fn load_postinc(&mut self, args: &[Expr], span: Span) -> Result<V> {
        let [ptr, step] = args else { return err(span, "ipu::load_postinc takes 2 arguments") };
        let not_ptr = || err(ptr.span, "ipu::load_postinc takes the address of a pointer variable ('&p')");
        let ExprKind::Unary(UnOp::AddrOf, inner) = &ptr.kind else { return not_ptr() };
        let var = self.expr(inner)?;
        if !matches!(var, V::L(Ty::Ptr(_), _)) {
            return not_ptr();
        }
        let old = self.load_value(var.clone(), span)?;
        let V::Ptr(t, a) = old.clone() else { return not_ptr() };
        self.check_vector_align(&t, a);
        let value = match t.scalar() {
            Some(_) => self.load_value(V::L(t, Place::Tile(a)), span)?,
            None => {
                let h = self.stack(t.size(), t.align());
                self.copy_aggregate(&t, h, V::L(t.clone(), Place::Tile(a)), span)?;
                V::L(t, Place::Host(h))
            }
        };
        let step = self.expr(step)?;
        let new = self.binop(BinOp::Add, old, step, span)?;
        self.assign(var, new, span)?;
        Ok(value)
    }

    /// `__builtin_convertvector(v, T)`: a vector of type `T` with `v`'s
    /// elements converted one by one, as scalar conversions do; `T` has as
    /// many elements as `v`. Counted as one instruction per 64 bits of `T`.
    pub(crate) fn convert_vector(&mut self, args: &[Expr], span: Span) -> Result<V> {
        let [v, t] = args else {
            return err(span, "__builtin_convertvector takes a vector and a vector type");
        };
        let ExprKind::Name(p) = &t.kind else { return err(t.span, "expected a vector type") };
        let tn = TypeName { span: t.span, kind: TypeKind::Named(p.clone()), is_const: false };
        let ty = self.p.resolve_type(&tn, &self.env)?;
        let val = self.expr(v)?;
        let Some(to) = vector_type(&ty) else {
            return err(t.span, format!("'{}' is not a vector type", ty.spell()));
        };
        let Some(from) = vector_of(&val) else {
            return err(v.span, "__builtin_convertvector of a value that is not a vector");
        };
        if from.n != to.n {
            return err(
                span,
                format!("cannot convert '{}' to '{}': their element counts differ", from.name, to.name),
            );
        }
        let Ty::Class(c) = &ty else { return err(t.span, "expected a vector type") };
        let FieldTy::Plain(Ty::S(elem)) = &c.fields[0].ty else {
            return err(t.span, "expected a vector type");
        };
        let elem = *elem;
        let h = self.stack(ty.size(), ty.align());
        self.uncounted += 1;
        for i in 0..to.n {
            let Some(e) = self.vector_index(&val, &V::C(Scalar::Int, CV::I(i.into())), span)? else {
                unreachable!("a vector has elements")
            };
            let x = self.rv_as(e, elem, span)?;
            let at = self.b.ins().iadd_imm_s(h, i64::from(i * to.elem_size));
            self.store_scalar(elem, Place::Host(at), x);
        }
        self.uncounted -= 1;
        self.cost(pieces(to) * cost::ARITH);
        Ok(V::L(ty, Place::Host(h)))
    }
}

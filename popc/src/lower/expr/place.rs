//! Lvalues in use: subscripts of vectors, pointers, edge lists and local
//! arrays (the latter bounds-checked), and assignment, including
//! `std::tie(…) = t` and the copy of aggregates.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, MemFlagsData, Value};
use linker::abi;

use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::lower::{Lowerer, Place, V};
use crate::sema::types::Scalar;
use crate::sema::{Ty, CV};

impl Lowerer<'_, '_> {
    /// `std::tie(a, b, …) = t`: each name gets the field of the pair or
    /// tuple `t` in its position (`std::ignore` skips one). The fields are
    /// read before any is written, as `t` is a temporary in C++.
    pub(super) fn assign_tie(&mut self, names: &[Expr], rhs: &Expr, span: Span) -> Result<V> {
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

    /// The current value of an lvalue, as an rvalue (pointers stay pointers).
    pub(super) fn load_value(&mut self, v: V, span: Span) -> Result<V> {
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
                None => match p {
                    Place::Host(h) => self.copy_aggregate(&t, h, r, span)?,
                    Place::Tile(a) => self.copy_to_tile(&t, a, r, span)?,
                    Place::Var(_) => return err(span, "cannot assign this aggregate"),
                },
            },
            V::EdgeS { elem, addr } => {
                let x = self.rv_as(r, elem, span)?;
                self.store_scalar(elem, Place::Tile(addr), x);
            }
            V::Local { .. } => return err(span, super::ops::LOCAL_POINTER_FIXED),
            _ => return err(span, "expression is not assignable"),
        }
        Ok(())
    }

    pub(crate) fn index(&mut self, base: V, idx: V, span: Span) -> Result<V> {
        if let V::Local { ty, place, room } = base {
            if let V::C(s, CV::I(k)) = idx {
                if !s.is_float() {
                    return self.local_at(ty, place, room, k.clamp(-1, i64::MAX.into()) as i64, span);
                }
            }
            // A run-time index: checked like a local array's.
            let n = room / ty.size().max(1);
            return match place {
                Place::Host(h) if n > 0 => {
                    self.index(V::L(Ty::Array(Box::new(ty), n), Place::Host(h)), idx, span)
                }
                _ => err(span, "a run-time index into the address of a local scalar variable"),
            };
        }
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
            l.note_aligned(a, l.stride_align(addr, size));
            a
        };
        Ok(match base {
            V::Vec { elem, addr, .. } | V::Ptr(Ty::S(elem), addr) => {
                V::L(Ty::S(elem), Place::Tile(elem_at(self, addr, elem.size())))
            }
            V::Ptr(t, addr) => {
                let a = elem_at(self, addr, t.size());
                self.check_vector_align(&t, a);
                V::L(t, Place::Tile(a))
            }
            V::L(Ty::Ptr(t), p) => {
                let addr = self.load_scalar(Scalar::UInt, p);
                let a = elem_at(self, addr, t.size());
                self.check_vector_align(&t, a);
                V::L(*t, Place::Tile(a))
            }
            V::EdgeS { elem, addr } => V::L(Ty::S(elem), Place::Tile(elem_at(self, addr, elem.size()))),
            V::List { elem, addr, count: _ } => {
                let off = scaled(self, 8);
                let at = self.b.ins().iadd(addr, off);
                self.note_aligned(at, self.stride_align(addr, 8));
                let a = self.load_scalar(Scalar::UInt, Place::Tile(at));
                self.derive(addr, a);
                // Edge data: aligned to its element (see `lower_vertex`).
                self.note_aligned(a, 1 << elem.size().trailing_zeros());
                let at4 = self.b.ins().iadd_imm_s(at, 4);
                self.note_aligned(at4, self.stride_align(at, 4));
                let n = self.load_scalar(Scalar::UInt, Place::Tile(at4));
                V::Vec { elem, addr: a, count: Some(n) }
            }
            V::Edges { elem, addr, count: _ } => {
                let off = scaled(self, 4);
                let at = self.b.ins().iadd(addr, off);
                self.note_aligned(at, self.stride_align(addr, 4));
                let a = self.load_scalar(Scalar::UInt, Place::Tile(at));
                self.derive(addr, a);
                self.note_aligned(a, 1 << elem.size().trailing_zeros());
                V::EdgeS { elem, addr: a }
            }
            V::L(Ty::Array(t, n), Place::Host(h)) => {
                // Local arrays live on the host stack: check the index.
                let bad = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, i, n as i64);
                let off64 = self.b.ins().uextend(types::I64, i);
                self.trap_if(bad, abi::STATUS_INDEX, off64);
                let off = self.b.ins().imul_imm_s(off64, t.size() as i64);
                V::L(*t, Place::Host(self.b.ins().iadd(h, off)))
            }
            V::L(Ty::Array(t, n), Place::Tile(a)) => {
                // An array in tile memory (a static data member): its
                // bound checked as a local array's.
                let bad = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, i, n as i64);
                let off64 = self.b.ins().uextend(types::I64, i);
                self.trap_if(bad, abi::STATUS_INDEX, off64);
                let at = elem_at(self, a, t.size());
                V::L(*t, Place::Tile(at))
            }
            _ => return err(span, "subscript of a value that is not a vector, pointer or array"),
        })
    }

    /// An object copied into tile memory at `to`: bytes at a time, or a
    /// vector's 64-bit pieces (one store each).
    fn copy_to_tile(&mut self, t: &Ty, to: Value, r: V, span: Span) -> Result<()> {
        let r = self.as_base(t, r);
        let V::L(rt, from) = r else {
            return err(span, format!("cannot convert {} to '{}'", self.spell_value(&r), t.spell()));
        };
        if !rt.same(t) {
            return err(span, format!("cannot convert '{}' to '{}'", rt.spell(), t.spell()));
        }
        let piece = super::vector_piece(t).unwrap_or(Scalar::UChar);
        let mask = Self::tag_mask(t);
        let mut off = 0;
        while off < t.size() {
            if mask.iter().any(|m| (*m..*m + 4).contains(&off)) {
                off += piece.size();
                continue;
            }
            let x = match from {
                Place::Host(h) => {
                    self.b.ins().load(crate::lower::cl(piece), MemFlagsData::trusted(), h, off as i32)
                }
                Place::Tile(a) => {
                    let at = self.b.ins().iadd_imm_s(a, off as i64);
                    self.load_scalar(piece, Place::Tile(at))
                }
                Place::Var(_) => return err(span, "cannot assign this aggregate"),
            };
            let at = self.b.ins().iadd_imm_s(to, off as i64);
            self.store_scalar(piece, Place::Tile(at), x);
            off += piece.size();
        }
        Ok(())
    }
}

//! Scalar values: constants as Cranelift values, the conversions between
//! C++ scalar types (with `half` rounding and its cost), truth values, and
//! rvalues of the lowerer's [`V`] values.

use cranelift_codegen::ir::{self, condcodes::FloatCC, condcodes::IntCC, types, InstBuilder, Value};

use super::{cl, half_ir, Lowerer, Place, V};
use crate::cost;
use crate::diag::{err, Result, Span};
use crate::sema::ceval::convert;
use crate::sema::types::Scalar;
use crate::sema::{Ty, CV};

impl Lowerer<'_, '_> {
    pub(crate) fn konst(&mut self, s: Scalar, v: CV) -> Value {
        let v = convert(v, s);
        match (s, v) {
            (Scalar::Half | Scalar::Float, CV::F(f)) => self.b.ins().f32const(f as f32),
            (Scalar::Double, CV::F(f)) => self.b.ins().f64const(f),
            (_, CV::I(i)) => self.iconst(cl(s), i as i64),
            (_, CV::F(f)) => self.iconst(cl(s), f as i64),
        }
    }

    /// An integer constant, masked to the type's width as Cranelift requires.
    pub(crate) fn iconst(&mut self, ty: ir::Type, v: i64) -> Value {
        let v = if ty.bits() >= 64 { v } else { v & ((1i64 << ty.bits()) - 1) };
        self.b.ins().iconst(ty, v)
    }

    /// Converts a runtime value between scalar types.
    pub(crate) fn conv(&mut self, v: Value, from: Scalar, to: Scalar) -> Value {
        if from == to {
            return v;
        }
        let (ft, tt) = (cl(from), cl(to));
        if to == Scalar::Bool {
            return self.truth(v, from);
        }
        // Between integers of one width (signed and unsigned) the bits
        // stay as they are: no instruction.
        if from.is_float() || to.is_float() || ft != tt {
            self.cost(cost::CONVERT);
        }
        let r = match (from.is_float(), to.is_float()) {
            (true, true) => {
                if ft == tt {
                    v
                } else if tt == types::F64 {
                    self.b.ins().fpromote(tt, v)
                } else {
                    self.b.ins().fdemote(tt, v)
                }
            }
            (false, true) => {
                if from.is_signed() {
                    self.b.ins().fcvt_from_sint(tt, v)
                } else {
                    self.b.ins().fcvt_from_uint(tt, v)
                }
            }
            (true, false) => {
                // Saturating (C++ leaves out-of-range undefined; this never traps).
                let wide = if to.size() < 4 { types::I32 } else { tt };
                let r = if to.is_signed() || to.size() < 4 {
                    self.b.ins().fcvt_to_sint_sat(wide, v)
                } else {
                    self.b.ins().fcvt_to_uint_sat(wide, v)
                };
                if wide != tt {
                    self.b.ins().ireduce(tt, r)
                } else {
                    r
                }
            }
            (false, false) => {
                if ft.bits() > tt.bits() {
                    self.b.ins().ireduce(tt, v)
                } else if ft.bits() < tt.bits() {
                    if from.is_signed() {
                        self.b.ins().sextend(tt, v)
                    } else {
                        self.b.ins().uextend(tt, v)
                    }
                } else {
                    v
                }
            }
        };
        if to == Scalar::Half && from != Scalar::Half {
            return self.round_half(r);
        }
        if !from.is_float() && !to.is_float() {
            // An address computed in integers keeps its read-only mark.
            self.derive(v, r);
        }
        r
    }

    /// Rounds an f32 to half, remembering the unrounded value for a later
    /// store (converting it gives the same bits as converting the result).
    pub(crate) fn round_half(&mut self, v: Value) -> Value {
        let r = half_ir::round_half(&mut self.b, v);
        self.half_src.insert(r, v);
        r
    }

    pub(crate) fn truth(&mut self, v: Value, from: Scalar) -> Value {
        self.cost(cost::COMPARE);
        if from.is_float() {
            let z =
                if cl(from) == types::F64 { self.b.ins().f64const(0.0) } else { self.b.ins().f32const(0.0) };
            let c = self.b.ins().fcmp(FloatCC::NotEqual, v, z);
            return c;
        }
        self.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0)
    }

    /// An rvalue of scalar type.
    pub(crate) fn rv(&mut self, v: V, span: Span) -> Result<(Scalar, Value)> {
        Ok(match v {
            V::C(s, c) => (s, self.konst(s, c)),
            V::R(s, x) => (s, x),
            V::L(t, place) => match t.scalar() {
                Some(s) => (s, self.load_scalar(s, place)),
                None => match t {
                    Ty::Ptr(_) => (Scalar::UInt, self.load_scalar(Scalar::UInt, place)),
                    t => return err(span, format!("a value of type '{}' cannot be used here", t.spell())),
                },
            },
            V::EdgeS { elem, addr } => (elem, self.load_scalar(elem, Place::Tile(addr))),
            V::Ptr(_, a) => (Scalar::UInt, a),
            _ => return err(span, "this expression has no scalar value"),
        })
    }

    pub(crate) fn rv_as(&mut self, v: V, to: Scalar, span: Span) -> Result<Value> {
        if let V::C(_, c) = v {
            return Ok(self.konst(to, c));
        }
        let (s, x) = self.rv(v, span)?;
        if (s == Scalar::Quarter) != (to == Scalar::Quarter) {
            return err(
                span,
                format!(
                    "no conversion from '{}' to '{}': quarter converts only through toFloat, toHalf and toQuarter",
                    s.name(),
                    to.name()
                ),
            );
        }
        Ok(self.conv(x, s, to))
    }

    /// The truth of `v`, the condition written at `span`.
    pub(crate) fn cond(&mut self, v: V, span: Span) -> Result<Value> {
        let (s, x) = self.rv(v, span)?;
        if s == Scalar::Bool {
            return Ok(x);
        }
        Ok(self.truth(x, s))
    }

    /// A value as messages name it: "a 'float'", or "this value".
    pub(crate) fn spell_value(&self, v: &V) -> String {
        self.ty_of(v).map_or_else(|| "this value".to_string(), |s| format!("a '{}'", s.name()))
    }

    pub(crate) fn ty_of(&self, v: &V) -> Option<Scalar> {
        match v {
            V::C(s, _) | V::R(s, _) => Some(*s),
            V::L(t, _) => t.scalar(),
            V::EdgeS { elem, .. } => Some(*elem),
            _ => None,
        }
    }
}

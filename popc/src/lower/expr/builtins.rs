//! Calls popc lowers itself rather than inlining: the `<cmath>` library
//! through the host table, `memcpy`/`memset`, `printf`, `assert` and the
//! other built-ins (`exit`, `__builtin_*`, `IeeeHalf`, `numWorkers`...),
//! and the IPU built-ins that read the tile's cycle counter or random
//! generator ([`Lowerer::ipu_builtin`]).

use cranelift_codegen::ir::{
    condcodes::FloatCC, condcodes::IntCC, types, AbiParam, InstBuilder, MemFlagsData, Signature, Value,
};
use linker::abi::{self, HostFn};

use crate::cost;
use crate::diag::{err, Result, Span};
use crate::front::ast::*;
use crate::lower::{Lowerer, Place, V};
use crate::sema::ceval;
use crate::sema::types::Scalar;
use crate::sema::{Ty, CV};

enum Math {
    Native(&'static str),
    Host(HostFn, HostFn, u8),
    Class(&'static str),
}

fn math(name: &str) -> Option<(Math, bool)> {
    if let Some(m) = math_base(name) {
        return Some((m, false));
    }
    let base = name.strip_suffix('f')?;
    math_base(base).map(|m| (m, true))
}

fn math_base(base: &str) -> Option<Math> {
    let m = match base {
        "sqrt" | "fabs" | "floor" | "ceil" | "trunc" | "fmin" | "fmax" | "copysign" | "nearbyint"
        | "rint" => {
            Math::Native(match base {
                // Round to nearest, ties to even (the default rounding mode).
                "nearbyint" | "rint" => "nearest",
                "sqrt" => "sqrt",
                "fabs" => "fabs",
                "floor" => "floor",
                "ceil" => "ceil",
                "trunc" => "trunc",
                "fmin" => "fmin",
                "fmax" => "fmax",
                _ => "copysign",
            })
        }
        "exp" => Math::Host(HostFn::F32Exp, HostFn::F64Exp, 1),
        "log" => Math::Host(HostFn::F32Log, HostFn::F64Log, 1),
        "log1p" => Math::Host(HostFn::F32Log1p, HostFn::F64Log1p, 1),
        "expm1" => Math::Host(HostFn::F32Expm1, HostFn::F64Expm1, 1),
        "sin" => Math::Host(HostFn::F32Sin, HostFn::F64Sin, 1),
        "cos" => Math::Host(HostFn::F32Cos, HostFn::F64Cos, 1),
        "tan" => Math::Host(HostFn::F32Tan, HostFn::F64Tan, 1),
        "tanh" => Math::Host(HostFn::F32Tanh, HostFn::F64Tanh, 1),
        "erf" => Math::Host(HostFn::F32Erf, HostFn::F64Erf, 1),
        "pow" => Math::Host(HostFn::F32Pow, HostFn::F64Pow, 2),
        "atan2" => Math::Host(HostFn::F32Atan2, HostFn::F64Atan2, 2),
        "fmod" => Math::Host(HostFn::F32Fmod, HostFn::F64Fmod, 2),
        "fma" => Math::Host(HostFn::F32Fma, HostFn::F64Fma, 3),
        "exp2" => Math::Host(HostFn::F32Exp2, HostFn::F64Exp2, 1),
        "log2" => Math::Host(HostFn::F32Log2, HostFn::F64Log2, 1),
        "log10" => Math::Host(HostFn::F32Log10, HostFn::F64Log10, 1),
        "asin" => Math::Host(HostFn::F32Asin, HostFn::F64Asin, 1),
        "acos" => Math::Host(HostFn::F32Acos, HostFn::F64Acos, 1),
        "atan" => Math::Host(HostFn::F32Atan, HostFn::F64Atan, 1),
        "sinh" => Math::Host(HostFn::F32Sinh, HostFn::F64Sinh, 1),
        "cosh" => Math::Host(HostFn::F32Cosh, HostFn::F64Cosh, 1),
        "cbrt" => Math::Host(HostFn::F32Cbrt, HostFn::F64Cbrt, 1),
        "round" => Math::Host(HostFn::F32Round, HostFn::F64Round, 1),
        "isnan" | "isinf" | "isfinite" | "signbit" => Math::Class(match base {
            "isnan" => "isnan",
            "isinf" => "isinf",
            "isfinite" => "isfinite",
            _ => "signbit",
        }),
        _ => return None,
    };
    Some(m)
}

impl Lowerer<'_, '_> {
    pub(crate) fn host_call(&mut self, f: HostFn, args: &[Value], ty: types::Type) -> Value {
        let mut sig = Signature::new(cranelift_codegen::isa::CallConv::SystemV);
        for _ in args {
            sig.params.push(AbiParam::new(ty));
        }
        sig.returns.push(AbiParam::new(ty));
        let sref = self.b.import_signature(sig);
        let table = self.b.ins().load(types::I64, MemFlagsData::trusted(), self.ctx, abi::OFFSET_HOST);
        let fp = self.b.ins().load(types::I64, MemFlagsData::trusted(), table, f.table_offset());
        let call = self.b.ins().call_indirect(sref, fp, args);
        self.b.inst_results(call)[0]
    }

    /// A host call whose arguments have types of their own.
    fn host_call_typed(&mut self, f: HostFn, args: &[(Value, types::Type)], ret: types::Type) -> Value {
        let mut sig = Signature::new(cranelift_codegen::isa::CallConv::SystemV);
        for (_, t) in args {
            sig.params.push(AbiParam::new(*t));
        }
        sig.returns.push(AbiParam::new(ret));
        let sref = self.b.import_signature(sig);
        let table = self.b.ins().load(types::I64, MemFlagsData::trusted(), self.ctx, abi::OFFSET_HOST);
        let fp = self.b.ins().load(types::I64, MemFlagsData::trusted(), table, f.table_offset());
        let vals: Vec<Value> = args.iter().map(|(v, _)| *v).collect();
        let call = self.b.ins().call_indirect(sref, fp, &vals);
        self.cost(cost::CONVERT);
        self.b.inst_results(call)[0]
    }

    /// The `__builtin_ipu_*` built-ins with a host meaning that are not
    /// C++ in `<ipudef.h>`: the tile's cycle counter and its random
    /// generator (`linker::host::tile_random`, through the host table).
    /// `None` for any other name, which the caller refuses by name.
    ///
    /// - `__builtin_ipu_get_scount_l()` / `_u()`: the low and high 32 bits
    ///   of `ctx.cycles` plus, in the counting variant, what this call has
    ///   counted so far times `ctx.cycles_per_count` (on `cpu` both are
    ///   0, so the counter reads 0);
    /// - `__builtin_ipu_urand32()`, `urand64()`, `urand_f32()` (uniform in
    ///   [-0.5, 0.5)) and `f32v2grand()` (a `float2` of standard normal
    ///   values): one draw each.
    ///
    /// Each costs one instruction, as on the IPU.
    pub(crate) fn ipu_builtin(&mut self, bare: &str, args: &[Expr], span: Span) -> Result<Option<V>> {
        let host = match bare {
            "__builtin_ipu_get_scount_l" | "__builtin_ipu_get_scount_u" => None,
            "__builtin_ipu_urand32" => Some((HostFn::Urand32, types::I32, Scalar::UInt)),
            "__builtin_ipu_urand64" => Some((HostFn::Urand64, types::I64, Scalar::ULongLong)),
            "__builtin_ipu_urand_f32" => Some((HostFn::UrandF32, types::F32, Scalar::Float)),
            "__builtin_ipu_f32v2grand" => Some((HostFn::F32v2Grand, types::I64, Scalar::ULongLong)),
            _ => return Ok(None),
        };
        if !args.is_empty() {
            return err(span, format!("'{bare}' takes no arguments"));
        }
        self.cost(cost::IPU_REGISTER);
        let Some((f, ret, s)) = host else {
            let base = self.b.ins().load(types::I64, MemFlagsData::trusted(), self.ctx, abi::OFFSET_CYCLES);
            let now = if self.counting {
                self.flush();
                let counted = self.b.use_var(self.count);
                let per = self.b.ins().load(
                    types::I64,
                    MemFlagsData::trusted(),
                    self.ctx,
                    abi::OFFSET_CYCLES_PER_COUNT,
                );
                let cycles = self.b.ins().imul(counted, per);
                self.b.ins().iadd(base, cycles)
            } else {
                base
            };
            let half = if bare.ends_with('u') { self.b.ins().ushr_imm_s(now, 32) } else { now };
            return Ok(Some(V::R(Scalar::UInt, self.b.ins().ireduce(types::I32, half))));
        };
        let mut sig = Signature::new(cranelift_codegen::isa::CallConv::SystemV);
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(ret));
        let sref = self.b.import_signature(sig);
        let table = self.b.ins().load(types::I64, MemFlagsData::trusted(), self.ctx, abi::OFFSET_HOST);
        let fp = self.b.ins().load(types::I64, MemFlagsData::trusted(), table, f.table_offset());
        let ctx = self.ctx;
        let call = self.b.ins().call_indirect(sref, fp, &[ctx]);
        let r = self.b.inst_results(call)[0];
        if f != HostFn::F32v2Grand {
            return Ok(Some(V::R(s, r)));
        }
        // The pair's bits, the first value low: a `float2` on the stack.
        let path = Path { span, global: false, segs: vec![Seg { name: "float2".into(), args: None }] };
        let tn = TypeName { span, kind: TypeKind::Named(path), is_const: false };
        let ty = self.p.resolve_type(&tn, &self.env).map_err(|_| {
            crate::diag::Diagnostic::new(
                span,
                format!("'{bare}' returns a 'float2', declared in <ipudef.h>, which is not included"),
            )
        })?;
        let h = self.stack(ty.size(), ty.align());
        self.b.ins().store(MemFlagsData::trusted(), r, h, 0);
        Ok(Some(V::L(ty, Place::Host(h))))
    }

    pub(crate) fn builtin(&mut self, bare: &str, p: &Path, args: &[Expr], span: Span) -> Result<Option<V>> {
        let _ = p;
        Ok(Some(match bare {
            "assert" if self.p.ndebug => V::Void,
            "numWorkers" | "MultiVertex::numWorkers" => {
                V::C(Scalar::UInt, CV::I(i128::from(linker::abi::MULTIVERTEX_WORKERS)))
            }
            // `poplar::IeeeHalf::fromBits(bits)`: the half with that bit pattern.
            "IeeeHalf::fromBits" => {
                let [a] = args else { return err(span, "IeeeHalf::fromBits takes one argument") };
                let v = self.expr(a)?;
                let bits = self.rv_as(v, Scalar::UInt, span)?;
                V::R(Scalar::Half, crate::lower::half_ir::f16_to_f32(&mut self.b, bits))
            }
            // The conversions of `<poplar/QuarterFloat.hpp>` (popc's own
            // header), through the host table: (quarter, is 1.4.3, scale)
            // and (float, is 1.4.3, scale, NaN on overflow).
            "__builtin_popc_quarter_to_float" => {
                let [q, f143, scale] = args else { return err(span, "wrong number of arguments") };
                let v = self.expr(q)?;
                let (s, q) = self.rv(v, span)?;
                if s != Scalar::Quarter {
                    return err(span, format!("expected a quarter, found '{}'", s.name()));
                }
                let q = self.b.ins().uextend(types::I32, q);
                let v = self.expr(f143)?;
                let f143 = self.rv_as(v, Scalar::UInt, span)?;
                let v = self.expr(scale)?;
                let scale = self.rv_as(v, Scalar::Int, span)?;
                let r = self.host_call_typed(
                    HostFn::QuarterToF32,
                    &[(q, types::I32), (f143, types::I32), (scale, types::I32)],
                    types::F32,
                );
                V::R(Scalar::Float, r)
            }
            "__builtin_popc_float_to_quarter" => {
                let [x, f143, scale, nanoo] = args else { return err(span, "wrong number of arguments") };
                let v = self.expr(x)?;
                let x = self.rv_as(v, Scalar::Float, span)?;
                let v = self.expr(f143)?;
                let f143 = self.rv_as(v, Scalar::UInt, span)?;
                let v = self.expr(scale)?;
                let scale = self.rv_as(v, Scalar::Int, span)?;
                let v = self.expr(nanoo)?;
                let nanoo = self.rv_as(v, Scalar::UInt, span)?;
                let r = self.host_call_typed(
                    HostFn::F32ToQuarter,
                    &[(x, types::F32), (f143, types::I32), (scale, types::I32), (nanoo, types::I32)],
                    types::I32,
                );
                V::R(Scalar::Quarter, self.b.ins().ireduce(types::I8, r))
            }
            // A branch hint: the value of its first argument.
            "__builtin_expect" => {
                let [a, _] = args else { return err(span, "__builtin_expect takes two arguments") };
                self.expr(a)?
            }
            "exit" | "abort" | "_Exit" => {
                for a in args {
                    self.expr(a)?;
                }
                let yes = self.b.ins().iconst(types::I8, 1);
                let z = self.b.ins().iconst(types::I64, 0);
                self.trap_if(yes, abi::STATUS_EXIT, z);
                V::Void
            }
            "assert" | "__builtin_assume" => {
                let [a] = args else { return err(span, "assert takes one argument") };
                let v = self.expr(a)?;
                if let V::C(_, c) = v {
                    if ceval::truthy(c) {
                        return Ok(Some(V::Void));
                    }
                }
                let c = self.cond(v, a.span)?;
                let bad = self.b.ins().icmp_imm_s(IntCC::Equal, c, 0);
                let z = self.b.ins().iconst(types::I64, 0);
                self.trap_if(bad, abi::STATUS_ASSERT, z);
                V::Void
            }
            "__builtin_clz" | "__builtin_ctz" | "__builtin_popcount" => {
                // On unsigned int; clz/ctz of 0 are undefined in C++ and
                // give 32 here.
                let [a] = args else { return err(span, format!("'{bare}' takes one argument")) };
                let v = self.expr(a)?;
                let x = self.rv_as(v, Scalar::UInt, span)?;
                self.cost(cost::ARITH);
                let r = match bare {
                    "__builtin_clz" => self.b.ins().clz(x),
                    "__builtin_ctz" => self.b.ins().ctz(x),
                    _ => self.b.ins().popcnt(x),
                };
                V::R(Scalar::Int, r)
            }
            "__builtin_inff" => V::C(Scalar::Float, CV::F(f64::INFINITY)),
            "__builtin_nanf" => V::C(Scalar::Float, CV::F(f64::NAN)),
            "printf" => self.printf(args, span)?,
            "min" | "max" => {
                let [a, b] = args else { return err(span, format!("std::{bare} takes two arguments")) };
                let x = self.expr(a)?;
                let y = self.expr(b)?;
                let explicit = p.segs.last().and_then(|s| s.args.as_ref()).and_then(|a| a.first());
                let t = match explicit {
                    Some(ta) => match self.p.targ_type(ta, &self.env)? {
                        Ty::S(s) => s,
                        _ => return err(span, "std::min/max of non-scalars"),
                    },
                    None => {
                        let (Some(tx), Some(ty)) = (self.ty_of(&x), self.ty_of(&y)) else {
                            return err(span, "std::min/max of non-scalars");
                        };
                        if tx != ty && !matches!((&x, &y), (V::C(..), _) | (_, V::C(..))) {
                            return err(
                                span,
                                format!("std::{bare} of different types '{}' and '{}'", tx.name(), ty.name()),
                            );
                        }
                        if matches!(x, V::C(..)) {
                            ty
                        } else {
                            tx
                        }
                    }
                };
                let xv = self.rv_as(x, t, span)?;
                let yv = self.rv_as(y, t, span)?;
                self.cost(cost::SIMPLE_MATH);
                // std::min(a,b) = b < a ? b : a;  std::max(a,b) = a < b ? b : a.
                let (l, r) = if bare == "min" { (yv, xv) } else { (xv, yv) };
                let c = if t.is_float() {
                    self.b.ins().fcmp(FloatCC::LessThan, l, r)
                } else if t.is_signed() {
                    self.b.ins().icmp(IntCC::SignedLessThan, l, r)
                } else {
                    self.b.ins().icmp(IntCC::UnsignedLessThan, l, r)
                };
                let v = self.b.ins().select(c, yv, xv);
                V::R(t, v)
            }
            "abs" | "labs" | "llabs" if args.len() == 1 => {
                let v = self.expr(&args[0])?;
                let Some(s) = self.ty_of(&v) else { return err(span, "abs of a non-scalar") };
                if s.is_float() {
                    let x = self.rv_as(v, s, span)?;
                    V::R(s, self.b.ins().fabs(x))
                } else {
                    let t = s.promote();
                    let x = self.rv_as(v, t, span)?;
                    let n = self.b.ins().ineg(x);
                    let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
                    self.cost(cost::SIMPLE_MATH);
                    V::R(t, self.b.ins().select(neg, n, x))
                }
            }
            "swap" => {
                let [a, b] = args else { return err(span, "std::swap takes two arguments") };
                let x = self.expr(a)?;
                let y = self.expr(b)?;
                let xv = self.load_value(x.clone(), span)?;
                let yv = self.load_value(y.clone(), span)?;
                self.assign(x, yv, span)?;
                self.assign(y, xv, span)?;
                V::Void
            }
            "memcpy" | "memset" => self.mem_fn(bare, args, span)?,
            _ => match math(bare) {
                Some((m, f32_only)) => self.math_call(m, f32_only, bare, args, span)?,
                None => return Ok(None),
            },
        }))
    }

    fn math_call(&mut self, m: Math, force_f32: bool, name: &str, args: &[Expr], span: Span) -> Result<V> {
        let vals = self.args(args)?;
        let Some(first) = vals.first().and_then(|v| self.ty_of(v)) else {
            return err(span, format!("'{name}' needs scalar arguments"));
        };
        let mut arg_t = vals.iter().filter_map(|v| self.ty_of(v)).fold(first, Scalar::common);
        if !arg_t.is_float() {
            arg_t = Scalar::Double;
        }
        if force_f32 {
            arg_t = Scalar::Float;
        }
        let comp = if arg_t == Scalar::Double { Scalar::Double } else { Scalar::Float };
        let mut xs = Vec::new();
        for v in vals {
            let (s, x) = self.rv(v, span)?;
            // Half values are already f32.
            let x = if s == Scalar::Half && comp == Scalar::Float { x } else { self.conv(x, s, comp) };
            xs.push(x);
        }
        let ty = crate::lower::cl_pub(comp);
        let need = |n: usize| -> Result<()> {
            if xs.len() != n {
                return err(span, format!("'{name}' takes {n} argument(s)"));
            }
            Ok(())
        };
        let r = match m {
            Math::Native(op) => {
                let two = matches!(op, "fmin" | "fmax" | "copysign");
                need(if two { 2 } else { 1 })?;
                self.cost(if op == "sqrt" { cost::SQRT } else { cost::SIMPLE_MATH });
                match op {
                    "sqrt" => self.b.ins().sqrt(xs[0]),
                    "fabs" => self.b.ins().fabs(xs[0]),
                    "floor" => self.b.ins().floor(xs[0]),
                    "ceil" => self.b.ins().ceil(xs[0]),
                    "trunc" => self.b.ins().trunc(xs[0]),
                    "nearest" => self.b.ins().nearest(xs[0]),
                    "copysign" => self.b.ins().fcopysign(xs[0], xs[1]),
                    _ => {
                        // C fmin/fmax: a NaN operand yields the other one.
                        let (a, b) = (xs[0], xs[1]);
                        let m = if op == "fmin" { self.b.ins().fmin(a, b) } else { self.b.ins().fmax(a, b) };
                        let an = self.b.ins().fcmp(FloatCC::Unordered, a, a);
                        let bn = self.b.ins().fcmp(FloatCC::Unordered, b, b);
                        let r = self.b.ins().select(bn, a, m);
                        self.b.ins().select(an, b, r)
                    }
                }
            }
            Math::Host(f32f, f64f, n) => {
                need(n as usize)?;
                self.cost(cost::TRANSCENDENTAL);
                let f = if comp == Scalar::Double { f64f } else { f32f };
                self.host_call(f, &xs.clone(), ty)
            }
            Math::Class(k) => {
                need(1)?;
                self.cost(cost::COMPARE);
                let x = xs[0];
                let r = match k {
                    "isnan" => self.b.ins().fcmp(FloatCC::Unordered, x, x),
                    "signbit" => {
                        let ity = if comp == Scalar::Double { types::I64 } else { types::I32 };
                        let bits = self.b.ins().bitcast(ity, MemFlagsData::new(), x);
                        self.b.ins().icmp_imm_s(IntCC::SignedLessThan, bits, 0)
                    }
                    _ => {
                        let a = self.b.ins().fabs(x);
                        let inf = if comp == Scalar::Double {
                            self.b.ins().f64const(f64::INFINITY)
                        } else {
                            self.b.ins().f32const(f32::INFINITY)
                        };
                        if k == "isinf" {
                            self.b.ins().fcmp(FloatCC::Equal, a, inf)
                        } else {
                            self.b.ins().fcmp(FloatCC::LessThan, a, inf)
                        }
                    }
                };
                return Ok(V::R(Scalar::Bool, r));
            }
        };
        Ok(if arg_t == Scalar::Half { V::R(Scalar::Half, self.round_half(r)) } else { V::R(comp, r) })
    }

    /// One end of a `memcpy`/`memset`: tile memory, or a local (host stack
    /// memory of `size` bytes, or a register variable of one scalar).
    fn mem_end(&mut self, e: &Expr, span: Span) -> Result<MemEnd> {
        let v = match &e.kind {
            ExprKind::Unary(UnOp::AddrOf, inner) => self.expr(inner)?,
            _ => self.expr(e)?,
        };
        if let V::L(t, Place::Host(_)) | V::Local { ty: t, .. } = &v {
            if crate::sema::has_tags(t) {
                return err(
                    e.span,
                    format!(
                        "memcpy or memset of a local object of '{}', which has virtual functions (its dynamic class is not bytes to copy)",
                        t.spell()
                    ),
                );
            }
        }
        Ok(match v {
            V::L(t, Place::Host(h)) => MemEnd::Host(h, t.size()),
            V::L(Ty::S(s), Place::Var(var)) if matches!(e.kind, ExprKind::Unary(UnOp::AddrOf, _)) => {
                MemEnd::Var(var, s)
            }
            V::L(t, Place::Tile(a)) if matches!(e.kind, ExprKind::Unary(UnOp::AddrOf, _)) => {
                let _ = t;
                MemEnd::Tile(a)
            }
            v => {
                let p = self.cast(CastKind::Static, &Ty::Ptr(Box::new(Ty::S(Scalar::UChar))), v, span)?;
                let V::Ptr(_, a) = p else { unreachable!() };
                MemEnd::Tile(a)
            }
        })
    }

    /// `memcpy`/`memset` where an end is a local: the length must be a
    /// constant within the local; register variables go through a stack slot.
    fn mem_fn_local(
        &mut self,
        name: &str,
        d: MemEnd,
        src: Option<MemEnd>,
        fill: Option<Value>,
        n: &Expr,
        span: Span,
    ) -> Result<V> {
        let (_, len) = self.const_value(n).map_err(|_| {
            crate::diag::Diagnostic::new(
                n.span,
                format!("'{name}' of a local variable needs a constant length"),
            )
        })?;
        let len = match len {
            CV::I(v) if (0..=i128::from(crate::sema::MAX_OBJECT_SIZE)).contains(&v) => v as u32,
            _ => return err(n.span, format!("'{name}' length out of range")),
        };
        let host = |l: &mut Self, end: MemEnd| -> Result<MemEnd> {
            Ok(match end {
                MemEnd::Var(var, s) => {
                    if len > s.size() {
                        return err(
                            span,
                            format!("'{name}' of {len} bytes overruns a {}-byte variable", s.size()),
                        );
                    }
                    let h = l.stack(s.size(), 8);
                    let x = l.b.use_var(var);
                    l.store_scalar(s, Place::Host(h), x);
                    MemEnd::Host(h, s.size())
                }
                MemEnd::Host(_, size) if len > size => {
                    return err(span, format!("'{name}' of {len} bytes overruns a {size}-byte local"))
                }
                e => e,
            })
        };
        let dh = host(self, d)?;
        let sh = match src {
            Some(e) => Some(host(self, e)?),
            None => None,
        };
        if let MemEnd::Tile(a) = dh {
            self.check_writable(Place::Tile(a), span)?;
        }
        let at = |l: &mut Self, e: MemEnd, i: u32| -> Place {
            match e {
                MemEnd::Tile(a) => Place::Tile(l.b.ins().iadd_imm_s(a, i64::from(i))),
                MemEnd::Host(h, _) => Place::Host(l.b.ins().iadd_imm_s(h, i64::from(i))),
                MemEnd::Var(..) => unreachable!(),
            }
        };
        for i in 0..len {
            let byte = match (sh, fill) {
                (Some(e), _) => {
                    let p = at(self, e, i);
                    self.load_scalar(Scalar::UChar, p)
                }
                (_, Some(f)) => f,
                _ => unreachable!(),
            };
            let p = at(self, dh, i);
            self.store_scalar(Scalar::UChar, p, byte);
        }
        if let (MemEnd::Var(var, s), MemEnd::Host(h, _)) = (d, dh) {
            let x = self.load_scalar(s, Place::Host(h));
            self.b.def_var(var, x);
        }
        Ok(V::Void)
    }

    pub(crate) fn mem_fn(&mut self, name: &str, args: &[Expr], span: Span) -> Result<V> {
        let [a, b, n] = args else { return err(span, format!("'{name}' takes three arguments")) };
        let local = |e: &Expr| matches!(&e.kind, ExprKind::Unary(UnOp::AddrOf, _) | ExprKind::Name(_));
        if local(a) || (name == "memcpy" && local(b)) {
            let d = self.mem_end(a, span)?;
            let (src, fill) = if name == "memcpy" {
                (Some(self.mem_end(b, span)?), None)
            } else {
                let v = self.expr(b)?;
                (None, Some(self.rv_as(v, Scalar::UChar, span)?))
            };
            if !matches!(d, MemEnd::Tile(_)) || !matches!(src, None | Some(MemEnd::Tile(_))) {
                return self.mem_fn_local(name, d, src, fill, n, span);
            }
            let MemEnd::Tile(d) = d else { unreachable!() };
            self.check_writable(Place::Tile(d), span)?;
            let s = src.map(|e| match e {
                MemEnd::Tile(a) => a,
                _ => unreachable!(),
            });
            let n = self.expr(n)?;
            let n = self.rv_as(n, Scalar::UInt, span)?;
            return self.copy_loop(d, s, fill, n);
        }
        let dst = self.expr(a)?;
        let dst = self.cast(CastKind::Static, &Ty::Ptr(Box::new(Ty::S(Scalar::UChar))), dst, span)?;
        let V::Ptr(_, d) = dst else { unreachable!() };
        self.check_writable(Place::Tile(d), span)?;
        let src = self.expr(b)?;
        let n = self.expr(n)?;
        let n = self.rv_as(n, Scalar::UInt, span)?;
        let (s, fill) = if name == "memcpy" {
            let src = self.cast(CastKind::Static, &Ty::Ptr(Box::new(Ty::S(Scalar::UChar))), src, span)?;
            let V::Ptr(_, s) = src else { unreachable!() };
            (Some(s), None)
        } else {
            (None, Some(self.rv_as(src, Scalar::UChar, span)?))
        };
        self.copy_loop(d, s, fill, n)
    }

    /// `d[i] = s[i]` (or `fill`) for `i < n`, byte by byte in tile memory.
    fn copy_loop(&mut self, d: Value, s: Option<Value>, fill: Option<Value>, n: Value) -> Result<V> {
        self.counted_loop(n, |l, i| {
            let da = l.b.ins().iadd(d, i);
            let byte = match (s, fill) {
                (Some(s), _) => {
                    let sa = l.b.ins().iadd(s, i);
                    l.load_scalar(Scalar::UChar, Place::Tile(sa))
                }
                (_, Some(f)) => f,
                _ => unreachable!(),
            };
            l.store_scalar(Scalar::UChar, Place::Tile(da), byte);
            Ok(())
        })?;
        Ok(V::Void)
    }

    pub(crate) fn printf(&mut self, args: &[Expr], span: Span) -> Result<V> {
        let Some(Expr { kind: ExprKind::Str(fmt), span: fspan }) = args.first() else {
            return err(span, "printf needs a string literal format");
        };
        // Check conversions.
        let conv = crate::printf::conversions(fmt).map_err(|m| crate::diag::Diagnostic::new(*fspan, m))?;
        if conv.len() != args.len() - 1 {
            return err(
                span,
                format!("printf format has {} conversions but {} arguments", conv.len(), args.len() - 1),
            );
        }
        self.cost(cost::PRINTF);
        let fbuf = self.stack(fmt.len() as u32 + 1, 8);
        for (i, b) in fmt.iter().enumerate() {
            let c = self.b.ins().iconst(types::I8, *b as i64);
            self.b.ins().store(MemFlagsData::trusted(), c, fbuf, i as i32);
        }
        let abuf = self.stack(8 * (args.len() as u32).max(1), 8);
        for (i, (a, is_float)) in args[1..].iter().zip(conv).enumerate() {
            let v = self.expr(a)?;
            let Some(s) = self.ty_of(&v).or(match &v {
                V::Ptr(..) => Some(Scalar::UInt),
                _ => None,
            }) else {
                return err(a.span, "printf argument must be a scalar");
            };
            let word = if s.is_float() || is_float {
                let x = self.rv_as(v, Scalar::Double, a.span)?;
                self.b.ins().bitcast(types::I64, MemFlagsData::new(), x)
            } else {
                let t = if s.is_signed() { Scalar::LongLong } else { Scalar::ULongLong };
                let pt = s.promote();
                let x = self.rv_as(v, pt, a.span)?;
                self.conv(x, pt, t)
            };
            self.b.ins().store(MemFlagsData::trusted(), word, abuf, (i * 8) as i32);
        }
        let mut sig = Signature::new(cranelift_codegen::isa::CallConv::SystemV);
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I32));
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I32));
        let sref = self.b.import_signature(sig);
        let table = self.b.ins().load(types::I64, MemFlagsData::trusted(), self.ctx, abi::OFFSET_HOST);
        let fp = self.b.ins().load(types::I64, MemFlagsData::trusted(), table, HostFn::Printf.table_offset());
        let len = self.b.ins().iconst(types::I32, fmt.len() as i64);
        let nargs = self.b.ins().iconst(types::I32, (args.len() - 1) as i64);
        let ctx = self.ctx;
        self.b.ins().call_indirect(sref, fp, &[ctx, fbuf, len, abuf, nargs]);
        Ok(V::C(Scalar::Int, CV::I(0)))
    }
}

/// One end of a `memcpy`/`memset`.
#[derive(Clone, Copy)]
enum MemEnd {
    /// A tile address.
    Tile(Value),
    /// Host stack memory of a local and its size in bytes.
    Host(Value, u32),
    /// A register variable holding one scalar.
    Var(cranelift_frontend::Variable, Scalar),
}

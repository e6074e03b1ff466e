//! `half` conversions as integer operations in Cranelift IR.
//!
//! The baseline ISA has no F16C, so float to half (round to nearest even,
//! overflow to infinity, NaN to a quiet NaN keeping its sign) and half to
//! float are built from integer and select instructions, without branches.
//! The algorithms are those of `half`'s and Fabian Giesen's reference
//! conversions; the differential tests' stub `half` class uses the same.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;

/// f32 value to its half bit pattern (in an i32's low 16 bits).
pub fn f32_to_f16(b: &mut FunctionBuilder, v: Value) -> Value {
    let f = b.ins().bitcast(types::I32, MemFlagsData::new(), v);
    let sign = b.ins().band_imm_u(f, 0x8000_0000u32 as i64);
    let a = b.ins().bxor(f, sign);
    // Overflow / inf / nan.
    let is_nan = b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, a, 0x7f80_0000);
    let c7e00 = b.ins().iconst(types::I32, 0x7e00);
    let c7c00 = b.ins().iconst(types::I32, 0x7c00);
    let big = b.ins().select(is_nan, c7e00, c7c00);
    let is_big = b.ins().icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, a, 0x4780_0000);
    // Subnormal: add the magic float and subtract its bits.
    let magic_bits = ((127 - 15) + (23 - 10) + 1) << 23;
    let af = b.ins().bitcast(types::F32, MemFlagsData::new(), a);
    let magic = b.ins().f32const(f32::from_bits(magic_bits as u32));
    let sum = b.ins().fadd(af, magic);
    let sum_bits = b.ins().bitcast(types::I32, MemFlagsData::new(), sum);
    let sub = b.ins().iadd_imm_s(sum_bits, -(magic_bits as i64));
    let is_sub = b.ins().icmp_imm_u(IntCC::UnsignedLessThan, a, 113 << 23);
    // Normal: rebias and round to nearest even.
    let odd = b.ins().ushr_imm_u(a, 13);
    let odd = b.ins().band_imm_u(odd, 1);
    let n = b.ins().iadd_imm_s(a, (((15 - 127) << 23) + 0xfff) as i64);
    let n = b.ins().iadd(n, odd);
    let norm = b.ins().ushr_imm_u(n, 13);
    let r = b.ins().select(is_sub, sub, norm);
    let r = b.ins().select(is_big, big, r);
    let s16 = b.ins().ushr_imm_u(sign, 16);
    b.ins().bor(r, s16)
}

/// Half bit pattern (low 16 bits of an i32) to f32.
///
/// Exponent and mantissa move into place and one multiply by 2^112 rebiases
/// them; that is exact for every half (subnormals become normal floats).
/// Infinities and NaNs (exponent 31) get the all-ones float exponent ORed
/// in, keeping the NaN payload. Bit-identical to the reference conversion
/// for all 65536 inputs.
pub fn f16_to_f32(b: &mut FunctionBuilder, h: Value) -> Value {
    let m = b.ins().band_imm_u(h, 0x7fff);
    let o = b.ins().ishl_imm_u(m, 13);
    let is_inf = b.ins().icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, o, 0x7c00 << 13);
    let of = b.ins().bitcast(types::F32, MemFlagsData::new(), o);
    let magic = b.ins().f32const(f32::from_bits((254 - 15) << 23));
    let scaled = b.ins().fmul(of, magic);
    let sb = b.ins().bitcast(types::I32, MemFlagsData::new(), scaled);
    let all = b.ins().iconst(types::I32, 0x7f80_0000);
    let none = b.ins().iconst(types::I32, 0);
    let infm = b.ins().select(is_inf, all, none);
    let sign = b.ins().band_imm_u(h, 0x8000);
    let sign = b.ins().ishl_imm_u(sign, 16);
    let r = b.ins().bor(sb, infm);
    let r = b.ins().bor(r, sign);
    b.ins().bitcast(types::F32, MemFlagsData::new(), r)
}

/// Rounds an f32 to the nearest half value (result still an f32), without
/// going through the half bit pattern: round the mantissa to 10 bits in
/// place (to nearest even), subnormal halves by adding and subtracting 0.5
/// (whose ulp is the half subnormal step 2^-24), overflow to infinity, NaN
/// to the quiet NaN the half round trip gives. Bit-identical to
/// `f16_to_f32(f32_to_f16(v))` for all 2^32 inputs.
pub fn round_half(b: &mut FunctionBuilder, v: Value) -> Value {
    let f = b.ins().bitcast(types::I32, MemFlagsData::new(), v);
    let sign = b.ins().band_imm_u(f, 0x8000_0000u32 as i64);
    let a = b.ins().bxor(f, sign);
    // Normal: round the mantissa to 10 bits, to nearest even.
    let odd = b.ins().ushr_imm_u(a, 13);
    let odd = b.ins().band_imm_u(odd, 1);
    let n = b.ins().iadd_imm_s(a, 0xfff);
    let n = b.ins().iadd(n, odd);
    let n = b.ins().band_imm_u(n, 0xffff_e000u32 as i64);
    // Subnormal half range.
    let af = b.ins().bitcast(types::F32, MemFlagsData::new(), a);
    let half = b.ins().f32const(0.5);
    let s = b.ins().fadd(af, half);
    let s = b.ins().fsub(s, half);
    let sub = b.ins().bitcast(types::I32, MemFlagsData::new(), s);
    let is_sub = b.ins().icmp_imm_u(IntCC::UnsignedLessThan, a, 113 << 23);
    let r = b.ins().select(is_sub, sub, n);
    // Overflow, infinity, NaN.
    let is_nan = b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, a, 0x7f80_0000);
    let qnan = b.ins().iconst(types::I32, 0x7fc0_0000);
    let inf = b.ins().iconst(types::I32, 0x7f80_0000);
    let big = b.ins().select(is_nan, qnan, inf);
    let is_big = b.ins().icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, r, 0x4780_0000);
    let r = b.ins().select(is_big, big, r);
    let r = b.ins().bor(r, sign);
    b.ins().bitcast(types::F32, MemFlagsData::new(), r)
}

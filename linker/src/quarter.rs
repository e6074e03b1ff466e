//! Poplar's 8-bit float `quarter`: conversions to and from `float`, shared by
//! codelet code (through the host table, `HostFn::QuarterToF32` and
//! `HostFn::F32ToQuarter`) and by tools that print or fill quarter data.
//!
//! A quarter's meaning comes from its metadata: a format and a signed scale
//! `s` (Poplar's `QuarterFloat.hpp`: `d = q * 2^s`, `q = d * 2^-s`). The two
//! formats are the ones of Noune et al., "8-bit Numerical Formats for Deep
//! Neural Networks" (arXiv 2206.02915), as LLVM names them `Float8E4M3FNUZ`
//! and `Float8E5M2FNUZ`: 1.4.3 with exponent bias 8 and 1.5.2 with bias 16,
//! subnormals, no infinities, no negative zero, and one NaN, the pattern
//! `0x80`. The rules (and where each comes from) are listed in
//! docs/codelets.md, "quarter".

/// The pattern of the only NaN.
pub const NAN: u8 = 0x80;

/// One of the two formats (`quarter_metadata::f143` / `f152`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// 1 sign, 4 exponent, 3 mantissa bits; bias 8; largest value 240.
    F143,
    /// 1 sign, 5 exponent, 2 mantissa bits; bias 16; largest value 57344.
    F152,
}

impl Format {
    /// (mantissa bits, exponent bits, bias).
    fn shape(self) -> (i32, i32, i32) {
        match self {
            Format::F143 => (3, 4, 8),
            Format::F152 => (2, 5, 16),
        }
    }
}

/// The value of quarter `bits` in `format` with scale `scale`, as a float:
/// exact, except where `value * 2^scale` leaves float's range (it then
/// rounds as any double-to-float conversion). `0x80` is NaN (the quiet NaN
/// `0x7fc00000`).
pub fn to_f32(bits: u8, format: Format, scale: i32) -> f32 {
    if bits == NAN {
        return f32::from_bits(0x7fc0_0000);
    }
    let (m_bits, _, bias) = format.shape();
    let exp = i32::from((bits & 0x7f) >> m_bits);
    let mant = i32::from(bits) & ((1 << m_bits) - 1);
    // value = significand * 2^(exponent - m_bits), significand an integer.
    let (significand, exponent) =
        if exp == 0 { (mant, 1 - bias) } else { (mant | (1 << m_bits), exp - bias) };
    let v = f64::from(significand) * 2f64.powi(exponent - m_bits + scale.clamp(-400, 400));
    let v = v as f32;
    if bits & 0x80 != 0 {
        -v
    } else {
        v
    }
}

/// `x * 2^-scale` as a quarter in `format`, rounded to nearest, ties to
/// even, from the exact product. NaN gives NaN; a result whose magnitude
/// (after rounding) is beyond the format's largest value, infinities
/// included, gives NaN when `nanoo` is set and the largest value of the
/// same sign otherwise. A result that rounds to zero is `0x00` whatever its
/// sign (there is no negative zero).
pub fn from_f32(x: f32, format: Format, scale: i32, nanoo: bool) -> u8 {
    let (m_bits, e_bits, bias) = format.shape();
    let sign: u8 = if x.is_sign_negative() { 0x80 } else { 0 };
    let largest = (((1 << e_bits) - 1) << m_bits | ((1 << m_bits) - 1)) as u8;
    let overflow = if nanoo { NAN } else { sign | largest };
    if x.is_nan() {
        return NAN;
    }
    if x.is_infinite() {
        return overflow;
    }
    if x == 0.0 {
        return 0;
    }
    // |x| = m * 2^e with m a 24-bit (or shorter, for subnormals) integer.
    let b = x.to_bits();
    let field = ((b >> 23) & 0xff) as i32;
    let (m, e) = if field == 0 { (b & 0x7f_ffff, -149) } else { ((b & 0x7f_ffff) | 0x80_0000, field - 150) };
    let e = e - scale.clamp(-400, 400);
    // The unbiased exponent of the exact value, and the quantum 2^q of the
    // format at that exponent (subnormals share the smallest normal's).
    let top = 31 - m.leading_zeros() as i32 + e;
    let q = top.max(1 - bias) - m_bits;
    let shift = e - q;
    // `shift` is at most `m_bits`: the quantum is never finer than the
    // value's own last significant bit allows for a normal number.
    let k: u64 = if shift >= 0 {
        u64::from(m) << shift
    } else if -shift > 40 {
        0
    } else {
        let s = -shift as u32;
        let m = u64::from(m);
        let (whole, rest, half) = (m >> s, m & ((1 << s) - 1), 1u64 << (s - 1));
        if rest > half || (rest == half && whole & 1 == 1) {
            whole + 1
        } else {
            whole
        }
    };
    if k == 0 {
        return 0;
    }
    // k * 2^q, with k < 2^(m_bits + 1) unless rounding carried into the
    // next binade.
    let (mut k, mut q) = (k, q);
    if k == 1 << (m_bits + 1) {
        k >>= 1;
        q += 1;
    }
    let exp = if k < 1 << m_bits { 0 } else { q + m_bits + bias };
    if exp > (1 << e_bits) - 1 {
        return overflow;
    }
    sign | ((exp << m_bits) as u8) | (k as u8 & ((1 << m_bits) - 1))
}

/// The format and scale of a packed metadata byte (`MetadataType`): bit 7
/// set is 1.4.3, clear 1.5.2; bits 0-5 are the scale, two's complement
/// (bit 5 its sign); bit 6 is unused.
pub fn unpack_metadata(byte: u8) -> (Format, i32) {
    let format = if byte & 0x80 != 0 { Format::F143 } else { Format::F152 };
    let scale = i32::from(byte & 0x3f);
    (format, if scale & 0x20 != 0 { scale - 64 } else { scale })
}

/// `HostFn::QuarterToF32`: `bits` (low 8 bits), format 1.4.3 when `f143` is
/// non-zero, and the scale.
pub extern "C" fn host_quarter_to_f32(bits: u32, f143: u32, scale: i32) -> f32 {
    to_f32(bits as u8, if f143 != 0 { Format::F143 } else { Format::F152 }, scale)
}

/// `HostFn::F32ToQuarter`: the quarter's pattern in the low 8 bits.
pub extern "C" fn host_f32_to_quarter(x: f32, f143: u32, scale: i32, nanoo: u32) -> u32 {
    u32::from(from_f32(x, if f143 != 0 { Format::F143 } else { Format::F152 }, scale, nanoo != 0))
}

#[cfg(test)]
mod tests {
    use super::Format::{F143, F152};
    use super::*;

    #[test]
    fn known_values() {
        // (format, bits, value at scale 0)
        let table: &[(Format, u8, f32)] = &[
            (F143, 0x00, 0.0),
            (F143, 0x01, 1.0 / 1024.0), // smallest subnormal, 2^-10
            (F143, 0x07, 7.0 / 1024.0), // largest subnormal
            (F143, 0x08, 1.0 / 128.0),  // smallest normal, 2^-7
            (F143, 0x40, 1.0),
            (F143, 0x44, 1.5),
            (F143, 0x7f, 240.0), // largest
            (F143, 0xc0, -1.0),
            (F143, 0xff, -240.0),
            (F152, 0x01, 1.0 / 131072.0), // 2^-17
            (F152, 0x04, 1.0 / 32768.0),  // 2^-15
            (F152, 0x40, 1.0),
            (F152, 0x44, 2.0),
            (F152, 0x3c, 0.5),
            (F152, 0x42, 1.5),
            (F152, 0x7f, 57344.0),
            (F152, 0xc0, -1.0),
        ];
        for &(f, bits, v) in table {
            assert_eq!(to_f32(bits, f, 0), v, "{f:?} {bits:#04x}");
            assert_eq!(from_f32(v, f, 0, true), bits, "{f:?} {v}");
        }
        assert!(to_f32(0x80, F143, 0).is_nan());
        assert!(to_f32(0x80, F152, 5).is_nan());
    }

    #[test]
    fn scale_multiplies_by_a_power_of_two() {
        assert_eq!(to_f32(0x40, F143, 3), 8.0);
        assert_eq!(to_f32(0x40, F143, -2), 0.25);
        assert_eq!(from_f32(8.0, F143, 3, true), 0x40);
        assert_eq!(from_f32(240.0 * 2f32.powi(31), F143, 31, true), 0x7f);
        assert_eq!(to_f32(0x7f, F152, -32), 57344.0 / 2f32.powi(32));
        // Every pattern survives the round trip at several scales.
        for f in [F143, F152] {
            for s in [-32, -5, 0, 7, 31] {
                for b in 0..=255u8 {
                    if b == 0x80 {
                        continue;
                    }
                    assert_eq!(from_f32(to_f32(b, f, s), f, s, true), b, "{f:?} {b:#04x} scale {s}");
                }
            }
        }
    }

    #[test]
    fn rounding_is_to_nearest_even() {
        // Between 1.0 (0x40) and 1.125 (0x41) in 1.4.3.
        assert_eq!(from_f32(1.0625, F143, 0, true), 0x40); // tie, to even
        assert_eq!(from_f32(1.1875, F143, 0, true), 0x42); // tie 1.125|1.25, to even
        assert_eq!(from_f32(1.07, F143, 0, true), 0x41);
        // Subnormals: 1.5 * 2^-10 is a tie between 0x01 and 0x02.
        assert_eq!(from_f32(1.5 / 1024.0, F143, 0, true), 0x02);
        assert_eq!(from_f32(0.5 / 1024.0, F143, 0, true), 0x00); // tie to zero
        assert_eq!(from_f32(0.51 / 1024.0, F143, 0, true), 0x01);
        // Underflow to zero is +0 whatever the sign.
        assert_eq!(from_f32(-1e-30, F143, 0, true), 0x00);
        assert_eq!(from_f32(-0.0, F152, 0, false), 0x00);
        // A carry into the next binade.
        assert_eq!(from_f32(1.9999, F143, 0, true), 0x48);
    }

    #[test]
    fn overflow_saturates_or_is_nan() {
        // 240 + half an ulp (8) rounds to 256: beyond the largest value.
        assert_eq!(from_f32(247.0, F143, 0, true), 0x7f);
        assert_eq!(from_f32(248.0, F143, 0, true), NAN);
        assert_eq!(from_f32(248.0, F143, 0, false), 0x7f);
        assert_eq!(from_f32(-1e9, F143, 0, false), 0xff);
        assert_eq!(from_f32(f32::INFINITY, F152, 0, true), NAN);
        assert_eq!(from_f32(f32::NEG_INFINITY, F152, 0, false), 0xff);
        assert_eq!(from_f32(f32::NAN, F152, 0, false), NAN);
        assert_eq!(from_f32(61440.0, F152, 0, false), 0x7f);
        assert_eq!(from_f32(61440.0, F152, 0, true), NAN);
        assert_eq!(from_f32(f32::MAX, F143, -32, false), 0x7f);
    }

    #[test]
    fn metadata_bytes() {
        assert_eq!(unpack_metadata(0x80), (F143, 0));
        assert_eq!(unpack_metadata(0x05), (F152, 5));
        assert_eq!(unpack_metadata(0x3f), (F152, -1));
        assert_eq!(unpack_metadata(0xa0), (F143, -32));
        assert_eq!(unpack_metadata(0x5f), (F152, 31)); // bit 6 ignored
    }
}

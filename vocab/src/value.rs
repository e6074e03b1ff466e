//! [`Value`]s of elements and their bytes: the one codec every crate uses
//! to put an element into tile memory ([`encode`]) and read it back
//! ([`decode`]). Little endian, two's complement, IEEE binary16/32/64.
//!
//! The codec converts and never checks: callers that take values from
//! users check them first against [`ElemType::int_range`] and
//! [`Value::fits`], each with its own message.

use half::f16;

use crate::ElemType;

/// One element's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// Any integer of any integer type (and a quarter's bit pattern).
    Int(i128),
    /// A floating value (a `half` or `float` widened exactly).
    Float(f64),
    Bool(bool),
}

impl Value {
    /// The value as a floating number (`true` is 1).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
            Value::Bool(b) => f64::from(u8::from(b)),
        }
    }

    /// The value as an integer (`true` is 1); a float is truncated toward
    /// zero and saturates at the 64-bit range, as C++ converts to `long`.
    pub fn as_i128(self) -> i128 {
        match self {
            Value::Int(i) => i,
            Value::Float(f) => i128::from(f as i64),
            Value::Bool(b) => i128::from(b),
        }
    }

    /// Whether a value written by a user fits `elem` without changing: an
    /// integer in [`ElemType::int_range`], any number for a floating type
    /// that stays finite unless it was infinite already. Floats never fit
    /// an integer type; a `bool` fits only `bool`.
    pub fn fits(self, elem: ElemType) -> bool {
        match (self, elem.int_range()) {
            (Value::Int(i), Some((lo, hi))) => (lo..=hi).contains(&i),
            (Value::Bool(_), _) => elem == ElemType::Bool,
            (Value::Float(_), Some(_)) => false,
            (v, None) => {
                let f = v.as_f64();
                !f.is_finite() || !decode(elem, &encode_vec(elem, v)).as_f64().is_infinite()
            }
        }
    }
}

/// Appends the `elem.size()` bytes of `v` converted to `elem`: integers
/// wrap to the type's width, floats round to nearest even.
pub fn encode(elem: ElemType, v: Value, out: &mut Vec<u8>) {
    match elem {
        ElemType::Half => out.extend_from_slice(&f16::from_f64(v.as_f64()).to_le_bytes()),
        ElemType::Float => out.extend_from_slice(&(v.as_f64() as f32).to_le_bytes()),
        ElemType::Double => out.extend_from_slice(&v.as_f64().to_le_bytes()),
        _ => out.extend_from_slice(&v.as_i128().to_le_bytes()[..elem.size() as usize]),
    }
}

/// [`encode`] into a new vector.
pub fn encode_vec(elem: ElemType, v: Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(elem.size() as usize);
    encode(elem, v, &mut out);
    out
}

/// The value of the `elem` at the start of `bytes`; bytes past the end of
/// a short slice read as zero. A `bool` is any non-zero byte, a `quarter`
/// its bit pattern as an integer.
pub fn decode(elem: ElemType, bytes: &[u8]) -> Value {
    let mut b = [0u8; 8];
    let n = (elem.size() as usize).min(bytes.len());
    b[..n].copy_from_slice(&bytes[..n]);
    let [b0, b1, b2, b3, ..] = b;
    match elem {
        ElemType::Bool => Value::Bool(b0 != 0),
        ElemType::Char => Value::Int(i8::from_le_bytes([b0]).into()),
        ElemType::UChar | ElemType::Quarter => Value::Int(b0.into()),
        ElemType::Short => Value::Int(i16::from_le_bytes([b0, b1]).into()),
        ElemType::UShort => Value::Int(u16::from_le_bytes([b0, b1]).into()),
        ElemType::Int => Value::Int(i32::from_le_bytes([b0, b1, b2, b3]).into()),
        ElemType::UInt => Value::Int(u32::from_le_bytes([b0, b1, b2, b3]).into()),
        ElemType::Long => Value::Int(i64::from_le_bytes(b).into()),
        ElemType::ULong => Value::Int(u64::from_le_bytes(b).into()),
        ElemType::Half => Value::Float(f16::from_le_bytes([b0, b1]).to_f64()),
        ElemType::Float => Value::Float(f32::from_le_bytes([b0, b1, b2, b3]).into()),
        ElemType::Double => Value::Float(f64::from_le_bytes(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_type() {
        for t in ElemType::ALL {
            let v = if t.is_float() {
                Value::Float(-2.5)
            } else if t == ElemType::Bool {
                Value::Bool(true)
            } else {
                Value::Int(t.int_range().unwrap().0.max(-7) + 100)
            };
            let b = encode_vec(t, v);
            assert_eq!(b.len(), t.size() as usize, "{t}");
            assert_eq!(decode(t, &b), v, "{t}");
        }
    }

    #[test]
    fn conversions() {
        assert_eq!(encode_vec(ElemType::UChar, Value::Int(-1)), [0xff]);
        assert_eq!(encode_vec(ElemType::Short, Value::Float(-3.9)), (-3i16).to_le_bytes());
        assert_eq!(encode_vec(ElemType::Float, Value::Bool(true)), 1f32.to_le_bytes());
        assert_eq!(decode(ElemType::ULong, &u64::MAX.to_le_bytes()), Value::Int(u64::MAX.into()));
        assert_eq!(decode(ElemType::Int, &[1]), Value::Int(1));
        assert_eq!(decode(ElemType::Half, &f16::from_f32(0.5).to_le_bytes()), Value::Float(0.5));
    }

    #[test]
    fn fits() {
        assert!(Value::Int(255).fits(ElemType::UChar));
        assert!(!Value::Int(256).fits(ElemType::UChar));
        assert!(!Value::Float(1.0).fits(ElemType::Int));
        assert!(Value::Int(65504).fits(ElemType::Half));
        assert!(!Value::Int(70000).fits(ElemType::Half));
        assert!(Value::Float(f64::INFINITY).fits(ElemType::Float));
        assert!(!Value::Float(1e39).fits(ElemType::Float));
        assert!(!Value::Bool(true).fits(ElemType::Int));
    }
}

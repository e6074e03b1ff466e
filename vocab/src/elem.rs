//! [`ElemType`]: the scalar element types of tensors, streams, vertex
//! fields and edges, with their names, sizes and integer ranges.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A scalar element type, as Poplar's `poplar::Type` (`BOOL` … `QUARTER`).
///
/// The variants' order is part of the `.gp` and `prog.exe` formats
/// (serialised by index): append new types, never reorder them. PIR
/// declares tensors of the first eleven ([`ElemType::PIR`]); `double` and
/// `quarter` appear only in codelets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ElemType {
    Bool,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Half,
    Float,
    Double,
    /// Poplar's 8-bit float; its format and scale come from metadata
    /// (`linker::quarter`), so an edge of quarters also carries the
    /// address of its metadata byte. Values are written as bit patterns.
    Quarter,
}

impl ElemType {
    /// The types a PIR program can declare, in the order of the PIR
    /// reference's type table.
    pub const PIR: [ElemType; 11] = [
        ElemType::Bool,
        ElemType::Char,
        ElemType::UChar,
        ElemType::Short,
        ElemType::UShort,
        ElemType::Int,
        ElemType::UInt,
        ElemType::Long,
        ElemType::ULong,
        ElemType::Half,
        ElemType::Float,
    ];

    /// Every type, in declaration order.
    pub const ALL: [ElemType; 13] = [
        ElemType::Bool,
        ElemType::Char,
        ElemType::UChar,
        ElemType::Short,
        ElemType::UShort,
        ElemType::Int,
        ElemType::UInt,
        ElemType::Long,
        ElemType::ULong,
        ElemType::Half,
        ElemType::Float,
        ElemType::Double,
        ElemType::Quarter,
    ];

    /// Bytes one element occupies in tile memory.
    pub fn size(self) -> u32 {
        match self {
            ElemType::Bool | ElemType::Char | ElemType::UChar | ElemType::Quarter => 1,
            ElemType::Short | ElemType::UShort | ElemType::Half => 2,
            ElemType::Int | ElemType::UInt | ElemType::Float => 4,
            ElemType::Long | ElemType::ULong | ElemType::Double => 8,
        }
    }

    /// The short name: PIR's spelling (`uint`, `half`, …), and `double`,
    /// `quarter` for the two types PIR does not declare. The runtime's
    /// messages and host-data options use it too.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::Bool => "bool",
            ElemType::Char => "char",
            ElemType::UChar => "uchar",
            ElemType::Short => "short",
            ElemType::UShort => "ushort",
            ElemType::Int => "int",
            ElemType::UInt => "uint",
            ElemType::Long => "long",
            ElemType::ULong => "ulong",
            ElemType::Half => "half",
            ElemType::Float => "float",
            ElemType::Double => "double",
            ElemType::Quarter => "quarter",
        }
    }

    /// The C++ spelling used in codelets and in canonical vertex type names
    /// (`unsigned int`, `long long`, `half`, …).
    pub fn cpp_name(self) -> &'static str {
        match self {
            ElemType::Bool => "bool",
            ElemType::Char => "char",
            ElemType::UChar => "unsigned char",
            ElemType::Short => "short",
            ElemType::UShort => "unsigned short",
            ElemType::Int => "int",
            ElemType::UInt => "unsigned int",
            ElemType::Long => "long long",
            ElemType::ULong => "unsigned long long",
            ElemType::Half => "half",
            ElemType::Float => "float",
            ElemType::Double => "double",
            ElemType::Quarter => "quarter",
        }
    }

    /// Parses PIR's spelling (one of [`ElemType::PIR`]).
    pub fn from_pir(s: &str) -> Option<ElemType> {
        ElemType::PIR.into_iter().find(|t| t.name() == s)
    }

    /// Parses a C++ spelling, any run of spaces between words (also
    /// `unsigned`, `long`, `unsigned long`, `signed char`, `uint32_t`-style
    /// names; `long` is 64-bit as on the LP64 hosts codelets run on).
    pub fn from_cpp(s: &str) -> Option<ElemType> {
        let norm: Vec<&str> = s.split_whitespace().collect();
        let s = norm.join(" ");
        Some(match s.as_str() {
            "bool" => ElemType::Bool,
            "char" | "signed char" | "int8_t" => ElemType::Char,
            "unsigned char" | "uint8_t" => ElemType::UChar,
            "short" | "signed short" | "short int" | "int16_t" => ElemType::Short,
            "unsigned short" | "unsigned short int" | "uint16_t" => ElemType::UShort,
            "int" | "signed" | "signed int" | "int32_t" => ElemType::Int,
            "unsigned" | "unsigned int" | "uint32_t" => ElemType::UInt,
            "long" | "long long" | "long int" | "long long int" | "int64_t" => ElemType::Long,
            "unsigned long" | "unsigned long long" | "unsigned long int" | "uint64_t" => ElemType::ULong,
            "half" => ElemType::Half,
            "float" => ElemType::Float,
            "double" => ElemType::Double,
            "quarter" => ElemType::Quarter,
            _ => return None,
        })
    }

    /// Whether values are floating point with arithmetic (`half`, `float`,
    /// `double`); a `quarter` is written and read as its bit pattern.
    pub fn is_float(self) -> bool {
        matches!(self, ElemType::Half | ElemType::Float | ElemType::Double)
    }

    /// The inclusive range of the integers a value of this type can be
    /// written as: `bool` 0 to 1, a `quarter`'s bit pattern 0 to 255, none
    /// for the floating types.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            ElemType::Bool => (0, 1),
            ElemType::Char => (i8::MIN.into(), i8::MAX.into()),
            ElemType::UChar | ElemType::Quarter => (0, u8::MAX.into()),
            ElemType::Short => (i16::MIN.into(), i16::MAX.into()),
            ElemType::UShort => (0, u16::MAX.into()),
            ElemType::Int => (i32::MIN.into(), i32::MAX.into()),
            ElemType::UInt => (0, u32::MAX.into()),
            ElemType::Long => (i64::MIN.into(), i64::MAX.into()),
            ElemType::ULong => (0, u64::MAX.into()),
            ElemType::Half | ElemType::Float | ElemType::Double => return None,
        })
    }
}

impl fmt::Display for ElemType {
    /// Prints the short name ([`ElemType::name`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ElemType {
    type Err = ();
    /// Parses PIR's spelling.
    fn from_str(s: &str) -> Result<Self, ()> {
        ElemType::from_pir(s).ok_or(())
    }
}

#[cfg(test)]
mod tests {
    use super::ElemType;

    #[test]
    fn names_round_trip() {
        for t in ElemType::ALL {
            assert_eq!(ElemType::from_cpp(t.cpp_name()), Some(t), "{t}");
        }
        for t in ElemType::PIR {
            assert_eq!(ElemType::from_pir(t.name()), Some(t));
            assert_eq!(t.to_string().parse::<ElemType>(), Ok(t));
        }
        assert_eq!(ElemType::from_pir("double"), None);
        assert_eq!(ElemType::from_pir("quarter"), None);
        assert_eq!(ElemType::from_cpp("unsigned   long"), Some(ElemType::ULong));
        assert_eq!(ElemType::from_cpp("long double"), None);
    }

    #[test]
    fn ranges_match_sizes() {
        for t in ElemType::ALL {
            match t.int_range() {
                Some((lo, hi)) if t != ElemType::Bool => {
                    assert_eq!(hi - lo + 1, 1i128 << (8 * t.size()), "{t}")
                }
                Some(_) => {}
                None => assert!(t.is_float()),
            }
        }
    }
}

//! Scalar element types of tensors, streams and vertex fields.

use std::fmt;

/// A tensor element type, as Poplar's `poplar::Type` (BOOL … FLOAT).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
}

impl ElemType {
    /// Every type, in the order of docs/pir.md's type table.
    pub const ALL: [ElemType; 11] = [
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

    /// Bytes one element occupies in tile memory.
    pub fn size_in_bytes(self) -> u32 {
        match self {
            ElemType::Bool | ElemType::Char | ElemType::UChar => 1,
            ElemType::Short | ElemType::UShort | ElemType::Half => 2,
            ElemType::Int | ElemType::UInt | ElemType::Float => 4,
            ElemType::Long | ElemType::ULong => 8,
        }
    }

    /// The PIR spelling (`uint`, `half`, …).
    pub fn pir_name(self) -> &'static str {
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
        }
    }

    /// Poplar's constant name (`UNSIGNED_INT`, `LONGLONG`, …).
    pub fn poplar_name(self) -> &'static str {
        match self {
            ElemType::Bool => "BOOL",
            ElemType::Char => "CHAR",
            ElemType::UChar => "UNSIGNED_CHAR",
            ElemType::Short => "SHORT",
            ElemType::UShort => "UNSIGNED_SHORT",
            ElemType::Int => "INT",
            ElemType::UInt => "UNSIGNED_INT",
            ElemType::Long => "LONGLONG",
            ElemType::ULong => "UNSIGNED_LONGLONG",
            ElemType::Half => "HALF",
            ElemType::Float => "FLOAT",
        }
    }

    /// Parses the PIR spelling.
    pub fn from_pir(s: &str) -> Option<ElemType> {
        ElemType::ALL.into_iter().find(|t| t.pir_name() == s)
    }

    /// Parses the C++ spelling (also accepts `unsigned`, `long`,
    /// `unsigned long`, `signed char`, `uint32_t`-style names).
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
            _ => return None,
        })
    }

    /// Whether the type is `half` or `float`.
    pub fn is_float(self) -> bool {
        matches!(self, ElemType::Half | ElemType::Float)
    }

    /// Whether the type is an integer type (including `bool`).
    pub fn is_integer(self) -> bool {
        !self.is_float()
    }

    /// The inclusive value range of an integer type.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            ElemType::Bool => (0, 1),
            ElemType::Char => (i8::MIN as i128, i8::MAX as i128),
            ElemType::UChar => (0, u8::MAX as i128),
            ElemType::Short => (i16::MIN as i128, i16::MAX as i128),
            ElemType::UShort => (0, u16::MAX as i128),
            ElemType::Int => (i32::MIN as i128, i32::MAX as i128),
            ElemType::UInt => (0, u32::MAX as i128),
            ElemType::Long => (i64::MIN as i128, i64::MAX as i128),
            ElemType::ULong => (0, u64::MAX as i128),
            ElemType::Half | ElemType::Float => return None,
        })
    }
}

impl fmt::Display for ElemType {
    /// Prints the PIR spelling.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.pir_name())
    }
}

impl std::str::FromStr for ElemType {
    type Err = ();
    /// Parses the PIR spelling.
    fn from_str(s: &str) -> Result<Self, ()> {
        ElemType::from_pir(s).ok_or(())
    }
}

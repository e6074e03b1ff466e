//! Scalar types of the codelet language and their C++ spellings.

use linker::gp::ElemType;

/// A scalar type. `long` and `long long` are both 64-bit (the host's LP64
/// model, which the differential tests compile against).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    Bool,
    Char,
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    LongLong,
    ULongLong,
    Half,
    Float,
    Double,
    /// Poplar's 8-bit float: a byte whose meaning comes from metadata. It
    /// has no arithmetic and no conversions: `toFloat`/`toQuarter` (the
    /// built-in `<poplar/QuarterFloat.hpp>`) read and make it.
    Quarter,
}

impl Scalar {
    /// C++ spelling, as Poplar prints it in vertex names.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Char => "char",
            Scalar::SChar => "signed char",
            Scalar::UChar => "unsigned char",
            Scalar::Short => "short",
            Scalar::UShort => "unsigned short",
            Scalar::Int => "int",
            Scalar::UInt => "unsigned int",
            Scalar::Long => "long",
            Scalar::ULong => "unsigned long",
            Scalar::LongLong => "long long",
            Scalar::ULongLong => "unsigned long long",
            Scalar::Half => "half",
            Scalar::Float => "float",
            Scalar::Double => "double",
            Scalar::Quarter => "quarter",
        }
    }

    /// The scalar type [`Scalar::name`] spells as `name`.
    pub fn from_name(name: &str) -> Option<Scalar> {
        use Scalar::*;
        [
            Bool, Char, SChar, UChar, Short, UShort, Int, UInt, Long, ULong, LongLong, ULongLong, Half,
            Float, Double, Quarter,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }

    /// Bytes of the element type it is stored as.
    pub fn size(self) -> u32 {
        self.elem().size()
    }

    pub fn is_float(self) -> bool {
        self.elem().is_float()
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Scalar::Char | Scalar::SChar | Scalar::Short | Scalar::Int | Scalar::Long | Scalar::LongLong
        ) || self.is_float()
    }

    /// Integer conversion rank (C++ [conv.rank]); floats rank above all.
    pub fn rank(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::Quarter => 0,
            Scalar::Char | Scalar::SChar | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort => 2,
            Scalar::Int | Scalar::UInt => 3,
            Scalar::Long | Scalar::ULong => 4,
            Scalar::LongLong | Scalar::ULongLong => 5,
            Scalar::Half => 10,
            Scalar::Float => 11,
            Scalar::Double => 12,
        }
    }

    pub fn to_unsigned(self) -> Scalar {
        match self {
            Scalar::Char | Scalar::SChar => Scalar::UChar,
            Scalar::Short => Scalar::UShort,
            Scalar::Int => Scalar::UInt,
            Scalar::Long => Scalar::ULong,
            Scalar::LongLong => Scalar::ULongLong,
            s => s,
        }
    }

    /// The element type it is stored as (C++ distinguishes `long` from
    /// `long long` and `signed char` from `char`; memory does not).
    pub fn elem(self) -> ElemType {
        match self {
            Scalar::Bool => ElemType::Bool,
            Scalar::Char | Scalar::SChar => ElemType::Char,
            Scalar::UChar => ElemType::UChar,
            Scalar::Short => ElemType::Short,
            Scalar::UShort => ElemType::UShort,
            Scalar::Int => ElemType::Int,
            Scalar::UInt => ElemType::UInt,
            Scalar::Long | Scalar::LongLong => ElemType::Long,
            Scalar::ULong | Scalar::ULongLong => ElemType::ULong,
            Scalar::Half => ElemType::Half,
            Scalar::Float => ElemType::Float,
            Scalar::Double => ElemType::Double,
            Scalar::Quarter => ElemType::Quarter,
        }
    }

    /// Usual arithmetic conversions (with `half` ranking below `float`).
    pub fn common(a: Scalar, b: Scalar) -> Scalar {
        if a.is_float() || b.is_float() {
            return if a.rank() >= b.rank() { a } else { b };
        }
        let a = a.promote();
        let b = b.promote();
        if a == b {
            return a;
        }
        if a.is_signed() == b.is_signed() {
            return if a.rank() >= b.rank() { a } else { b };
        }
        let (s, u) = if a.is_signed() { (a, b) } else { (b, a) };
        if u.rank() >= s.rank() {
            u
        } else if s.size() > u.size() {
            s
        } else {
            s.to_unsigned()
        }
    }

    /// Integral promotion.
    pub fn promote(self) -> Scalar {
        if self.rank() < 3 {
            Scalar::Int
        } else {
            self
        }
    }
}

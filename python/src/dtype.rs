//! Element types as numpy names them: `float32` is Poplar's `float`,
//! `float16` its `half`, `int32` `int`, and so on. The one table both
//! directions read.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use vocab::ElemType;

/// (numpy name, element type, Poplar's C++ name).
const TYPES: [(&str, ElemType, &str); 11] = [
    ("bool", ElemType::Bool, "bool"),
    ("int8", ElemType::Char, "char"),
    ("uint8", ElemType::UChar, "unsigned char"),
    ("int16", ElemType::Short, "short"),
    ("uint16", ElemType::UShort, "unsigned short"),
    ("int32", ElemType::Int, "int"),
    ("uint32", ElemType::UInt, "unsigned int"),
    ("int64", ElemType::Long, "long long"),
    ("uint64", ElemType::ULong, "unsigned long long"),
    ("float16", ElemType::Half, "half"),
    ("float32", ElemType::Float, "float"),
];

/// The numpy name of an element type.
pub fn numpy_name(e: ElemType) -> PyResult<&'static str> {
    TYPES
        .iter()
        .find(|(_, t, _)| *t == e)
        .map(|(n, _, _)| *n)
        .ok_or_else(|| PyTypeError::new_err(format!("element type {} has no numpy dtype", e.cpp_name())))
}

/// The element type a dtype argument names: a numpy dtype or type
/// (`numpy.float32`), its name (`"float32"`), or Poplar's (`"float"`, `"half"`).
pub fn elem_of(dtype: &Bound<'_, PyAny>) -> PyResult<ElemType> {
    let name: String = match dtype.extract::<String>() {
        Ok(s) => s,
        Err(_) => {
            // numpy.dtype(x).name, for dtype objects and scalar types alike.
            let np = dtype.py().import("numpy")?;
            np.getattr("dtype")?.call1((dtype,))?.getattr("name")?.extract()?
        }
    };
    TYPES.iter().find(|(n, _, cpp)| *n == name || *cpp == name).map(|(_, t, _)| *t).ok_or_else(|| {
        let known: Vec<&str> = TYPES.iter().map(|(n, _, _)| *n).collect();
        PyTypeError::new_err(format!("unsupported dtype '{name}' (one of: {})", known.join(", ")))
    })
}

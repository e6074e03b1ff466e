//! Host data: converting between the command line's DATA forms (a literal
//! list `[0,1,2]`, a splat `0`, the bytes of a `.npy` or raw little-endian
//! `.bin` file) and the bytes of a tensor of a given element type and shape.
//!
//! No file system here: callers read the file and pass its bytes.

use half::f16;
use linker::gp::ElemType;

use crate::error::HostError;

/// Poplar's name of an element type.
pub fn elem_name(e: ElemType) -> &'static str {
    match e {
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
    }
}

/// NumPy's type string of an element type.
pub fn npy_descr(e: ElemType) -> &'static str {
    match e {
        ElemType::Bool => "|b1",
        ElemType::Char => "|i1",
        ElemType::UChar => "|u1",
        ElemType::Short => "<i2",
        ElemType::UShort => "<u2",
        ElemType::Int => "<i4",
        ElemType::UInt => "<u4",
        ElemType::Long => "<i8",
        ElemType::ULong => "<u8",
        ElemType::Half => "<f2",
        ElemType::Float => "<f4",
        ElemType::Double => "<f8",
    }
}

fn shape_text(shape: &[u64]) -> String {
    let d: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", d.join(","))
}

/// Encodes one textual value (`3`, `-2`, `0x1f`, `1.5`, `inf`, `true`).
pub fn encode_value(e: ElemType, text: &str, out: &mut Vec<u8>) -> Result<(), String> {
    let t = text.trim();
    let bad = || format!("'{t}' is not a valid {} value", elem_name(e));
    let int = || -> Result<i128, String> {
        let (neg, body) = match t.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            i128::from_str_radix(h, 16)
        } else {
            body.parse::<i128>()
        }
        .map_err(|_| bad())?;
        Ok(if neg { -v } else { v })
    };
    let ranged = |lo: i128, hi: i128| -> Result<i128, String> {
        let v = int()?;
        if v < lo || v > hi {
            return Err(format!("{t} is out of range for {}", elem_name(e)));
        }
        Ok(v)
    };
    let float = || -> Result<f64, String> {
        match t {
            "inf" | "+inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            "nan" | "-nan" => Ok(f64::NAN),
            _ => t.parse::<f64>().or_else(|_| int().map(|i| i as f64)).map_err(|_| bad()),
        }
    };
    match e {
        ElemType::Bool => out.push(match t {
            "true" | "1" => 1,
            "false" | "0" => 0,
            _ => return Err(bad()),
        }),
        ElemType::Char => out.push(ranged(-128, 127)? as i8 as u8),
        ElemType::UChar => out.push(ranged(0, 255)? as u8),
        ElemType::Short => out.extend_from_slice(&(ranged(-32768, 32767)? as i16).to_le_bytes()),
        ElemType::UShort => out.extend_from_slice(&(ranged(0, 65535)? as u16).to_le_bytes()),
        ElemType::Int => {
            out.extend_from_slice(&(ranged(i32::MIN.into(), i32::MAX.into())? as i32).to_le_bytes())
        }
        ElemType::UInt => out.extend_from_slice(&(ranged(0, u32::MAX.into())? as u32).to_le_bytes()),
        ElemType::Long => {
            out.extend_from_slice(&(ranged(i64::MIN.into(), i64::MAX.into())? as i64).to_le_bytes())
        }
        ElemType::ULong => out.extend_from_slice(&(ranged(0, u64::MAX.into())? as u64).to_le_bytes()),
        ElemType::Half => out.extend_from_slice(&f16::from_f64(float()?).to_le_bytes()),
        ElemType::Float => out.extend_from_slice(&(float()? as f32).to_le_bytes()),
        ElemType::Double => out.extend_from_slice(&float()?.to_le_bytes()),
    }
    Ok(())
}

/// Parses a literal: a list `[1,2,3]` (nested brackets are flattened) or a
/// splat `0` that fills every element.
pub fn parse_literal(text: &str, e: ElemType, shape: &[u64], name: &str) -> Result<Vec<u8>, HostError> {
    let count = linker::image::element_count(shape) as usize;
    let t = text.trim();
    let mut out = Vec::with_capacity(count * e.size() as usize);
    let err = |m: String| HostError::Data(format!("data for '{name}': {m}"));
    if t.starts_with('[') {
        let flat: String = t.chars().map(|c| if c == '[' || c == ']' { ' ' } else { c }).collect();
        let items: Vec<&str> = flat.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        if items.len() != count {
            return Err(err(format!(
                "{} values given, its shape {} of {} needs {count}",
                items.len(),
                shape_text(shape),
                elem_name(e)
            )));
        }
        for it in items {
            encode_value(e, it, &mut out).map_err(err)?;
        }
    } else {
        let mut one = Vec::new();
        encode_value(e, t, &mut one).map_err(err)?;
        for _ in 0..count {
            out.extend_from_slice(&one);
        }
    }
    Ok(out)
}

/// Checks raw little-endian bytes (a `.bin` file) against the type and shape.
pub fn from_bin(bytes: &[u8], e: ElemType, shape: &[u64], name: &str) -> Result<Vec<u8>, HostError> {
    let want = linker::image::element_count(shape) * u64::from(e.size());
    if bytes.len() as u64 != want {
        return Err(HostError::Data(format!(
            "data for '{name}': the raw file has {} bytes, {} of {} needs {want}",
            bytes.len(),
            shape_text(shape),
            elem_name(e)
        )));
    }
    Ok(bytes.to_vec())
}

/// Reads a `.npy` file's bytes, checking its dtype and shape.
pub fn from_npy(bytes: &[u8], e: ElemType, shape: &[u64], name: &str) -> Result<Vec<u8>, HostError> {
    let err = |m: String| HostError::Data(format!("data for '{name}': {m}"));
    let file = npyz::NpyFile::new(bytes).map_err(|x| err(format!("not a valid .npy file: {x}")))?;
    let descr = file.dtype().descr().trim_matches('\'').to_string();
    let want = npy_descr(e);
    let same =
        descr == want || (descr[1..] == want[1..] && (descr.starts_with('|') || want.starts_with('|')));
    if !same {
        return Err(err(format!(
            "the .npy file holds '{descr}', '{name}' needs {} ('{want}')",
            elem_name(e)
        )));
    }
    if file.order() == npyz::Order::Fortran && file.shape().len() > 1 {
        return Err(err("Fortran-ordered .npy files are not supported".into()));
    }
    let count = linker::image::element_count(shape);
    // The same shape, or the same elements flattened to one dimension.
    let fits = file.shape() == shape || (file.shape().len() == 1 && file.len() == count);
    if !fits {
        return Err(err(format!(
            "the .npy file has shape {} ({} elements), '{name}' has shape {} ({count} elements); \
             give that shape or a flat array of {count}",
            shape_text(file.shape()),
            file.len(),
            shape_text(shape)
        )));
    }
    let data_len = (count * u64::from(e.size())) as usize;
    if bytes.len() < data_len {
        return Err(err("the .npy file is truncated".into()));
    }
    Ok(bytes[bytes.len() - data_len..].to_vec())
}

/// Writes tensor bytes as a version 1.0 `.npy` file.
pub fn to_npy(data: &[u8], e: ElemType, shape: &[u64]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape = match dims.len() {
        0 => "()".to_string(),
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}", npy_descr(e));
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - total % 64) % 64));
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_splats() {
        let b = parse_literal("[1, 2.5]", ElemType::Float, &[2], "x").unwrap();
        assert_eq!(b, [1.0f32.to_le_bytes(), 2.5f32.to_le_bytes()].concat());
        let b = parse_literal("7", ElemType::Int, &[3], "x").unwrap();
        assert_eq!(b.len(), 12);
        assert!(parse_literal("[1,2]", ElemType::Int, &[3], "x")
            .unwrap_err()
            .to_string()
            .contains("needs 3"));
        assert!(parse_literal("1.5", ElemType::Int, &[1], "x").is_err());
        assert!(parse_literal("300", ElemType::UChar, &[1], "x").is_err());
        let b = parse_literal("[[1,2],[3,4]]", ElemType::Short, &[2, 2], "x").unwrap();
        assert_eq!(b.len(), 8);
    }

    #[test]
    fn npy_round_trip() {
        let data: Vec<u8> = [1.0f32, 2.0, 3.0].iter().flat_map(|f| f.to_le_bytes()).collect();
        let file = to_npy(&data, ElemType::Float, &[3]);
        assert_eq!(from_npy(&file, ElemType::Float, &[3], "x").unwrap(), data);
        assert!(from_npy(&file, ElemType::Int, &[3], "x").unwrap_err().to_string().contains("'<f4'"));
        assert!(from_npy(&file, ElemType::Float, &[4], "x").is_err());
        // Shapes must agree, or the file must be flat.
        let data: Vec<u8> = (0..6).flat_map(|i| (i as f32).to_le_bytes()).collect();
        let file = to_npy(&data, ElemType::Float, &[2, 3]);
        assert_eq!(from_npy(&file, ElemType::Float, &[2, 3], "x").unwrap(), data);
        let e = from_npy(&file, ElemType::Float, &[3, 2], "x").unwrap_err().to_string();
        assert!(e.contains("shape [2,3]") || e.contains("shape [2, 3]"), "{e}");
        let flat = to_npy(&data, ElemType::Float, &[6]);
        assert_eq!(from_npy(&flat, ElemType::Float, &[3, 2], "x").unwrap(), data);
    }
}

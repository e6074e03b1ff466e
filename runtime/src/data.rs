//! Host data: converting between the command line's DATA forms (a literal
//! list `[0,1,2]`, a splat `0`, the bytes of a `.npy` or raw little-endian
//! `.bin` file) and the bytes of a tensor of a given element type and shape.
//!
//! No file system here: callers read the file and pass its bytes.

use linker::gp::ElemType;
use vocab::Value;

use crate::error::HostError;

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
        // A quarter's bit pattern: its value needs metadata.
        ElemType::Quarter => "|u1",
    }
}

pub fn shape_text(shape: &[u64]) -> String {
    let d: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", d.join(","))
}

/// Encodes one textual value (`3`, `-2`, `0x1f`, `1.5`, `inf`, `true`).
pub fn encode_value(e: ElemType, text: &str, out: &mut Vec<u8>) -> Result<(), String> {
    let t = text.trim();
    let bad = || format!("'{t}' is not a valid {} value", e.name());
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
    let ranged = || -> Result<Value, String> {
        let v = int()?;
        let (lo, hi) = e.int_range().unwrap_or((0, 0));
        if v < lo || v > hi {
            return Err(format!("{t} is out of range for {}", e.name()));
        }
        Ok(Value::Int(v))
    };
    let float = || -> Result<f64, String> {
        match t {
            "inf" | "+inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            "nan" | "-nan" => Ok(f64::NAN),
            _ => {
                let v = t.parse::<f64>().or_else(|_| int().map(|i| i as f64)).map_err(|_| bad())?;
                // Like integers, a finite value the type cannot hold is an
                // error, not a silent infinity.
                if !v.is_finite() || !Value::Float(v).fits(e) {
                    return Err(format!("{t} is out of range for {}", e.name()));
                }
                Ok(v)
            }
        }
    };
    let v = match e {
        ElemType::Bool => match t {
            "true" | "1" => Value::Bool(true),
            "false" | "0" => Value::Bool(false),
            _ => return Err(bad()),
        },
        _ if e.is_float() => Value::Float(float()?),
        _ => ranged()?,
    };
    vocab::encode(e, v, out);
    Ok(())
}

/// The values of a list literal in order, nested brackets flattened:
/// `[1,[2,3]]` gives `1 2 3`. Brackets must balance, every comma must sit
/// between two items, and nothing may follow the outermost `]`.
fn list_items(t: &str) -> Result<Vec<&str>, String> {
    let mut items = Vec::new();
    let mut depth = 0usize;
    // Whether an item (a value or a closed list) may come next, as after
    // `[` or `,`; otherwise `,` or `]` must.
    let mut want_item = true;
    let mut i = 0;
    let bytes = t.as_bytes();
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'[' if want_item && (depth > 0 || i == 0) => {
                depth += 1;
                i += 1;
            }
            b']' if depth > 0 && (!want_item || bytes[..i].trim_ascii_end().ends_with(b"[")) => {
                depth -= 1;
                want_item = false;
                i += 1;
                if depth == 0 && !t[i..].trim().is_empty() {
                    return Err(format!("unexpected '{}' after the closing ']'", t[i..].trim()));
                }
            }
            b',' if depth > 0 && !want_item => {
                want_item = true;
                i += 1;
            }
            _ if depth > 0 && want_item && !b"[],".contains(&c) => {
                let end = t[i..].find([',', ']', '[']).map_or(t.len(), |n| i + n);
                items.push(t[i..end].trim());
                want_item = false;
                i = end;
            }
            _ => {
                let what = if c == b',' { "an empty item" } else { "a misplaced bracket or value" };
                return Err(format!("{what} at byte {i} of the list"));
            }
        }
    }
    if depth != 0 {
        return Err("the list's brackets do not balance".into());
    }
    Ok(items)
}

/// Parses a literal: a list `[1,2,3]` (nested brackets are flattened) or a
/// splat `0` that fills every element.
pub fn parse_literal(text: &str, e: ElemType, shape: &[u64], name: &str) -> Result<Vec<u8>, HostError> {
    let count = linker::image::element_count(shape) as usize;
    let t = text.trim();
    let err = |m: String| HostError::Data(format!("data for '{name}': {m}"));
    let mut out = Vec::new();
    if t.starts_with('[') {
        let items = list_items(t).map_err(err)?;
        if items.len() != count {
            return Err(err(format!(
                "{} values given, its shape {} of {} needs {count}",
                items.len(),
                shape_text(shape),
                e.name()
            )));
        }
        for it in items {
            encode_value(e, it, &mut out).map_err(err)?;
        }
    } else {
        let mut one = Vec::new();
        encode_value(e, t, &mut one).map_err(err)?;
        out = one.repeat(count);
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
            e.name()
        )));
    }
    Ok(bytes.to_vec())
}

/// Longest `.npy` header accepted (NumPy writes 64 to a few hundred bytes).
pub const NPY_MAX_HEADER: usize = 1 << 16;

/// Checks a `.npy` file's framing before any parser sees it: the magic,
/// a version 1, 2 or 3 header of at most [`NPY_MAX_HEADER`] bytes that the
/// file really holds, ending in a newline, a plain (not structured) `descr`
/// and brackets nested at most 3 deep. Returns where the data starts.
pub fn npy_data_start(bytes: &[u8]) -> Result<usize, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize, 12),
        2 | 3 => return Err("the .npy file is truncated in its header".into()),
        v => return Err(format!(".npy version {v} is not supported (1, 2 or 3)")),
    };
    if len > NPY_MAX_HEADER {
        return Err(format!("the .npy header claims {len} bytes, more than the {NPY_MAX_HEADER} accepted"));
    }
    let header = bytes.get(start..start + len).ok_or("the .npy file is truncated in its header")?;
    if header.last() != Some(&b'\n') {
        return Err("the .npy header does not end in a newline".into());
    }
    let mut depth = 0usize;
    for &c in header {
        match c {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > 3 {
                    return Err("the .npy header nests brackets too deeply".into());
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let text = String::from_utf8_lossy(header);
    let descr = text.split_once("'descr'").map(|(_, r)| r.trim_start().trim_start_matches(':').trim_start());
    if !descr.is_some_and(|d| d.starts_with('\'') || d.starts_with('"')) {
        return Err("the .npy header has no simple 'descr' (structured dtypes are not supported)".into());
    }
    Ok(start + len)
}

/// Elements of a `.npy` file, from its validated header.
pub fn npy_len(bytes: &[u8]) -> Result<u64, String> {
    npy_data_start(bytes)?;
    let file = npyz::NpyFile::new(bytes).map_err(|x| format!("not a valid .npy file: {x}"))?;
    Ok(file.len())
}

/// Shape of a `.npy` file, from its validated header: a stream's buffer
/// takes a file of any shape (`[n, 28, 28]` images), read in row-major order.
pub fn npy_shape(bytes: &[u8]) -> Result<Vec<u64>, String> {
    npy_data_start(bytes)?;
    let file = npyz::NpyFile::new(bytes).map_err(|x| format!("not a valid .npy file: {x}"))?;
    Ok(file.shape().to_vec())
}

/// Reads a `.npy` file's bytes, checking its dtype and shape.
pub fn from_npy(bytes: &[u8], e: ElemType, shape: &[u64], name: &str) -> Result<Vec<u8>, HostError> {
    let err = |m: String| HostError::Data(format!("data for '{name}': {m}"));
    let start = npy_data_start(bytes).map_err(err)?;
    let file = npyz::NpyFile::new(bytes).map_err(|x| err(format!("not a valid .npy file: {x}")))?;
    let descr = file.dtype().descr().trim_matches('\'').to_string();
    let want = npy_descr(e);
    let same = descr == want
        || (descr.get(1..) == want.get(1..) && (descr.starts_with('|') || want.starts_with('|')));
    if !same {
        return Err(err(format!("the .npy file holds '{descr}', '{name}' needs {} ('{want}')", e.name())));
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
    let data_len = count.saturating_mul(u64::from(e.size()));
    let held = (bytes.len() - start) as u64;
    if held != data_len {
        return Err(err(format!(
            "the .npy file holds {held} bytes of data after its header, its shape needs {data_len}"
        )));
    }
    Ok(bytes[start..].to_vec())
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
        let b = parse_literal(" [ [1] , [ 2 , [3] ] , 4 ] ", ElemType::Int, &[4], "x").unwrap();
        assert_eq!(b.len(), 16);
        assert!(parse_literal("[]", ElemType::Int, &[0], "x").unwrap().is_empty());
    }

    #[test]
    fn malformed_literals_are_rejected() {
        for (text, why) in [
            ("[1,,2,,,3,4]", "an empty item"),
            ("[[[1]]],2,3,[4", "after the closing ']'"),
            ("[1,2", "do not balance"),
            ("[1,2]]", "after the closing ']'"),
            ("[,1,2,3]", "an empty item"),
            ("[1,2,3,]", "misplaced"),
            ("[1 [2] 3, 4]", "misplaced"),
        ] {
            let e = parse_literal(text, ElemType::Int, &[4], "x").unwrap_err().to_string();
            assert!(e.contains(why), "{text}: {e}");
        }
    }

    #[test]
    fn out_of_range_floats_are_rejected() {
        for (e, text) in [(ElemType::Float, "1e39"), (ElemType::Half, "70000"), (ElemType::Double, "1e400")] {
            let err = parse_literal(text, e, &[1], "x").unwrap_err().to_string();
            assert!(err.contains("out of range"), "{err}");
        }
        assert!(parse_literal("65504", ElemType::Half, &[1], "x").is_ok());
        assert!(parse_literal("[inf,-inf,nan]", ElemType::Float, &[3], "x").is_ok());
        assert!(parse_literal("3.4028234e38", ElemType::Float, &[1], "x").is_ok());
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

    #[test]
    fn npy_framing_is_checked_before_parsing() {
        let data: Vec<u8> = [1.0f32, 2.0, 3.0].iter().flat_map(|f| f.to_le_bytes()).collect();
        let file = to_npy(&data, ElemType::Float, &[3]);
        let check = |bytes: &[u8], why: &str| {
            let e = from_npy(bytes, ElemType::Float, &[3], "x").unwrap_err().to_string();
            assert!(e.contains(why), "{why}: {e}");
        };
        // No data, half the data, trailing bytes.
        check(&file[..file.len() - 12], "holds 0 bytes of data");
        check(&file[..file.len() - 6], "holds 6 bytes of data");
        let mut long = file.clone();
        long.extend_from_slice(&[0; 4]);
        check(&long, "holds 16 bytes of data");
        // A version 2 header claiming 4 GB.
        let mut v2 = b"\x93NUMPY\x02\x00".to_vec();
        v2.extend_from_slice(&u32::MAX.to_le_bytes());
        v2.extend_from_slice(b"{'descr': '<f4'");
        check(&v2, "more than the 65536 accepted");
        // Nested brackets in descr (a structured dtype), 144 bytes.
        let descr = format!("{}'<f4'{}", "[(".repeat(20), ")]".repeat(20));
        let header = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': (3,), }}\n");
        let mut nested = b"\x93NUMPY\x01\x00".to_vec();
        nested.extend_from_slice(&(header.len() as u16).to_le_bytes());
        nested.extend_from_slice(header.as_bytes());
        check(&nested, "nests brackets too deeply");
        check(&file[..9], "not a .npy file");
        check(&file[..40], "truncated in its header");
        assert_eq!(npy_len(&file).unwrap(), 3);
        assert_eq!(npy_shape(&file).unwrap(), [3]);
        let square = to_npy(&[0; 24], ElemType::Float, &[2, 3]);
        assert_eq!(npy_shape(&square).unwrap(), [2, 3]);
        assert!(npy_shape(&file[..9]).is_err());
    }
}

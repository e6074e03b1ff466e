//! Text formats of values: Poplar's `PrintTensor` layout, with floats as
//! C++ `std::ostream` prints them by default (C's `%g`, formatted by the same
//! code as codelets' `printf`, `linker::printf`).
//!
//! Everything here is pure: bytes and numbers in, `String`s out.

use linker::gp::ElemType;
pub use vocab::PrintStyle;

/// One element of tile memory, decoded by the shared codec.
pub use vocab::{decode, Value};

/// A value as `std::ostream` prints it by default.
pub fn value_text(v: Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => u8::from(b).to_string(),
        Value::Float(f) => {
            let mut out = Vec::new();
            linker::printf::format(b"%g", &[f.to_bits()], &mut out);
            String::from_utf8_lossy(&out).into_owned()
        }
    }
}

/// Formats a tensor (row-major `bytes` of `shape`) as `PrintTensor` does:
/// `label: {1,2}`, rank 0 `label: 3`, higher ranks one brace level per
/// dimension with one innermost row per line. Ends with a newline.
///
/// A tensor with no elements prints as `label: {}` whatever its shape, so
/// the text (and the time to make it) is bounded by the data: a shape such
/// as `[100000000000, 0]` has no rows worth 10^11 lines.
pub fn print_tensor(label: &str, elem: ElemType, shape: &[u64], bytes: &[u8]) -> String {
    print_tensor_as(PrintStyle::Pir, label, elem, shape, bytes)
}

/// [`print_tensor`] in either layout ([`PrintStyle`]).
pub fn print_tensor_as(
    style: PrintStyle,
    label: &str,
    elem: ElemType,
    shape: &[u64],
    bytes: &[u8],
) -> String {
    match style {
        PrintStyle::Pir => pir_layout(label, elem, shape, bytes),
        PrintStyle::Poplar => poplar_layout(label, elem, shape, bytes),
    }
}

/// A value as Poplar's `PrintTensor` prints it: floats with eight
/// significant digits and their trailing zeros (`%#.8g`: `1.0000000`),
/// integers and booleans as numbers.
pub fn poplar_value_text(v: Value) -> String {
    match v {
        Value::Float(f) => {
            let mut out = Vec::new();
            linker::printf::format(b"%#.8g", &[f.to_bits()], &mut out);
            String::from_utf8_lossy(&out).into_owned()
        }
        other => value_text(other),
    }
}

/// `label: [1.0000000 2.0000000]`; higher ranks open a bracket line per
/// dimension, with rows indented two spaces per level; rank 0 prints the
/// bare value.
fn poplar_layout(label: &str, elem: ElemType, shape: &[u64], bytes: &[u8]) -> String {
    let size = elem.size() as usize;
    let values: Vec<String> = bytes.chunks_exact(size).map(|c| poplar_value_text(decode(elem, c))).collect();
    let mut out = format!("{label}: ");
    if shape.is_empty() {
        out.push_str(values.first().map(String::as_str).unwrap_or(""));
    } else if shape.contains(&0) {
        out.push_str("[]");
    } else {
        bracketed(&mut out, shape, &values, 0);
    }
    out.push('\n');
    out
}

fn bracketed(out: &mut String, shape: &[u64], values: &[String], indent: usize) {
    if shape.len() == 1 {
        out.push('[');
        out.push_str(&values.join(" "));
        out.push(']');
        return;
    }
    let rows = shape[0] as usize;
    let stride = values.len().checked_div(rows).unwrap_or(0);
    out.push_str("[\n");
    for r in 0..rows {
        out.push_str(&" ".repeat(2 * (indent + 1)));
        bracketed(out, &shape[1..], &values[r * stride..(r + 1) * stride], indent + 1);
        out.push('\n');
    }
    out.push_str(&" ".repeat(2 * indent));
    out.push(']');
}

fn pir_layout(label: &str, elem: ElemType, shape: &[u64], bytes: &[u8]) -> String {
    let size = elem.size() as usize;
    let values: Vec<String> = bytes.chunks_exact(size).map(|c| value_text(decode(elem, c))).collect();
    let mut out = format!("{label}: ");
    if !shape.is_empty() && shape.contains(&0) {
        out.push_str("{}");
    } else if shape.is_empty() {
        out.push_str(values.first().map(String::as_str).unwrap_or(""));
    } else if shape.len() == 1 {
        out.push('{');
        out.push_str(&values.join(","));
        out.push('}');
    } else {
        nested(&mut out, shape, &values, 0);
    }
    out.push('\n');
    out
}

fn nested(out: &mut String, shape: &[u64], values: &[String], indent: usize) {
    if shape.len() == 1 {
        out.push_str(&" ".repeat(indent));
        out.push('{');
        out.push_str(&values.join(","));
        out.push('}');
        return;
    }
    let rows = shape[0] as usize;
    let stride = values.len().checked_div(rows).unwrap_or(0);
    out.push_str(&" ".repeat(indent));
    out.push_str("{\n");
    for r in 0..rows {
        nested(out, &shape[1..], &values[r * stride..(r + 1) * stride], indent + 1);
        out.push_str(if r + 1 < rows { ",\n" } else { "\n" });
    }
    out.push_str(&" ".repeat(indent));
    out.push('}');
}

#[cfg(test)]
mod tests {
    use half::f16;

    use super::*;

    #[test]
    fn g_matches_ostream() {
        let g = |v: f64| value_text(Value::Float(v));
        assert_eq!(g(1.0), "1");
        assert_eq!(g(1.5), "1.5");
        assert_eq!(g(1.0 / 3.0), "0.333333");
        assert_eq!(g(1e6), "1e+06");
        assert_eq!(g(123456.0), "123456");
        assert_eq!(g(1234567.0), "1.23457e+06");
        assert_eq!(g(0.0001), "0.0001");
        assert_eq!(g(0.00001), "1e-05");
        assert_eq!(g(f64::INFINITY), "inf");
        assert_eq!(g(f64::NEG_INFINITY), "-inf");
        assert_eq!(g(f64::NAN), "nan");
        assert_eq!(g(-0.0), "-0");
        assert_eq!(g(0.0), "0");
        assert_eq!(g(-2.5), "-2.5");
        assert_eq!(g(100.0), "100");
        assert_eq!(g(f32::MAX as f64), "3.40282e+38");
    }

    #[test]
    fn tensors_print_like_poplar() {
        let bytes: Vec<u8> = [7.0f32, 6.0, 4.5, 2.5].iter().flat_map(|f| f.to_le_bytes()).collect();
        assert_eq!(print_tensor("v2", ElemType::Float, &[4], &bytes), "v2: {7,6,4.5,2.5}\n");
        assert_eq!(print_tensor("s", ElemType::Float, &[], &bytes[..4]), "s: 7\n");
        assert_eq!(print_tensor("v3", ElemType::Float, &[2, 2], &bytes), "v3: {\n {7,6},\n {4.5,2.5}\n}\n");
        let h: Vec<u8> =
            [f16::from_f32(0.5), f16::from_f32(-1.0)].iter().flat_map(|h| h.to_le_bytes()).collect();
        assert_eq!(print_tensor("h", ElemType::Half, &[2], &h), "h: {0.5,-1}\n");
        assert_eq!(print_tensor("b", ElemType::Bool, &[2], &[1, 0]), "b: {1,0}\n");
        // Empty tensors print in constant time, whatever their shape.
        assert_eq!(print_tensor("e", ElemType::Float, &[100_000_000_000, 0], &[]), "e: {}\n");
        assert_eq!(print_tensor("e", ElemType::Float, &[0], &[]), "e: {}\n");
    }
}

//! Text formats of values: C's `%g` / `%e` / `%f` (as C++ `std::ostream`
//! prints floats by default), Poplar's `PrintTensor` layout, and the C
//! `printf` used by codelets.
//!
//! Everything here is pure: bytes and numbers in, `String`s out.

use half::f16;
use linker::gp::ElemType;

/// One element of tile memory, decoded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    UInt(u64),
    Float(f64),
    Bool(bool),
}

/// Decodes the element of type `elem` at the start of `bytes` (little endian).
pub fn decode(elem: ElemType, bytes: &[u8]) -> Value {
    let b = |n: usize| -> [u8; 8] {
        let mut a = [0u8; 8];
        a[..n].copy_from_slice(&bytes[..n]);
        a
    };
    match elem {
        ElemType::Bool => Value::Bool(bytes[0] != 0),
        ElemType::Char => Value::Int(bytes[0] as i8 as i64),
        ElemType::UChar => Value::UInt(bytes[0] as u64),
        ElemType::Short => Value::Int(i16::from_le_bytes([bytes[0], bytes[1]]) as i64),
        ElemType::UShort => Value::UInt(u16::from_le_bytes([bytes[0], bytes[1]]) as u64),
        ElemType::Int => Value::Int(i32::from_le_bytes(b(4)[..4].try_into().unwrap()) as i64),
        ElemType::UInt => Value::UInt(u32::from_le_bytes(b(4)[..4].try_into().unwrap()) as u64),
        ElemType::Long => Value::Int(i64::from_le_bytes(b(8))),
        ElemType::ULong => Value::UInt(u64::from_le_bytes(b(8))),
        ElemType::Half => Value::Float(f16::from_le_bytes([bytes[0], bytes[1]]).to_f64()),
        ElemType::Float => Value::Float(f32::from_le_bytes(b(4)[..4].try_into().unwrap()) as f64),
        ElemType::Double => Value::Float(f64::from_le_bytes(b(8))),
    }
}

/// A value as `std::ostream` prints it by default.
pub fn value_text(v: Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Bool(b) => (b as u8).to_string(),
        Value::Float(f) => format_g(f, 6, false, false),
    }
}

/// Formats a tensor (row-major `bytes` of `shape`) as `PrintTensor` does:
/// `label: {1,2}`, rank 0 `label: 3`, higher ranks one brace level per
/// dimension with one innermost row per line. Ends with a newline.
pub fn print_tensor(label: &str, elem: ElemType, shape: &[u64], bytes: &[u8]) -> String {
    let size = elem.size() as usize;
    let values: Vec<String> = bytes.chunks_exact(size).map(|c| value_text(decode(elem, c))).collect();
    let mut out = format!("{label}: ");
    if shape.is_empty() {
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

/// C's `%.{prec}g`; `alt` is the `#` flag (keep trailing zeros), `upper` `%G`.
pub fn format_g(v: f64, prec: usize, alt: bool, upper: bool) -> String {
    if !v.is_finite() {
        return special(v, upper);
    }
    let p = if prec == 0 { 1 } else { prec };
    // The exponent %e would print with p-1 digits decides the style.
    let e_form = format!("{:.*e}", p - 1, v);
    let exp: i32 = e_form.rsplit('e').next().unwrap().parse().unwrap();
    let mut s = if exp < -4 || exp >= p as i32 {
        let s = format_e(v, p - 1, alt, upper);
        if alt {
            s
        } else {
            let (m, e) = s.split_at(s.find(['e', 'E']).unwrap());
            format!("{}{e}", strip_zeros(m))
        }
    } else {
        let s = format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, v);
        if alt {
            if s.contains('.') {
                s
            } else {
                s + "."
            }
        } else {
            strip_zeros(&s).to_string()
        }
    };
    if v == 0.0 && v.is_sign_negative() && !s.starts_with('-') {
        s.insert(0, '-');
    }
    s
}

/// C's `%.{prec}e`.
pub fn format_e(v: f64, prec: usize, alt: bool, upper: bool) -> String {
    if !v.is_finite() {
        return special(v, upper);
    }
    let s = format!("{:.*e}", prec, v);
    let (m, e) = s.split_at(s.find('e').unwrap());
    let exp: i32 = e[1..].parse().unwrap();
    let m = if alt && prec == 0 { format!("{m}.") } else { m.to_string() };
    let sign = if exp < 0 { '-' } else { '+' };
    let e = if upper { 'E' } else { 'e' };
    format!("{m}{e}{sign}{:02}", exp.abs())
}

/// C's `%.{prec}f`.
pub fn format_f(v: f64, prec: usize, alt: bool, upper: bool) -> String {
    if !v.is_finite() {
        return special(v, upper);
    }
    let s = format!("{:.*}", prec, v);
    if alt && prec == 0 {
        s + "."
    } else {
        s
    }
}

fn special(v: f64, upper: bool) -> String {
    let s = if v.is_nan() {
        if v.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        }
    } else if v > 0.0 {
        "inf"
    } else {
        "-inf"
    };
    if upper {
        s.to_uppercase()
    } else {
        s.to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Formats a C `printf` format with arguments passed as C's default
/// promotions in `u64`s. `read_str` turns a `%s` argument (a tile address)
/// into bytes. Missing arguments read as 0; unknown conversions are copied.
pub fn printf(fmt: &[u8], args: &[u64], read_str: &dyn Fn(u64) -> Vec<u8>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut args = args.iter().copied();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let start = i - 1;
        let (mut left, mut plus, mut space, mut alt, mut zero) = (false, false, false, false, false);
        while i < fmt.len() {
            match fmt[i] {
                b'-' => left = true,
                b'+' => plus = true,
                b' ' => space = true,
                b'#' => alt = true,
                b'0' => zero = true,
                _ => break,
            }
            i += 1;
        }
        let mut width = 0usize;
        if i < fmt.len() && fmt[i] == b'*' {
            let w = args.next().unwrap_or(0) as i32;
            if w < 0 {
                left = true;
            }
            width = w.unsigned_abs() as usize;
            i += 1;
        } else {
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                width = width * 10 + (fmt[i] - b'0') as usize;
                i += 1;
            }
        }
        let mut prec: Option<usize> = None;
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            if i < fmt.len() && fmt[i] == b'*' {
                let p = args.next().unwrap_or(0) as i32;
                prec = (p >= 0).then_some(p as usize);
                i += 1;
            } else {
                let mut p = 0;
                while i < fmt.len() && fmt[i].is_ascii_digit() {
                    p = p * 10 + (fmt[i] - b'0') as usize;
                    i += 1;
                }
                prec = Some(p);
            }
        }
        // Length modifiers: bits of the integer argument.
        let mut bits = 32;
        while i < fmt.len() {
            match fmt[i] {
                b'h' => bits = if bits == 16 { 8 } else { 16 },
                b'l' | b'j' | b'z' | b't' | b'q' | b'L' => bits = 64,
                _ => break,
            }
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        let signed = |a: u64| -> i64 {
            match bits {
                8 => a as i8 as i64,
                16 => a as i16 as i64,
                32 => a as i32 as i64,
                _ => a as i64,
            }
        };
        let unsigned = |a: u64| -> u64 {
            match bits {
                8 => a as u8 as u64,
                16 => a as u16 as u64,
                32 => a as u32 as u64,
                _ => a,
            }
        };
        let (body, sign, numeric): (String, &str, bool) = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' => {
                let v = signed(args.next().unwrap_or(0));
                let digits = int_digits(v.unsigned_abs().to_string(), prec);
                let sign = if v < 0 {
                    "-"
                } else if plus {
                    "+"
                } else if space {
                    " "
                } else {
                    ""
                };
                (digits, sign, true)
            }
            b'u' => (int_digits(unsigned(args.next().unwrap_or(0)).to_string(), prec), "", true),
            b'x' | b'X' | b'o' => {
                let v = unsigned(args.next().unwrap_or(0));
                let mut d = match conv {
                    b'x' => format!("{v:x}"),
                    b'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                };
                d = int_digits(d, prec);
                let prefix = match (alt && v != 0, conv) {
                    (true, b'x') => "0x",
                    (true, b'X') => "0X",
                    (true, _) if !d.starts_with('0') => "0",
                    _ => "",
                };
                (d, prefix, true)
            }
            b'p' => (format!("0x{:x}", args.next().unwrap_or(0)), "", false),
            b'c' => {
                let v = args.next().unwrap_or(0) as u8;
                pad(&mut out, &[v], width, left, false, "");
                continue;
            }
            b's' => {
                let mut s = read_str(args.next().unwrap_or(0));
                if let Some(p) = prec {
                    s.truncate(p);
                }
                pad(&mut out, &s, width, left, false, "");
                continue;
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let v = f64::from_bits(args.next().unwrap_or(0));
                let p = prec.unwrap_or(6);
                let upper = conv.is_ascii_uppercase();
                let text = match conv {
                    b'f' | b'F' => format_f(v.abs(), p, alt, upper),
                    b'e' | b'E' => format_e(v.abs(), p, alt, upper),
                    b'g' | b'G' => format_g(v.abs(), p, alt, upper),
                    _ => format!("{:e}", v.abs()),
                };
                let sign = if v.is_sign_negative() && !v.is_nan() {
                    "-"
                } else if plus {
                    "+"
                } else if space {
                    " "
                } else {
                    ""
                };
                let finite = v.is_finite();
                (text, sign, finite)
            }
            _ => {
                out.extend_from_slice(&fmt[start..i]);
                continue;
            }
        };
        let zero_pad = zero
            && !left
            && numeric
            && (prec.is_none() || matches!(conv, b'f' | b'F' | b'e' | b'E' | b'g' | b'G'));
        pad(&mut out, body.as_bytes(), width, left, zero_pad, sign);
    }
    out
}

fn int_digits(d: String, prec: Option<usize>) -> String {
    match prec {
        Some(0) if d == "0" => String::new(),
        Some(p) if d.len() < p => "0".repeat(p - d.len()) + &d,
        _ => d,
    }
}

fn pad(out: &mut Vec<u8>, body: &[u8], width: usize, left: bool, zero: bool, sign: &str) {
    let len = body.len() + sign.len();
    let fill = width.saturating_sub(len);
    if left {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(body);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if zero {
        out.extend_from_slice(sign.as_bytes());
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(body);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_matches_ostream() {
        let g = |v: f64| format_g(v, 6, false, false);
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
    }

    #[test]
    fn printf_formats() {
        let no = |_: u64| Vec::new();
        let f = |fmt: &str, args: &[u64]| String::from_utf8(printf(fmt.as_bytes(), args, &no)).unwrap();
        assert_eq!(f("x=%d y=%u\n", &[(-3i64) as u64, 7]), "x=-3 y=7\n");
        assert_eq!(f("%5.2f|%-4d|%04x", &[2.5f64.to_bits(), 3, 255]), " 2.50|3   |00ff");
        assert_eq!(f("%g %e %%", &[0.1f64.to_bits(), 1234.5f64.to_bits()]), "0.1 1.234500e+03 %");
        assert_eq!(f("%s!", &[0]), "!");
        assert_eq!(f("%c%lld", &[b'a' as u64, u64::MAX]), "a-1");
    }
}

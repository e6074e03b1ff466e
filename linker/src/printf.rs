//! `printf` formats: checked at compile time, formatted on the host.
//!
//! Conversions `%d %i %u %x %X %o %c %f %F %e %E %g %G %a %A %%` with flags
//! (`-+ #0`), width, precision and length modifiers (`hh h l ll z t j`,
//! ignored: arguments arrive as 64-bit words after C's default promotions).
//! `%s`, `%p`, `%n` and `*` widths are rejected at compile time.

/// The conversions of a format, in order: `true` for a floating one.
pub fn conversions(fmt: &[u8]) -> Result<Vec<bool>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        while i < fmt.len() && b"-+ #0".contains(&fmt[i]) {
            i += 1;
        }
        while i < fmt.len() && (fmt[i].is_ascii_digit() || fmt[i] == b'.') {
            i += 1;
        }
        if i < fmt.len() && fmt[i] == b'*' {
            return Err("printf: '*' width or precision is not supported".into());
        }
        while i < fmt.len() && b"hlztjL".contains(&fmt[i]) {
            i += 1;
        }
        let Some(&c) = fmt.get(i) else {
            return Err("printf: incomplete conversion at end of format".into());
        };
        match c {
            b'%' => {}
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' => out.push(false),
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => out.push(true),
            b's' => {
                return Err("printf: '%s' is not supported in codelets (no strings in tile memory)".into())
            }
            other => return Err(format!("printf: unsupported conversion '%{}'", other as char)),
        }
        i += 1;
    }
    Ok(out)
}

struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
    len: u8,
}

/// Formats like C's `printf`, appending to `out`.
pub fn format(fmt: &[u8], args: &[u64], out: &mut Vec<u8>) {
    let mut i = 0;
    let mut a = 0;
    let mut next = || {
        let v = args.get(a).copied().unwrap_or(0);
        a += 1;
        v
    };
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        i += 1;
        let mut s = Spec {
            left: false,
            plus: false,
            space: false,
            alt: false,
            zero: false,
            width: 0,
            prec: None,
            len: 0,
        };
        while i < fmt.len() && b"-+ #0".contains(&fmt[i]) {
            match fmt[i] {
                b'-' => s.left = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.alt = true,
                _ => s.zero = true,
            }
            i += 1;
        }
        while i < fmt.len() && fmt[i].is_ascii_digit() {
            s.width = s.width.saturating_mul(10).saturating_add((fmt[i] - b'0') as usize).min(4096);
            i += 1;
        }
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            let mut p = 0usize;
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                p = p.saturating_mul(10).saturating_add((fmt[i] - b'0') as usize).min(4096);
                i += 1;
            }
            s.prec = Some(p);
        }
        while i < fmt.len() && b"hlztjL".contains(&fmt[i]) {
            if fmt[i] == b'h' {
                s.len += 1;
            }
            i += 1;
        }
        let Some(&c) = fmt.get(i) else { break };
        i += 1;
        let (body, sign): (String, &str) = match c {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' => {
                let mut v = next() as i64;
                if s.len == 1 {
                    v = v as i16 as i64;
                } else if s.len >= 2 {
                    v = v as i8 as i64;
                }
                let mut d = v.unsigned_abs().to_string();
                if let Some(p) = s.prec {
                    d = pad_zeros(d, p);
                }
                let sign = if v < 0 {
                    "-"
                } else if s.plus {
                    "+"
                } else if s.space {
                    " "
                } else {
                    ""
                };
                (d, sign)
            }
            b'u' | b'x' | b'X' | b'o' => {
                let mut v = next();
                if s.len == 1 {
                    v = v as u16 as u64;
                } else if s.len >= 2 {
                    v = v as u8 as u64;
                }
                let mut d = match c {
                    b'u' => v.to_string(),
                    b'x' => format!("{v:x}"),
                    b'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                };
                if let Some(p) = s.prec {
                    d = pad_zeros(d, p);
                }
                if s.alt && v != 0 {
                    d = match c {
                        b'x' => format!("0x{d}"),
                        b'X' => format!("0X{d}"),
                        b'o' if !d.starts_with('0') => format!("0{d}"),
                        _ => d,
                    };
                }
                (d, "")
            }
            b'c' => ((next() as u8 as char).to_string(), ""),
            _ => {
                let v = f64::from_bits(next());
                let neg = v.is_sign_negative() && !v.is_nan();
                let sign = if neg {
                    "-"
                } else if s.plus {
                    "+"
                } else if s.space {
                    " "
                } else {
                    ""
                };
                (format_float(v.abs(), c, s.prec, s.alt), sign)
            }
        };
        let len = sign.len() + body.len();
        let pad = s.width.saturating_sub(len);
        let numeric = c != b'c';
        if s.left {
            out.extend_from_slice(sign.as_bytes());
            out.extend_from_slice(body.as_bytes());
            out.extend(std::iter::repeat_n(b' ', pad));
        } else if s.zero
            && numeric
            && s.prec.is_none_or(|_| matches!(c, b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A'))
            && body.bytes().next().is_some_and(|b| b.is_ascii_digit())
        {
            out.extend_from_slice(sign.as_bytes());
            let (pre, rest) = if body.starts_with("0x") || body.starts_with("0X") {
                body.split_at(2)
            } else {
                ("", body.as_str())
            };
            out.extend_from_slice(pre.as_bytes());
            out.extend(std::iter::repeat_n(b'0', pad));
            out.extend_from_slice(rest.as_bytes());
        } else {
            out.extend(std::iter::repeat_n(b' ', pad));
            out.extend_from_slice(sign.as_bytes());
            out.extend_from_slice(body.as_bytes());
        }
    }
}

fn pad_zeros(d: String, p: usize) -> String {
    if p == 0 && d == "0" {
        return String::new();
    }
    if d.len() < p {
        format!("{}{d}", "0".repeat(p - d.len()))
    } else {
        d
    }
}

/// Formats a non-negative float (or NaN) like C.
fn format_float(v: f64, c: u8, prec: Option<usize>, alt: bool) -> String {
    let upper = c.is_ascii_uppercase();
    let r = if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        "inf".to_string()
    } else {
        match c.to_ascii_lowercase() {
            b'f' => {
                let s = format!("{:.*}", prec.unwrap_or(6), v);
                if alt && !s.contains('.') {
                    s + "."
                } else {
                    s
                }
            }
            b'e' => exp_form(v, prec.unwrap_or(6), alt),
            b'g' => {
                let p = match prec.unwrap_or(6) {
                    0 => 1,
                    p => p,
                };
                let x = if v == 0.0 { 0 } else { exponent_of(v, p) };
                let mut s = if x < -4 || x >= p as i32 {
                    exp_form(v, p - 1, alt)
                } else {
                    format!("{:.*}", (p as i32 - 1 - x).max(0) as usize, v)
                };
                if !alt {
                    s = strip_trailing(s);
                }
                s
            }
            _ => hex_float(v, prec),
        }
    };
    if upper {
        r.to_ascii_uppercase()
    } else {
        r
    }
}

/// Decimal exponent of `v` after rounding to `p` significant digits.
fn exponent_of(v: f64, p: usize) -> i32 {
    let s = format!("{:.*e}", p.saturating_sub(1), v);
    s.split('e').nth(1).and_then(|e| e.parse().ok()).unwrap_or(0)
}

fn exp_form(v: f64, prec: usize, alt: bool) -> String {
    let s = format!("{:.*e}", prec, v);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let m = if alt && !m.contains('.') { format!("{m}.") } else { m.to_string() };
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

fn strip_trailing(s: String) -> String {
    let (m, e) = match s.find('e') {
        Some(i) => (s[..i].to_string(), s[i..].to_string()),
        None => (s.clone(), String::new()),
    };
    let m = if m.contains('.') { m.trim_end_matches('0').trim_end_matches('.').to_string() } else { m };
    m + &e
}

fn hex_float(v: f64, prec: Option<usize>) -> String {
    if v == 0.0 {
        return match prec {
            Some(p) if p > 0 => format!("0x0.{}p+0", "0".repeat(p)),
            _ => "0x0p+0".into(),
        };
    }
    let bits = v.to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i32;
    let mut mant = bits & ((1u64 << 52) - 1);
    let lead = if exp == 0 {
        exp = -1022;
        0
    } else {
        exp -= 1023;
        1
    };
    let mut digits = format!("{mant:013x}");
    if let Some(p) = prec {
        if p < 13 {
            let shift = (13 - p) * 4;
            let half = 1u64 << (shift - 1);
            let rem = mant & ((1u64 << shift) - 1);
            mant >>= shift;
            if rem > half || (rem == half && mant & 1 == 1) {
                mant += 1;
            }
            digits = if p == 0 { String::new() } else { format!("{mant:0p$x}") };
        } else {
            digits.push_str(&"0".repeat(p - 13));
        }
    } else {
        digits = digits.trim_end_matches('0').to_string();
    }
    let sign = if exp < 0 { '-' } else { '+' };
    if digits.is_empty() {
        format!("0x{lead}p{sign}{}", exp.abs())
    } else {
        format!("0x{lead}.{digits}p{sign}{}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[u64]) -> String {
        let mut out = Vec::new();
        format(fmt.as_bytes(), args, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn formats_like_c() {
        assert_eq!(f("%d|%5d|%-5d|%05d", &[(-3i64) as u64, 42, 42, 42]), "-3|   42|42   |00042");
        assert_eq!(f("%x %X %#x %o", &[255, 255, 255, 8]), "ff FF 0xff 10");
        assert_eq!(
            f("%f %.2f %e", &[1.5f64.to_bits(), 2.345f64.to_bits(), 12345.678f64.to_bits()]),
            "1.500000 2.35 1.234568e+04"
        );
        assert_eq!(
            f("%g %g %g", &[0.0001f64.to_bits(), 1e10f64.to_bits(), 3.5f64.to_bits()]),
            "0.0001 1e+10 3.5"
        );
        assert_eq!(f("%c%%", &[65]), "A%");
        assert_eq!(f("%a", &[1.0f64.to_bits()]), "0x1p+0");
        assert!(conversions(b"%s").is_err());
    }
}

//! Literal tokens to values: integer and floating numbers (with their
//! suffixes, hexadecimal floats included) and string and character escapes.

use crate::front::ast::ExprKind;

/// Parses a C++ number literal.
pub(crate) fn parse_number(text: &str) -> Option<ExprKind> {
    let s = text.replace('\'', "");
    let lower = s.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    if is_hex && lower.contains('p') {
        return parse_hex_float(&lower[2..]);
    }
    if !is_hex && (lower.contains('.') || lower.contains('e') || lower.ends_with('f')) {
        let f32_suffix = lower.ends_with('f');
        let body = lower.trim_end_matches(['f', 'l']);
        return body.parse::<f64>().ok().map(|v| ExprKind::Float(v, f32_suffix));
    }
    let mut body = lower.as_str();
    let mut unsigned = false;
    let mut long = false;
    loop {
        if let Some(b) = body.strip_suffix('u') {
            unsigned = true;
            body = b;
        } else if let Some(b) = body.strip_suffix('l') {
            long = true;
            body = b;
        } else {
            break;
        }
    }
    let (v, radix) = if let Some(h) = body.strip_prefix("0x") {
        (u64::from_str_radix(h, 16).ok()?, 16)
    } else if let Some(b) = body.strip_prefix("0b") {
        (u64::from_str_radix(b, 2).ok()?, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        (u64::from_str_radix(&body[1..], 8).ok()?, 8)
    } else {
        (body.parse::<u64>().ok()?, 10)
    };
    Some(ExprKind::Int(v, unsigned, long, radix != 10))
}

/// A hexadecimal floating literal after its `0x`: `1.8p-3`, `ap2f`.
pub(crate) fn parse_hex_float(s: &str) -> Option<ExprKind> {
    let (mant, exp) = s.split_once('p')?;
    let f32_suffix = exp.ends_with('f');
    let exp: i32 = exp.trim_end_matches(['f', 'l']).parse().ok()?;
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() || int.len() + frac.len() > 16 {
        return None;
    }
    let digits = u64::from_str_radix(&format!("{int}{frac}"), 16).ok()?;
    let v = digits as f64 * 2f64.powi(exp - 4 * frac.len() as i32);
    Some(ExprKind::Float(v, f32_suffix))
}

/// The bytes of a string or character literal (quotes and prefix removed).
pub fn unescape(lit: &str) -> Vec<u8> {
    if let Some(q) = lit.find('"').filter(|&q| lit[..q].ends_with('R')) {
        // Raw string: the text between `delimiter(` and `)delimiter"`, as written.
        let body = &lit[q + 1..lit.len() - 1];
        let open = body.find('(').unwrap_or(0);
        let delim = &body[..open];
        let inner = &body[(open + 1).min(body.len())..body.len().saturating_sub(delim.len() + 1)];
        return inner.as_bytes().to_vec();
    }
    let start = lit.find(['"', '\'']).map_or(0, |i| i + 1);
    let inner = &lit[start..lit.len().saturating_sub(1).max(start)];
    let b = inner.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            i += 1;
            let c = b[i];
            i += 1;
            out.push(match c {
                b'n' => b'\n',
                b't' => b'\t',
                b'r' => b'\r',
                b'0'..=b'7' => {
                    let mut v = (c - b'0') as u32;
                    let mut n = 1;
                    while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                        v = v * 8 + (b[i] - b'0') as u32;
                        i += 1;
                        n += 1;
                    }
                    v as u8
                }
                b'x' => {
                    let mut v = 0u32;
                    while i < b.len() && b[i].is_ascii_hexdigit() {
                        v = v * 16 + (b[i] as char).to_digit(16).unwrap_or(0);
                        i += 1;
                    }
                    v as u8
                }
                b'a' => 7,
                b'b' => 8,
                b'f' => 12,
                b'v' => 11,
                other => other,
            });
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

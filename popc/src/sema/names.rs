//! Vertex type names as Poplar spells them, and their normalisation.
//!
//! The canonical spelling is the qualified class name, then template
//! arguments in `<…>` separated by `,` with no spaces; scalar types in C++
//! spelling (`unsigned int`, never `unsigned`), integers in decimal, bools
//! as `true`/`false`.

/// Normalises a vertex type name: removes spaces outside type words,
/// expands `unsigned` to `unsigned int`, `signed` to `int`, `uint32_t` and
/// friends to their C++ spelling, and writes integers in decimal.
pub fn canonical_vertex_name(s: &str) -> Result<String, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty vertex name".into());
    }
    let Some(open) = s.find('<') else {
        return check_ident(s).map(|_| s.to_string());
    };
    if !s.ends_with('>') {
        return Err(format!("vertex name '{s}' has an unterminated template argument list"));
    }
    let base = s[..open].trim();
    check_ident(base)?;
    let inner = &s[open + 1..s.len() - 1];
    let mut args = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in inner.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                args.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        if depth < 0 {
            return Err(format!("vertex name '{s}' has unbalanced '<' '>'"));
        }
        cur.push(c);
    }
    if depth != 0 {
        return Err(format!("vertex name '{s}' has unbalanced '<' '>'"));
    }
    args.push(cur);
    let mut out = Vec::new();
    for a in args {
        out.push(canonical_arg(a.trim())?);
    }
    Ok(format!("{base}<{}>", out.join(",")))
}

fn check_ident(s: &str) -> Result<(), String> {
    let ok = !s.is_empty()
        && s.split("::").all(|p| {
            !p.is_empty()
                && p.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    if ok {
        Ok(())
    } else {
        Err(format!("'{s}' is not a valid vertex name"))
    }
}

fn canonical_arg(a: &str) -> Result<String, String> {
    if a.contains('<') {
        return canonical_vertex_name(a);
    }
    let words: Vec<&str> = a.split_whitespace().collect();
    let joined = words.join(" ");
    let ty = match joined.as_str() {
        "unsigned" | "unsigned int" | "uint32_t" | "size_t" => Some("unsigned int"),
        "signed" | "signed int" | "int" | "int32_t" => Some("int"),
        "short" | "short int" | "signed short" | "int16_t" => Some("short"),
        "unsigned short" | "unsigned short int" | "uint16_t" => Some("unsigned short"),
        "char" => Some("char"),
        "signed char" | "int8_t" => Some("signed char"),
        "unsigned char" | "uint8_t" => Some("unsigned char"),
        "long" | "long int" | "signed long" | "int64_t" => Some("long"),
        "unsigned long" | "unsigned long int" | "uint64_t" => Some("unsigned long"),
        "long long" | "long long int" | "signed long long" => Some("long long"),
        "unsigned long long" | "unsigned long long int" => Some("unsigned long long"),
        "float" | "half" | "double" | "bool" | "true" | "false" => Some(joined.as_str()),
        _ => None,
    };
    if let Some(t) = ty {
        return Ok(t.to_string());
    }
    // Integer literal (with optional sign and suffix).
    let t = joined.trim_end_matches(['u', 'U', 'l', 'L']);
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d.trim()),
        None => (false, t),
    };
    let v = if let Some(h) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()
    } else {
        digits.parse::<i128>().ok()
    };
    if let Some(v) = v {
        return Ok(if neg { (-v).to_string() } else { v.to_string() });
    }
    if words.len() == 1 {
        check_ident(a)?;
        return Ok(a.to_string());
    }
    Err(format!("'{a}' is not a valid template argument"))
}

#[cfg(test)]
mod tests {
    use super::canonical_vertex_name as c;

    #[test]
    fn normalises() {
        assert_eq!(c("Sum< half , 4 >").unwrap(), "Sum<half,4>");
        assert_eq!(c("popops::Iota<unsigned>").unwrap(), "popops::Iota<unsigned int>");
        assert_eq!(c("X<float,true,0x10>").unwrap(), "X<float,true,16>");
        assert_eq!(c("SumVertex").unwrap(), "SumVertex");
        assert!(c("X<float").is_err());
        assert!(c("").is_err());
    }
}

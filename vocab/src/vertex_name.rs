//! [`VertexName`]: a vertex type's name as a structured value, whose
//! `Display` is Poplar's canonical spelling.
//!
//! The canonical spelling is the qualified class name, then template
//! arguments in `<…>` separated by `,` with no spaces; scalar types in C++
//! spelling (`unsigned int`, never `unsigned`), integers in decimal, bools
//! as `true`/`false`. `popc` names the vertex types it compiles this way,
//! and the graph compiler matches PIR's names to them by
//! [`VertexName::key`].

use std::fmt;

use crate::ElemType;

/// A parsed vertex type name: `popops::ScaledAdd<float,true>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VertexName {
    /// The qualified class name (`popops::ScaledAdd`).
    pub path: String,
    /// Template arguments; empty for a plain class.
    pub args: Vec<TemplateArg>,
}

/// One template argument of a [`VertexName`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TemplateArg {
    /// A C++ scalar type, in its canonical C++ spelling (`unsigned int`,
    /// `signed char`, `long`: C++'s types, finer than [`ElemType`]).
    Type(&'static str),
    Bool(bool),
    Int(i128),
    /// A class template instance (`Vector<float>`).
    Name(VertexName),
    /// Any other (qualified) identifier: a class or an enumerator.
    Ident(String),
}

impl VertexName {
    /// Parses a name as Poplar or a user may write it: spaces anywhere
    /// between tokens, `unsigned` for `unsigned int`, `uint32_t` and
    /// friends, integers in hex or with suffixes.
    pub fn parse(s: &str) -> Result<VertexName, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err("empty vertex name".into());
        }
        let Some(open) = s.find('<') else {
            return Ok(VertexName { path: ident(s)?, args: Vec::new() });
        };
        if !s.ends_with('>') {
            return Err(format!("vertex name '{s}' has an unterminated template argument list"));
        }
        let path = ident(&s[..open])?;
        let inner = &s[open + 1..s.len() - 1];
        let mut parts = Vec::new();
        let mut depth = 0;
        let mut cur = String::new();
        for c in inner.chars() {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(std::mem::take(&mut cur));
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
        parts.push(cur);
        let args = parts.iter().map(|a| TemplateArg::parse(a.trim())).collect::<Result<_, _>>()?;
        Ok(VertexName { path, args })
    }

    /// The spelling two names agree on when they name the same codelet:
    /// the canonical one with every scalar type as the element type it
    /// stores (`long` and `long long`, `signed char` and `char` agree).
    pub fn key(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, &|a| match a {
            TemplateArg::Type(t) => ElemType::from_cpp(t).map(ElemType::cpp_name),
            TemplateArg::Ident(t) => ElemType::from_cpp(t).map(ElemType::cpp_name),
            _ => None,
        });
        out
    }

    /// Writes the name, spelling each argument as `spell` says, else
    /// canonically.
    fn write(&self, out: &mut String, spell: &dyn Fn(&TemplateArg) -> Option<&'static str>) {
        out.push_str(&self.path);
        if self.args.is_empty() {
            return;
        }
        out.push('<');
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match (spell(a), a) {
                (Some(s), _) => out.push_str(s),
                (None, TemplateArg::Name(n)) => n.write(out, spell),
                (None, a) => out.push_str(&a.to_string()),
            }
        }
        out.push('>');
    }
}

impl fmt::Display for VertexName {
    /// Poplar's canonical spelling.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.write(&mut out, &|_| None);
        f.write_str(&out)
    }
}

impl TemplateArg {
    /// Parses one argument as written (see [`VertexName::parse`]): a type
    /// name such as `unsigned` or `uint32_t` becomes its canonical
    /// spelling, any other (qualified) identifier stays as written.
    pub fn parse(a: &str) -> Result<TemplateArg, String> {
        if a.contains('<') {
            return VertexName::parse(a).map(TemplateArg::Name);
        }
        let words: Vec<&str> = a.split_whitespace().collect();
        let joined = words.join(" ");
        let ty = match joined.as_str() {
            "true" => return Ok(TemplateArg::Bool(true)),
            "false" => return Ok(TemplateArg::Bool(false)),
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
            "float" => Some("float"),
            "half" => Some("half"),
            "double" => Some("double"),
            "bool" => Some("bool"),
            _ => None,
        };
        if let Some(t) = ty {
            return Ok(TemplateArg::Type(t));
        }
        // An integer literal (with optional sign and suffix).
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
            return Ok(TemplateArg::Int(if neg { -v } else { v }));
        }
        if words.len() == 1 || a.contains("::") {
            return ident(a).map(TemplateArg::Ident);
        }
        Err(format!("'{a}' is not a valid template argument"))
    }
}

impl fmt::Display for TemplateArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateArg::Type(t) => f.write_str(t),
            TemplateArg::Bool(b) => write!(f, "{b}"),
            TemplateArg::Int(i) => write!(f, "{i}"),
            TemplateArg::Name(n) => write!(f, "{n}"),
            TemplateArg::Ident(s) => f.write_str(s),
        }
    }
}

/// A (qualified) identifier, spaces around `::` removed.
fn ident(s: &str) -> Result<String, String> {
    let s = s.trim();
    let parts: Vec<&str> = s.split("::").map(str::trim).collect();
    let ok = parts.iter().all(|p| {
        p.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    if ok {
        Ok(parts.join("::"))
    } else {
        Err(format!("'{s}' is not a valid vertex name"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Result<String, String> {
        VertexName::parse(s).map(|n| n.to_string())
    }

    #[test]
    fn canonical_spelling() {
        assert_eq!(c("Sum< half , 4 >").unwrap(), "Sum<half,4>");
        assert_eq!(c("popops::Iota<unsigned>").unwrap(), "popops::Iota<unsigned int>");
        assert_eq!(c("X<float,true,0x10>").unwrap(), "X<float,true,16>");
        assert_eq!(c("X<Y<long int, -3L>>").unwrap(), "X<Y<long,-3>>");
        assert_eq!(c("X<popnn::NonLinearityType::SWISH>").unwrap(), "X<popnn::NonLinearityType::SWISH>");
        assert_eq!(c("SumVertex").unwrap(), "SumVertex");
        assert_eq!(c("a :: B< c :: D >").unwrap(), "a::B<c::D>");
        assert!(c("X<float").is_err());
        assert!(c("X<float>>").is_err());
        assert!(c("X<>").is_err());
        assert!(c("").is_err());
        assert!(c("1X").is_err());
    }

    #[test]
    fn keys_agree_on_element_types() {
        let k = |s: &str| VertexName::parse(s).unwrap().key();
        assert_eq!(k("Sum< unsigned ,4 >"), "Sum<unsigned int,4>");
        assert_eq!(k("X<long>"), k("X<long long>"));
        assert_eq!(k("X<signed char>"), "X<char>");
        assert_eq!(k("popops :: ScaledAdd<float, true>"), "popops::ScaledAdd<float,true>");
        assert_eq!(k("X<Y<uint64_t>>"), "X<Y<unsigned long long>>");
    }
}

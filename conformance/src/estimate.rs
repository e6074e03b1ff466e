//! How many vertex types a file instantiates, counted independently of
//! popc: the file is preprocessed by `g++ -E` with PopLibs' flags (on the C++
//! path: `__IPU__` undefined), and in the text that comes from the file
//! itself (by the preprocessor's line markers) we count
//! - explicit instantiations, `template class X<…>;` / `template struct`
//!   (not `extern template`), which is how PopLibs enumerates its template
//!   vertices, directly or through its `INSTANTIATE_*` macros, and
//! - non-template classes deriving from `Vertex`, `MultiVertex`,
//!   `SupervisorVertex` or `SupervisorVertexIf<…>`.
//!
//! Headers the stub does not provide (host-side ones such as
//! `<poplar/Graph.hpp>`, `<boost/multi_array.hpp>`) are replaced by empty
//! files for this count only; no instantiation lives in them. When `g++ -E`
//! still fails, the count is unknown.

use std::path::Path;
use std::process::Command;

/// The instantiation count of `file` (relative to the corpus `root`, where
/// g++ runs), or why it is unknown.
pub fn count(
    root: &Path,
    file: &str,
    flags: &[String],
    stub: &Path,
    scratch: &Path,
) -> Result<usize, String> {
    let empty = scratch.join("empty-headers");
    for _ in 0..16 {
        let out = Command::new("g++")
            .current_dir(root)
            .args(["-E", "-std=c++17", "-D__POPC__", "-I"])
            .arg(stub)
            .args(flags)
            .arg("-I")
            .arg(&empty)
            .arg(file)
            .output()
            .map_err(|e| format!("cannot run g++: {e}"))?;
        if out.status.success() {
            return Ok(count_in(&String::from_utf8_lossy(&out.stdout), file));
        }
        let err = String::from_utf8_lossy(&out.stderr);
        let missing = err.lines().find_map(|l| {
            let (_, rest) = l.split_once("fatal error: ")?;
            rest.strip_suffix(": No such file or directory").map(str::to_string)
        });
        match missing {
            Some(h) if !h.contains("..") && !h.starts_with('/') => {
                let p = empty.join(&h);
                std::fs::create_dir_all(p.parent().unwrap_or(&empty)).map_err(|e| e.to_string())?;
                std::fs::write(&p, "").map_err(|e| e.to_string())?;
            }
            _ => {
                let first = err.lines().find(|l| l.contains("error")).unwrap_or("g++ -E failed");
                return Err(first.to_string());
            }
        }
    }
    Err("g++ -E: too many missing headers".into())
}

/// The count in preprocessed text, over the lines that came from `main_file`.
pub fn count_in(pre: &str, main_file: &str) -> usize {
    let mut own = String::new();
    let mut in_main = true;
    for line in pre.lines() {
        if let Some(rest) = line.strip_prefix("# ") {
            // `# 12 "path" flags`
            if let Some(q) = rest.split('"').nth(1) {
                in_main = q == main_file;
                continue;
            }
        }
        if in_main {
            own.push_str(line);
            own.push('\n');
        }
    }
    let toks = words(&own);
    let mut n = 0;
    for (i, w) in toks.iter().enumerate() {
        let prev = |k: usize| if i >= k { toks[i - k].as_str() } else { "" };
        if *w == "template"
            && matches!(toks.get(i + 1).map(String::as_str), Some("class" | "struct"))
            && prev(1) != "extern"
        {
            n += 1;
        }
        if (w == "class" || w == "struct") && prev(1) != ">" && prev(1) != "template" && prev(1) != "friend" {
            // class NAME [final] : public BASE
            let mut j = i + 2;
            if toks.get(j).map(String::as_str) == Some("final") {
                j += 1;
            }
            if toks.get(j).map(String::as_str) != Some(":") {
                continue;
            }
            j += 1;
            if matches!(toks.get(j).map(String::as_str), Some("public" | "private" | "protected")) {
                j += 1;
            }
            if toks.get(j).map(String::as_str) == Some("poplar")
                && toks.get(j + 1).map(String::as_str) == Some("::")
            {
                j += 2;
            }
            if matches!(
                toks.get(j).map(String::as_str),
                Some("Vertex" | "MultiVertex" | "SupervisorVertex" | "SupervisorVertexIf")
            ) {
                n += 1;
            }
        }
    }
    n
}

/// Identifiers and the punctuation `:`, `::`, `>`, `<`, `;` as words.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphanumeric() || c == b'_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(s[st..i].to_string());
        } else if c == b':' && b.get(i + 1) == Some(&b':') {
            out.push("::".into());
            i += 2;
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else {
            if !c.is_ascii_whitespace() {
                out.push((c as char).to_string());
            }
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_instantiations_and_plain_vertices_of_the_main_file_only() {
        let pre = r#"# 1 "a.cpp"
template <typename T> class Sum : public Vertex { };
template class Sum<float>;
template class Sum<half>;
extern template class Sum<int>;
class Plain : public poplar::Vertex { };
class Helper { };
struct Multi final : MultiVertex { };
# 1 "header.hpp" 1
template class Sum<unsigned>;
class InHeader : public Vertex { };
# 9 "a.cpp" 2
template struct Sum<char>;
const char *s = "template class X<int>;";
"#;
        assert_eq!(count_in(pre, "a.cpp"), 5);
    }
}

//! The corpus: which files are codelet files, which are host programs, and
//! the flags each is compiled with.
//!
//! Codelet files are `poplibs/lib/<lib>/codelets/**/*.cpp` and
//! `graphcore-examples/**/*.cpp`. A file that includes `<iostream>` or
//! defines `main` is a host program (it builds a graph; it is not a
//! codelet) and is listed but not compiled. PopLibs' build
//! (`cmake/Modules/AddGPLibrary.cmake` and the top-level `POPC_FLAGS`)
//! compiles each codelet with `-I include -I lib/<lib> -I lib/<lib>/codelets
//! -DNDEBUG`; the tutorials' host programs add their codelets with no flags,
//! so those get only their own directory.

use std::path::{Path, PathBuf};

/// One source file of the corpus.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Path relative to the corpus root, with `/` separators.
    pub rel: String,
    pub path: PathBuf,
    /// `popops`, `poplin`, …, or `graphcore-examples`.
    pub library: String,
    /// Why this is a host program, when it is one.
    pub host: Option<&'static str>,
    /// popc-style flags (`-I dir`, `-DNAME`), paths relative to the corpus root.
    pub flags: Vec<String>,
}

/// Every codelet and host file of the corpus, in path order.
pub fn discover(root: &Path) -> Result<Vec<SourceFile>, String> {
    let mut out = Vec::new();
    let lib_dir = root.join("poplibs/lib");
    let libs =
        std::fs::read_dir(&lib_dir).map_err(|e| format!("cannot read '{}': {e}", lib_dir.display()))?;
    let mut libs: Vec<String> =
        libs.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    libs.sort();
    for lib in libs {
        let codelets = lib_dir.join(&lib).join("codelets");
        if !codelets.is_dir() {
            continue;
        }
        for path in cpp_files(&codelets) {
            let flags = poplibs_flags(&lib);
            out.push(source_file(root, path, lib.clone(), flags)?);
        }
    }
    let examples = root.join("graphcore-examples");
    if examples.is_dir() {
        for path in cpp_files(&examples) {
            let dir = path.parent().and_then(|d| d.strip_prefix(root).ok()).unwrap_or(Path::new("."));
            let flags = vec!["-I".into(), dir.to_string_lossy().into_owned()];
            out.push(source_file(root, path, "graphcore-examples".into(), flags)?);
        }
    }
    if out.is_empty() {
        return Err(format!("no codelet files under '{}'", root.display()));
    }
    Ok(out)
}

/// The flags PopLibs' build passes to popc for a codelet of `lib`, with
/// paths relative to the corpus root (compiles run there).
pub fn poplibs_flags(lib: &str) -> Vec<String> {
    let lib_dir = format!("poplibs/lib/{lib}");
    let mut flags = Vec::new();
    for dir in ["poplibs/include".to_string(), lib_dir.clone(), format!("{lib_dir}/codelets")] {
        flags.push("-I".to_string());
        flags.push(dir);
    }
    flags.push("-DNDEBUG".into());
    flags
}

fn source_file(
    root: &Path,
    path: PathBuf,
    library: String,
    flags: Vec<String>,
) -> Result<SourceFile, String> {
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
    Ok(SourceFile { rel, host: host_reason(&text), path, library, flags })
}

/// `*.cpp` files under `dir`, recursively, sorted.
fn cpp_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.filter_map(|e| e.ok()) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "cpp") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Why `text` is a host program rather than a codelet file, if it is one:
/// it includes `<iostream>` or defines `main` (outside comments).
pub fn host_reason(text: &str) -> Option<&'static str> {
    let code = strip_comments(text);
    let mut defines_main = false;
    for line in code.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix('#') {
            let rest = rest.trim_start();
            if let Some(inc) = rest.strip_prefix("include") {
                if inc.trim() == "<iostream>" {
                    return Some("includes <iostream>");
                }
            }
        }
    }
    let b = code.as_bytes();
    let mut at = 0;
    while let Some(i) = code[at..].find("main") {
        let s = at + i;
        let e = s + 4;
        at = e;
        let word_before = s > 0 && (b[s - 1].is_ascii_alphanumeric() || b[s - 1] == b'_');
        let word_after = e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_');
        if word_before || word_after {
            continue;
        }
        let before = code[..s].trim_end();
        let after = code[e..].trim_start();
        if after.starts_with('(') && (before.ends_with("int") || before.ends_with("auto")) {
            defines_main = true;
            break;
        }
    }
    defines_main.then_some("defines main")
}

/// The sibling sources (same directory, relative paths as `f.rel` spells
/// them) that define function `name`: PopLibs builds all of a library's
/// codelets into one object, so a file may call a function that another
/// `.cpp` beside it defines (`MultiSlice.cpp` and
/// `MultiSliceUpdateCommon.cpp`). A definition is `name`, optional template
/// arguments, a balanced parameter list, then `{` before any `;`.
pub fn definers(root: &Path, f: &SourceFile, name: &str) -> Vec<String> {
    let Some(dir) = f.path.parent() else { return vec![] };
    let Ok(rd) = std::fs::read_dir(dir) else { return vec![] };
    let mut paths: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp") && *p != f.path)
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| {
            std::fs::read(p).is_ok_and(|b| defines(&strip_comments(&String::from_utf8_lossy(&b)), name))
        })
        .map(|p| p.strip_prefix(root).unwrap_or(&p).to_string_lossy().replace('\\', "/"))
        .collect()
}

/// Whether `code` (comments stripped) defines a function called `name`.
fn defines(code: &str, name: &str) -> bool {
    let b = code.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut at = 0;
    while let Some(i) = code[at..].find(name) {
        let s = at + i;
        let mut e = s + name.len();
        at = e;
        if (s > 0 && word(b[s - 1])) || (e < b.len() && word(b[e])) {
            continue;
        }
        let mut depth = 0i32;
        let mut seen_params = false;
        while e < b.len() {
            match b[e] {
                b'<' | b'(' => depth += 1,
                b'>' | b')' => {
                    depth -= 1;
                    if b[e] == b')' && depth == 0 {
                        seen_params = true;
                    }
                }
                b'{' if depth == 0 => return seen_params,
                b';' if depth == 0 => break,
                b'=' | b',' if depth == 0 => break,
                _ => {}
            }
            if depth < 0 {
                break;
            }
            e += 1;
        }
    }
    false
}

/// `text` with `//` and `/* */` comments and the insides of string and
/// character literals blanked.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut it = text.chars().peekable();
    let mut in_str: Option<char> = None;
    while let Some(c) = it.next() {
        if let Some(q) = in_str {
            if c == '\\' {
                it.next();
                out.push(' ');
            } else if c == q || c == '\n' {
                out.push(c);
                in_str = None;
            } else {
                out.push(' ');
            }
            continue;
        }
        match (c, it.peek()) {
            ('/', Some('/')) => {
                for n in it.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                it.next();
                let mut prev = ' ';
                for n in it.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                    }
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
                out.push(' ');
            }
            ('"', _) | ('\'', _) => {
                in_str = Some(c);
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_files_are_told_from_codelets() {
        assert_eq!(host_reason("#include <iostream>\nint f();"), Some("includes <iostream>"));
        assert_eq!(host_reason("#  include   <iostream>\n"), Some("includes <iostream>"));
        assert_eq!(host_reason("int main(int argc, char **argv) { return 0; }"), Some("defines main"));
        assert_eq!(host_reason("int main() {}"), Some("defines main"));
        // Not host programs: a commented-out include, a member named like main,
        // a call of a function whose name contains `main`.
        assert_eq!(host_reason("// #include <iostream>\nclass V {};"), None);
        assert_eq!(host_reason("/* int main() */ class V { void compute(); };"), None);
        assert_eq!(host_reason("unsigned remaining(unsigned); int x = domain(3);"), None);
        assert_eq!(host_reason("const char *s = \"int main()\";"), None);
    }

    #[test]
    fn the_corpus_is_discovered() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
        if !root.is_dir() {
            eprintln!("skipped: corpus absent");
            return;
        }
        let files = discover(&root).unwrap();
        let poplibs: Vec<_> = files.iter().filter(|f| f.library != "graphcore-examples").collect();
        // The corpus README: 120 PopLibs codelet files, none of them a host program.
        assert_eq!(poplibs.len(), 120);
        assert!(poplibs
            .iter()
            .all(|f| f.host.is_none() && f.flags.last().map(String::as_str) == Some("-DNDEBUG")));
        let find = |end: &str| files.iter().find(|f| f.rel.ends_with(end)).unwrap_or_else(|| panic!("{end}"));
        assert_eq!(find("tut1_variables/start_here/tut1.cpp").host, Some("includes <iostream>"));
        assert_eq!(find("tut3_vertices/complete/tut3_codelets.cpp").host, None);
        assert_eq!(find("popops/codelets/Iota.cpp").library, "popops");
    }

    #[test]
    fn definitions_are_told_from_declarations_and_calls() {
        assert!(defines("unsigned split(unsigned n, const int *p) {\n return n; }", "split"));
        assert!(defines("template <typename T> T pick<T>(T a) noexcept { return a; }", "pick"));
        assert!(!defines("unsigned split(unsigned n);", "split"));
        assert!(!defines("void f() { auto x = split(3, p); }", "split"));
        assert!(!defines("unsigned resplit(unsigned n) {}", "split"));
    }

    #[test]
    fn poplibs_flags_name_the_library() {
        let f = poplibs_flags("popops");
        assert_eq!(
            f,
            [
                "-I",
                "poplibs/include",
                "-I",
                "poplibs/lib/popops",
                "-I",
                "poplibs/lib/popops/codelets",
                "-DNDEBUG"
            ]
        );
    }
}

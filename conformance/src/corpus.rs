//! The corpus: which files are codelet files, which are host programs, and
//! the flags each is compiled with.
//!
//! Codelet files are `poplibs/lib/<lib>/codelets/**/*.cpp`,
//! `graphcore-examples/**/*.cpp` and the files `wild/MANIFEST.tsv` lists
//! (codelets from researchers' and engineers' own repositories, each
//! compiled with its own directory and the manifest's include directories
//! on the path). A file that includes `<iostream>` or
//! defines `main` is a host program (it builds a graph; it is not a
//! codelet) and is listed but not compiled. PopLibs' build
//! (`cmake/Modules/AddGPLibrary.cmake` and the top-level `POPC_FLAGS`)
//! compiles each codelet with `-I include -I lib/<lib> -I lib/<lib>/codelets
//! -DNDEBUG`; the tutorials' host programs add their codelets with no flags,
//! so those get only their own directory.

use std::path::{Path, PathBuf};

/// Which part of the corpus a file comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    PopLibs,
    /// Graphcore's tutorials and feature examples.
    Tutorials,
    /// `wild/`: codelets written outside PopLibs and the tutorials.
    Wild,
}

/// One source file of the corpus.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub origin: Origin,
    /// The manifest's id (`W01`) of a wild file.
    pub id: Option<String>,
    /// Why a wild file cannot be built anywhere (it includes a file on its
    /// author's machine), if so: it is compiled, but not counted buildable.
    pub unbuildable: Option<String>,
    /// Path relative to the corpus root, with `/` separators.
    pub rel: String,
    pub path: PathBuf,
    /// `popops`, `poplin`, …, `graphcore-examples` or `wild`.
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
            out.push(source_file(root, path, Origin::PopLibs, lib.clone(), flags)?);
        }
    }
    let examples = root.join("graphcore-examples");
    if examples.is_dir() {
        for path in cpp_files(&examples) {
            let dir = path.parent().and_then(|d| d.strip_prefix(root).ok()).unwrap_or(Path::new("."));
            let flags = vec!["-I".into(), dir.to_string_lossy().into_owned()];
            out.push(source_file(root, path, Origin::Tutorials, "graphcore-examples".into(), flags)?);
        }
    }
    let manifest = root.join("wild/MANIFEST.tsv");
    if manifest.is_file() {
        let text = std::fs::read_to_string(&manifest)
            .map_err(|e| format!("cannot read '{}': {e}", manifest.display()))?;
        for w in wild_manifest(&text)? {
            let mut f = source_file(root, root.join(&w.rel), Origin::Wild, "wild".into(), w.flags)?;
            f.unbuildable = absolute_include(&std::fs::read_to_string(&f.path).unwrap_or_default());
            f.id = Some(w.id);
            out.push(f);
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

/// One row of `wild/MANIFEST.tsv`.
#[derive(Debug, PartialEq)]
pub struct WildEntry {
    pub id: String,
    /// Relative to the corpus root.
    pub rel: String,
    /// `-I` flags: the file's own directory, then the manifest's.
    pub flags: Vec<String>,
}

/// The rows of `wild/MANIFEST.tsv` (tab-separated, with a header: id,
/// repo, commit, path, licence, include dirs `:`-separated relative to the
/// repository's folder `<owner>__<name>`, bytes).
pub fn wild_manifest(text: &str) -> Result<Vec<WildEntry>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [id, repo, _commit, path, _licence, dirs, ..] = cols[..] else {
            return Err(format!("wild/MANIFEST.tsv:{}: expected 7 columns", n + 1));
        };
        let folder = format!("wild/{}", repo.replacen('/', "__", 1));
        let rel = format!("{folder}/{path}");
        let own = Path::new(&rel).parent().map_or(folder.clone(), |d| d.to_string_lossy().into_owned());
        let mut flags = vec!["-I".to_string(), own];
        for d in dirs.split(':').filter(|d| !d.is_empty()) {
            flags.push("-I".into());
            flags.push(format!("{folder}/{d}"));
        }
        out.push(WildEntry { id: id.to_string(), rel, flags });
    }
    Ok(out)
}

/// The first `#include` of an absolute path in `text`, as a reason.
fn absolute_include(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix('#')?.trim_start().strip_prefix("include")?.trim();
        let path = rest.get(1..)?.split(['>', '"']).next()?;
        path.starts_with('/').then(|| format!("includes '{path}' from its author's machine"))
    })
}

fn source_file(
    root: &Path,
    path: PathBuf,
    origin: Origin,
    library: String,
    flags: Vec<String>,
) -> Result<SourceFile, String> {
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
    Ok(SourceFile {
        origin,
        id: None,
        unbuildable: None,
        rel,
        host: host_reason(&text),
        path,
        library,
        flags,
    })
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

/// The other sources (relative paths as `f.rel` spells them) that define
/// function `name`: PopLibs builds all of a library's codelets into one
/// object, so a file may call a function that another `.cpp` beside it
/// defines (`MultiSlice.cpp` and `MultiSliceUpdateCommon.cpp`), or one that
/// the library's CMake adds to the codelet object from outside `codelets/`
/// (poplin's `ConvPartialsStridesPacking.cpp`, see [`gp_sources`]). A
/// definition is `name`, optional template arguments, a balanced parameter
/// list, then `{` before any `;`.
pub fn definers(root: &Path, f: &SourceFile, name: &str) -> Vec<String> {
    let Some(dir) = f.path.parent() else { return vec![] };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    if f.origin == Origin::PopLibs {
        let lib = root.join("poplibs/lib").join(&f.library);
        if let Ok(cmake) = std::fs::read_to_string(lib.join("CMakeLists.txt")) {
            paths.extend(gp_sources(&cmake).into_iter().map(|p| lib.join(p)));
        }
    }
    paths.retain(|p| p.extension().is_some_and(|x| x == "cpp") && *p != f.path);
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .filter(|p| {
            std::fs::read(p).is_ok_and(|b| defines(&strip_comments(&String::from_utf8_lossy(&b)), name))
        })
        .map(|p| p.strip_prefix(root).unwrap_or(&p).to_string_lossy().replace('\\', "/"))
        .collect()
}

/// The `CPP_SOURCES` of `add_gp_library(…)` in a PopLibs library's
/// `CMakeLists.txt`, relative to the library's directory
/// (`${CMAKE_CURRENT_SOURCE_DIR}/` dropped): the sources its codelet
/// object is built from.
pub fn gp_sources(cmake: &str) -> Vec<String> {
    let Some(at) = cmake.find("add_gp_library(") else { return vec![] };
    let body = &cmake[at..];
    let body = &body[..body.find(')').unwrap_or(body.len())];
    let mut out = Vec::new();
    let mut in_sources = false;
    for word in body.split_whitespace() {
        if word.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
            in_sources = word == "CPP_SOURCES";
        } else if in_sources {
            out.push(word.trim_start_matches("${CMAKE_CURRENT_SOURCE_DIR}/").to_string());
        }
    }
    out
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
        let poplibs: Vec<_> = files.iter().filter(|f| f.origin == Origin::PopLibs).collect();
        // The corpus README: 120 PopLibs codelet files, none of them a host program.
        assert_eq!(poplibs.len(), 120);
        assert!(poplibs
            .iter()
            .all(|f| f.host.is_none() && f.flags.last().map(String::as_str) == Some("-DNDEBUG")));
        let find = |end: &str| files.iter().find(|f| f.rel.ends_with(end)).unwrap_or_else(|| panic!("{end}"));
        assert_eq!(find("tut1_variables/start_here/tut1.cpp").host, Some("includes <iostream>"));
        assert_eq!(find("tut3_vertices/complete/tut3_codelets.cpp").host, None);
        assert_eq!(find("popops/codelets/Iota.cpp").library, "popops");
        let wild: Vec<_> = files.iter().filter(|f| f.origin == Origin::Wild).collect();
        if !wild.is_empty() {
            assert!(wild.iter().all(|f| f.host.is_none() && f.id.is_some()));
            // The README: two files include paths on their author's machine.
            assert_eq!(wild.iter().filter(|f| f.unbuildable.is_some()).count(), 2);
        }
    }

    #[test]
    fn the_wild_manifest_gives_each_file_its_include_path() {
        let text = "id\trepo\tcommit\tpath\tlicence\tinclude_dirs\tbytes\n\
                    W01\ta/b\tc0\tsrc/v.cpp\tMIT\tinc:ext/m\t10\n\
                    W02\ta/b\tc0\tw.cpp\tMIT\t\t10\n";
        let w = wild_manifest(text).unwrap();
        assert_eq!(w[0].rel, "wild/a__b/src/v.cpp");
        assert_eq!(w[0].flags, ["-I", "wild/a__b/src", "-I", "wild/a__b/inc", "-I", "wild/a__b/ext/m"]);
        assert_eq!(w[1].flags, ["-I", "wild/a__b"]);
        assert!(wild_manifest("h\nW01\ta\n").is_err());
        assert_eq!(
            absolute_include("#include <a.h>\n#  include </home/x/t.hpp>\n").as_deref(),
            Some("includes '/home/x/t.hpp' from its author's machine")
        );
        assert_eq!(absolute_include("#include \"a/b.h\"\n"), None);
    }

    #[test]
    fn gp_library_sources_are_read_from_cmake() {
        let cmake = "add_gp_library(\n  NAME poplin\n  CPP_SOURCES\n    ${CMAKE_CURRENT_SOURCE_DIR}/codelets/A.cpp\n    ${CMAKE_CURRENT_SOURCE_DIR}/Packing.cpp\n\n  ASM_SOURCES\n    ${ARCH_SOURCES}\n  HEADERS\n    P.hpp\n)\n";
        assert_eq!(gp_sources(cmake), ["codelets/A.cpp", "Packing.cpp"]);
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

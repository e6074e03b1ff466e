//! Keeps the documentation true: every ```pir and ```cpp block in
//! `docs/*.md`, the top-level `README.md` and `examples/*/README.md` is run
//! through the real front ends — PIR through `ir::parse_and_check` (what
//! `poplar-compile --check` does), C++ through `popc::compile` with only the
//! built-in headers. A block tagged `pir,err` or `cpp,err` shows a mistake
//! and must be rejected; any other block must be accepted. Relative links
//! between the pages must name files that exist.

use std::path::{Path, PathBuf};

/// One fenced block of a Markdown file.
#[derive(Debug, PartialEq)]
struct Snippet {
    /// The info string after the opening fence (`pir`, `cpp,err`, …).
    tag: String,
    /// Line of the opening fence, from 1.
    line: usize,
    text: String,
}

/// Every fenced block of `md` whose info string starts with `pir` or `cpp`.
fn snippets(md: &str) -> Vec<Snippet> {
    let mut out = Vec::new();
    let mut open: Option<Snippet> = None;
    for (i, line) in md.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => {
                open = Some(Snippet { tag: info.trim().to_string(), line: i + 1, text: String::new() })
            }
            (Some(_), Some(_)) => {
                let s = open.take().unwrap();
                if s.tag.starts_with("pir") || s.tag.starts_with("cpp") {
                    out.push(s);
                }
            }
            (Some(s), None) => {
                s.text.push_str(line);
                s.text.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

/// Checks one block; `Err` says what is wrong with it.
fn check(s: &Snippet, name: &str) -> Result<(), String> {
    let (lang, want_err) = match s.tag.as_str() {
        "pir" => ("pir", false),
        "pir,err" => ("pir", true),
        "cpp" => ("cpp", false),
        "cpp,err" => ("cpp", true),
        other => return Err(format!("unknown block tag `{other}` (use pir, pir,err, cpp or cpp,err)")),
    };
    let result = if lang == "pir" {
        ir::parse_and_check(name, &s.text).map(|_| ()).map_err(|d| d.render())
    } else {
        let opts = popc::Options::default();
        popc::compile(name, &s.text, &opts, &popc::NoIncludes, &[]).map(|_| ()).map_err(|d| d.render())
    };
    match (result, want_err) {
        (Ok(()), false) | (Err(_), true) => Ok(()),
        (Err(e), false) => Err(format!("is rejected:\n{e}")),
        (Ok(()), true) => Err("is marked `err` but is accepted".to_string()),
    }
}

fn repo_root() -> PathBuf {
    testdata::root().parent().expect("the workspace root").to_path_buf()
}

/// The Markdown files whose blocks are checked.
fn pages() -> Vec<PathBuf> {
    let root = repo_root();
    let mut pages = testdata::files_with_suffix(&root.join("docs"), ".md");
    pages.push(root.join("README.md"));
    pages.extend(
        testdata::files_with_suffix(&root.join("examples"), "README.md")
            .into_iter()
            .filter(|p| p.parent().and_then(Path::parent) == Some(&root.join("examples"))),
    );
    pages
}

#[test]
fn every_snippet_is_checked() {
    let root = repo_root();
    let mut failures = Vec::new();
    let mut counts = [0usize; 2];
    for page in pages() {
        let md = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        let rel = page.strip_prefix(&root).unwrap_or(&page).display().to_string();
        for s in snippets(&md) {
            counts[usize::from(s.tag.starts_with("cpp"))] += 1;
            let name = format!("{rel}:{}", s.line);
            if let Err(e) = check(&s, &name) {
                failures.push(format!("{rel}, the {} block at line {}, {e}", s.tag, s.line));
            }
        }
    }
    // The pages hold many blocks of each language; none found means the
    // extraction broke, not that everything passed.
    assert!(counts[0] >= 10 && counts[1] >= 3, "too few blocks found (pir, cpp): {counts:?}");
    assert!(
        failures.is_empty(),
        "{} documentation block(s) fail:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Relative Markdown links (`[text](path)`, outside code spans) must name
/// existing files.
#[test]
fn relative_links_exist() {
    let root = repo_root();
    let mut missing = Vec::new();
    for page in pages() {
        let md = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        for (i, line) in md.lines().enumerate() {
            // Code spans (`a[](i)`) hold no links.
            let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
            let mut rest = prose.as_str();
            while let Some(at) = rest.find("](") {
                rest = &rest[at + 2..];
                let Some(end) = rest.find(')') else { break };
                let target = rest[..end].split('#').next().unwrap_or("");
                if !target.is_empty() && !target.contains("://") && !dir.join(target).exists() {
                    let rel = page.strip_prefix(&root).unwrap_or(&page).display().to_string();
                    missing.push(format!("{rel}:{}: link to missing `{target}`", i + 1));
                }
            }
        }
    }
    assert!(missing.is_empty(), "broken links:\n{}", missing.join("\n"));
}

#[test]
fn extraction_and_checks_catch_broken_blocks() {
    let md =
        "text\n```pir\nvar v: float[4]\nmap v -> tile 0\n```\n```sh\nls\n```\n```cpp,err\nint x = ;\n```\n";
    let s = snippets(md);
    assert_eq!(s.len(), 2);
    assert_eq!((s[0].tag.as_str(), s[0].line), ("pir", 2));
    assert_eq!(s[1].text, "int x = ;\n");
    assert!(check(&s[0], "a").is_ok());
    assert!(check(&s[1], "b").is_ok());
    // A block that breaks, and an `err` block that does not fail, are caught.
    let broken = Snippet { tag: "pir".into(), line: 1, text: "var v: float[4\n".into() };
    assert!(check(&broken, "c").unwrap_err().contains("rejected"));
    let not_wrong = Snippet { tag: "cpp,err".into(), line: 1, text: "int f() { return 1; }\n".into() };
    assert!(check(&not_wrong, "d").unwrap_err().contains("accepted"));
    let bad_tag = Snippet { tag: "pirr".into(), line: 1, text: String::new() };
    assert!(check(&bad_tag, "e").is_err());
}

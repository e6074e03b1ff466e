//! The corpus's host programs against the C++ host API: does each build
//! with `g++ -fsyntax-only` against `sdk/include` (C++11, or C++14 where
//! the corpus Makefile asks for it), and do the tutorials' own pytest tests
//! pass (`../shared/tools/corpus-tests/run.sh`, which builds each program
//! with its Makefile through `enable.sh` and checks what it prints).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::corpus::{Origin, SourceFile};

/// One host program's results.
pub struct HostResult {
    pub rel: String,
    /// `Ok` or g++'s first error line.
    pub builds: Result<(), String>,
}

/// The pytest results of one tutorial folder: (test, outcome).
pub type TestResults = BTreeMap<String, Vec<(String, String)>>;

/// Checks every host file of the Graphcore examples with g++.
pub fn check(repo: &Path, files: &[SourceFile]) -> Vec<HostResult> {
    let include = repo.join("sdk/include");
    files
        .iter()
        .filter(|f| f.host.is_some() && f.origin == Origin::Tutorials)
        .map(|f| {
            let std = if f.rel.contains("lightweight_profiling") { "-std=c++14" } else { "-std=c++11" };
            let dir = f.path.parent().unwrap_or(Path::new("."));
            let o = Command::new("g++")
                .args(["-fsyntax-only", std, "-I"])
                .arg(&include)
                .arg(&f.path)
                .current_dir(dir)
                .output();
            let builds = match o {
                Ok(o) if o.status.success() => Ok(()),
                Ok(o) => Err(String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .find(|l| l.contains("error"))
                    .unwrap_or("g++ failed")
                    .to_string()),
                Err(e) => Err(format!("g++: {e}")),
            };
            HostResult { rel: f.rel.clone(), builds }
        })
        .collect()
}

/// Runs the tutorials' pytest suite against `repo`; the outcome of each
/// test by the folder of its tutorial, or why the suite could not run.
pub fn pytest(corpus: &Path, repo: &Path) -> Result<TestResults, String> {
    let script = corpus.join("../tools/corpus-tests/run.sh");
    if !script.exists() {
        return Err(format!("{} not found", script.display()));
    }
    let o = Command::new("bash").arg(&script).arg(repo).output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&o.stdout);
    let mut out = TestResults::new();
    for line in text.lines() {
        let Some((outcome, test)) = line.split_once(' ') else { continue };
        if !matches!(outcome, "PASSED" | "FAILED" | "ERROR") {
            continue;
        }
        let test = test.split(" - ").next().unwrap_or(test);
        let (path, name) = test.split_once("::").unwrap_or((test, ""));
        let folder = path.split("/tests/").next().unwrap_or(path);
        let folder = folder.rsplit_once('/').filter(|_| !path.contains("/tests/")).map_or(folder, |(d, _)| d);
        out.entry(folder.to_string()).or_default().push((name.to_string(), outcome.to_string()));
    }
    if out.is_empty() {
        return Err(format!("the suite reported no tests (exit {:?})", o.status.code()));
    }
    Ok(out)
}

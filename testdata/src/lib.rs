//! Golden files, shared by every crate's tests.
//!
//! Expected output lives in files beside the input. [`check`] compares what a
//! test produced with the file: a mismatch fails with a unified diff and the
//! hint to rerun with `BLESS=1`, which rewrites the file instead. A missing
//! expectation fails unless blessing. The end-to-end run cases
//! (`testdata/run/`) are driven from this crate's own tests.

#![forbid(unsafe_code)]

use std::fs;
use std::path::{Path, PathBuf};

/// The `testdata/` folder of the workspace.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Whether this run rewrites expectations (`BLESS=1`).
pub fn blessing() -> bool {
    std::env::var_os("BLESS").is_some_and(|v| v != "0")
}

/// Compares `actual` with the golden file at `path`; returns a description
/// of the mismatch, or `None` when they agree (or the file was blessed).
pub fn compare(path: &Path, actual: &str) -> Option<String> {
    let expected = fs::read_to_string(path).ok();
    if expected.as_deref() == Some(actual) {
        return None;
    }
    if blessing() {
        if let Some(dir) = path.parent() {
            let _ = fs::create_dir_all(dir);
        }
        fs::write(path, actual).unwrap_or_else(|e| panic!("cannot bless {}: {e}", path.display()));
        return None;
    }
    Some(match expected {
        None => format!(
            "{}: missing expectation (rerun with BLESS=1 to create it); actual:\n{actual}",
            path.display()
        ),
        Some(expected) => {
            let diff = similar::TextDiff::from_lines(expected.as_str(), actual);
            format!(
                "{}: output differs (rerun with BLESS=1 to accept):\n{}",
                path.display(),
                diff.unified_diff().header("expected", "actual")
            )
        }
    })
}

/// Like [`compare`], but panics on a mismatch.
pub fn check(path: &Path, actual: &str) {
    if let Some(msg) = compare(path, actual) {
        panic!("{msg}");
    }
}

/// Collects every mismatch of a batch of golden comparisons, then fails once
/// with all of them, so one run shows every broken case.
#[derive(Default)]
pub struct Report {
    failures: Vec<String>,
    cases: usize,
}

impl Report {
    pub fn new() -> Report {
        Report::default()
    }

    /// Records one case's comparison.
    pub fn compare(&mut self, path: &Path, actual: &str) {
        self.cases += 1;
        if let Some(msg) = compare(path, actual) {
            self.failures.push(msg);
        }
    }

    /// Records a case that passed a check made elsewhere.
    pub fn pass(&mut self) {
        self.cases += 1;
    }

    /// Records a failure that is not a golden mismatch.
    pub fn fail(&mut self, msg: String) {
        self.cases += 1;
        self.failures.push(msg);
    }

    /// Panics with every failure, if any, or if no case was recorded.
    pub fn finish(self, what: &str) {
        assert!(self.cases > 0, "{what}: no golden cases found");
        self.finish_allow_empty(what);
    }

    /// Panics with every failure, if any; recording no case is fine.
    pub fn finish_allow_empty(self, what: &str) {
        if !self.failures.is_empty() {
            panic!(
                "{what}: {} of {} cases failed\n\n{}",
                self.failures.len(),
                self.cases,
                self.failures.join("\n\n")
            );
        }
    }
}

/// Files under `dir` (recursively) whose name ends with `suffix`, sorted.
pub fn files_with_suffix(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

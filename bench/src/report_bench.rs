//! The report page in a browser: `poplar-report` on the compiler
//! benchmark's generated graph (1M vertices on 1,472 tiles; 100k with
//! `--quick`), compiled with its graph profile and run on `sim` with its
//! execution profile, then opened in headless Chromium by
//! `scripts/browser_check.py`, three times. The figure is the page's own
//! time from navigation start to its last chart drawn (issue 14's budget:
//! 3 s). Without Chromium the row says so (`scripts/browser-check.sh`
//! installs it).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::tools::{cargo, generate_big, timed, Stats};

pub fn run(quick: bool) -> Vec<(String, String)> {
    match run_inner(quick) {
        Ok(rows) => rows,
        Err(e) => vec![("poplar-report".into(), format!("failed: {e}"))],
    }
}

fn run_inner(quick: bool) -> Result<Vec<(String, String)>, String> {
    if !Path::new("/usr/bin/chromium").exists() {
        return Ok(vec![(
            "report page draw time".into(),
            "skipped: chromium absent (scripts/browser-check.sh installs it)".into(),
        )]);
    }
    for bin in [["compiler", "poplar-compile"], ["poplar-run", "poplar-run"], ["report", "poplar-report"]] {
        cargo(&["build", "--release", "-q", "-p", bin[0], "--bin", bin[1]])?;
    }
    cargo(&["build", "--release", "-q", "-p", "ir", "--example", "gen_big"])?;
    let dir = PathBuf::from("target/bench");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("big_codelets.cpp"), crate::compile_bench::BIG_CODELETS)
        .map_err(|e| e.to_string())?;
    let n = if quick { 100_000u64 } else { 1_000_000 };
    let pir = generate_big(&dir, n)?;
    let (exe, graph, exec, page) =
        (dir.join("report.exe"), dir.join("graph.json"), dir.join("execution.json"), dir.join("report.html"));
    let bin = |name: &str| PathBuf::from("target/release").join(name);
    let os = |p: &Path| p.as_os_str().to_owned();
    timed(&bin("poplar-compile"), &[&os(&pir), "-o".as_ref(), &os(&exe), "--report".as_ref(), &os(&graph)])?;
    timed(&bin("poplar-run"), &[&os(&exe), "--profile".as_ref(), &os(&exec)])?;
    let t = timed(&bin("poplar-report"), &[&os(&graph), &os(&exec), "-o".as_ref(), &os(&page)])?;
    let mut draws = Vec::new();
    for _ in 0..if quick { 1 } else { 3 } {
        let o = Command::new("python3")
            .args(["scripts/browser_check.py", "--budget-ms", "3000"])
            .arg(dir.join("shots"))
            .arg(&page)
            .output()
            .map_err(|e| format!("python3: {e}"))?;
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        if !o.status.success() {
            return Err(format!("browser check failed: {text}"));
        }
        let ms: f64 = text
            .split("drawn in ")
            .nth(1)
            .and_then(|r| r.split(" ms").next())
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("no draw time in: {text}"))?;
        draws.push(ms / 1e3);
    }
    let bytes = std::fs::metadata(&page).map(|m| m.len()).unwrap_or(0);
    Ok(vec![
        (
            format!("poplar-report on {n} vertices, 1,472 tiles"),
            format!("{:.3} s, page {bytes} bytes", t.wall_s),
        ),
        ("page open and draw in Chromium (budget 3 s)".into(), Stats::of(draws).ms()),
    ])
}

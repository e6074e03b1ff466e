//! PIR front end: parse + check of the generated big graph.
//!
//! Generates graphs of 100k and 1M vertices with `ir`'s `gen_big` (1472-tile
//! mk2 target, elementwise vertices over a linearly mapped 16M-element
//! tensor, plus a split matrix-vector product) and times the front end on
//! each with `poplar-compile --check --time-passes`, which parses and checks
//! only: the pass's own time, and the process's peak memory.
//! Figures: seconds, MB/s, vertices/s, peak RSS, growth from the small size
//! to the large one (linear is 10x). `--quick` uses 10k and 100k vertices.

use std::path::PathBuf;

use crate::tools::{cargo, generate_big, pass_times, timed};

pub fn run(quick: bool) -> Vec<(String, String)> {
    run_inner(quick).unwrap_or_else(|e| vec![("PIR parse + check".into(), format!("failed: {e}"))])
}

fn run_inner(quick: bool) -> Result<Vec<(String, String)>, String> {
    cargo(&["build", "--release", "-q", "-p", "ir", "--example", "gen_big"])?;
    cargo(&["build", "--release", "-q", "-p", "compiler", "--bin", "poplar-compile"])?;
    let dir = PathBuf::from("target/bench");
    let check = PathBuf::from("target/release/poplar-compile");
    let (small, large) = if quick { (10_000u64, 100_000u64) } else { (100_000, 1_000_000) };
    let reps = if quick { 1 } else { 3 };
    let mut rows = Vec::new();
    let mut secs = Vec::new();
    for n in [small, large] {
        let pir = generate_big(&dir, n)?;
        let bytes = std::fs::metadata(&pir).map_err(|e| e.to_string())?.len();
        let mut runs = Vec::new();
        for _ in 0..reps {
            let t = timed(&check, &[pir.as_os_str(), "--check".as_ref(), "--time-passes".as_ref()])?;
            let s = pass_times(&t.stderr)
                .find(|(name, _)| name.starts_with("parse_and_check"))
                .map(|(_, ms)| ms / 1e3)
                .ok_or("poplar-compile --check printed no time")?;
            runs.push((s, t.peak_kib));
        }
        runs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (median, peak) = runs[runs.len() / 2];
        let (min, max) = (runs[0].0, runs[runs.len() - 1].0);
        let mb = bytes as f64 / 1e6;
        rows.push((
            format!("parse + check, {n} vertices ({mb:.1} MB), median of {reps}"),
            format!(
                "{median:.2} s (min {min:.2}, max {max:.2}); {:.1} MB/s; {:.0} vertices/s",
                mb / median,
                n as f64 / median
            ),
        ));
        if let Some(k) = peak {
            rows.push((
                format!("parse + check, {n} vertices: peak RSS"),
                format!("{:.0} MiB", k as f64 / 1024.0),
            ));
        }
        secs.push(median);
    }
    rows.push((
        format!("parse + check growth {large}/{small} vertices (linear = {}x)", large / small),
        format!("{:.1}x", secs[1] / secs[0].max(1e-9)),
    ));
    Ok(rows)
}

//! Where and when the figures were taken: CPU model, cores, memory, date,
//! commit. Read from `/proc` and `git` (or `POPLAR_COMMIT`); missing pieces
//! read "unknown".

use std::process::Command;

/// One line per fact, as `BENCHMARKS.md` shows them.
pub fn describe() -> Vec<(String, String)> {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get().to_string())
        .unwrap_or_else(|_| "unknown".into());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            let kb: u64 =
                s.lines().find(|l| l.starts_with("MemTotal"))?.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!("{:.1} GiB", kb as f64 / (1024.0 * 1024.0)))
        })
        .unwrap_or_else(|| "unknown".into());
    vec![
        ("CPU".into(), cpu),
        ("cores".into(), cores),
        ("memory".into(), mem),
        ("date (UTC)".into(), run("date", &["-u", "+%Y-%m-%d %H:%M"])),
        ("commit".into(), commit()),
        ("rustc".into(), run("rustc", &["--version"])),
        ("reference compiler".into(), run("g++", &["--version"]).lines().next().unwrap_or("").to_string()),
    ]
}

/// The commit: `POPLAR_COMMIT` where binaries were copied without their
/// checkout (`scripts/device-scaling.sh`), else git's.
fn commit() -> String {
    std::env::var("POPLAR_COMMIT").unwrap_or_else(|_| run("git", &["rev-parse", "--short", "HEAD"]))
}

fn run(cmd: &str, args: &[&str]) -> String {
    Command::new(cmd)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

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
    // Hardware threads sharing cpu0's core (2 with SMT): thread scaling
    // past the physical cores is not compute scaling.
    let smt = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list")
        .ok()
        .map(|s| sibling_count(s.trim()).to_string())
        .unwrap_or_else(|| "unknown".into());
    // Other work on the machine when the run starts: figures taken beside
    // it are slower, the ratios less so.
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into());
    vec![
        ("CPU".into(), cpu),
        ("cores".into(), cores),
        ("hardware threads per core".into(), smt),
        ("load average at start (1 min)".into(), load),
        ("memory".into(), mem),
        ("date (UTC)".into(), run("date", &["-u", "+%Y-%m-%d %H:%M"])),
        ("commit".into(), commit()),
        ("rustc".into(), run("rustc", &["--version"])),
        ("reference compiler".into(), run("g++", &["--version"]).lines().next().unwrap_or("").to_string()),
    ]
}

/// How many CPUs a sysfs list such as `0,8` or `0-1` names.
fn sibling_count(list: &str) -> usize {
    list.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('-') {
            Some((a, b)) => b.parse::<usize>().unwrap_or(0).saturating_sub(a.parse().unwrap_or(0)) + 1,
            None => 1,
        })
        .sum()
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

#[cfg(test)]
mod tests {
    #[test]
    fn sibling_lists_count_cpus() {
        assert_eq!(super::sibling_count("0"), 1);
        assert_eq!(super::sibling_count("0,8"), 2);
        assert_eq!(super::sibling_count("0-1"), 2);
        assert_eq!(super::sibling_count("0-1,4"), 3);
    }
}

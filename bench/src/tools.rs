//! What several benchmarks share: building the workspace's binaries and
//! timing a child process with its peak memory (`/usr/bin/time -v`, when the
//! machine has it).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Runs `cargo ARGS` with the same cargo that runs the benchmark.
pub fn cargo(args: &[&str]) -> Result<(), String> {
    let st = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .status()
        .map_err(|e| format!("cargo: {e}"))?;
    if st.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed", args.join(" ")))
    }
}

/// One timed run of a child process.
pub struct Timed {
    pub wall_s: f64,
    /// Peak resident set size, when `/usr/bin/time` could measure it.
    pub peak_kib: Option<u64>,
    /// The child's stdout (only the tests read it now).
    #[cfg_attr(not(test), allow(dead_code))]
    pub stdout: String,
    /// The child's own stderr (with `/usr/bin/time`'s report appended).
    pub stderr: String,
}

/// Runs `exe ARGS`, timing it; a failed run is an error with its stderr.
/// Peak memory comes from `/usr/bin/time -v` where the machine has it,
/// else from the child's `VmHWM` in `/proc`, read every few milliseconds
/// while it runs (the last reading before it exits).
pub fn timed(exe: &Path, args: &[&std::ffi::OsStr]) -> Result<Timed, String> {
    timed_with(exe, args, Path::new("/usr/bin/time").exists())
}

/// [`timed`], under `/usr/bin/time -v` or not.
fn timed_with(exe: &Path, args: &[&std::ffi::OsStr], use_time: bool) -> Result<Timed, String> {
    let time = Path::new("/usr/bin/time");
    let mut cmd = if use_time {
        let mut c = Command::new(time);
        c.arg("-v").arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("{}: {e}", exe.display()))?;
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(child.stdout.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
    let status_file = format!("/proc/{}/status", child.id());
    let mut hwm: Option<u64> = None;
    let status = loop {
        if let Some(st) = child.try_wait().map_err(|e| e.to_string())? {
            break st;
        }
        if let Some(kib) = std::fs::read_to_string(&status_file).ok().and_then(|s| {
            s.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.split_whitespace().next()?.parse().ok()
        }) {
            hwm = Some(hwm.map_or(kib, |h: u64| h.max(kib)));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let wall_s = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    if !status.success() {
        let head = stderr.lines().take(20).collect::<Vec<_>>().join("\n");
        return Err(format!("{} failed:\n{head}", exe.display()));
    }
    let peak_kib = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
        .or(hwm);
    Ok(Timed { wall_s, peak_kib, stdout, stderr })
}

/// Generates the benchmark graph of `n` vertices with `ir`'s `gen_big`
/// example (built beforehand) unless the file exists already.
pub fn generate_big(dir: &Path, n: u64) -> Result<std::path::PathBuf, String> {
    generate_big_with(Path::new("target/release/examples/gen_big"), dir, n)
}

/// [`generate_big`] with the `gen_big` binary at `gen`.
pub fn generate_big_with(gen: &Path, dir: &Path, n: u64) -> Result<std::path::PathBuf, String> {
    let pir = dir.join(format!("big{n}.pir"));
    if pir.exists() {
        return Ok(pir);
    }
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let st = Command::new(gen)
        .args(["--vertices", &n.to_string(), "-o"])
        .arg(&pir)
        .status()
        .map_err(|e| format!("gen_big: {e}"))?;
    if !st.success() {
        return Err("gen_big failed".into());
    }
    Ok(pir)
}

/// The passes `--time-passes` printed to `stderr` (`time: 12.345 ms  name`
/// lines), with their milliseconds.
pub fn pass_times(stderr: &str) -> impl Iterator<Item = (&str, f64)> {
    stderr.lines().filter_map(|l| {
        let (ms, name) = l.strip_prefix("time: ")?.trim().split_once(" ms ")?;
        Some((name.trim(), ms.trim().parse().ok()?))
    })
}

/// Median and range of repeated timings, in seconds.
#[derive(Clone, Copy, Debug)]
pub struct Stats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Stats {
    /// Summarises `samples` (at least one).
    pub fn of(mut samples: Vec<f64>) -> Stats {
        assert!(!samples.is_empty(), "no samples");
        samples.sort_by(f64::total_cmp);
        Stats { median: samples[samples.len() / 2], min: samples[0], max: samples[samples.len() - 1] }
    }

    /// `median ms (min–max)`.
    pub fn ms(&self) -> String {
        format!("{:.2} ms (min {:.2}, max {:.2})", self.median * 1e3, self.min * 1e3, self.max * 1e3)
    }
}

/// A Python that imports `module`: the one `POPLAR_PYTHON` names, else
/// CI's venv (`target/ci-venv`, which has numpy and `poplar`), else
/// `python3`.
pub fn python_with(module: &str) -> Option<std::path::PathBuf> {
    let root = std::env::current_dir().ok()?;
    let candidates = [
        std::env::var_os("POPLAR_PYTHON").map(std::path::PathBuf::from),
        Some(root.join("target/ci-venv/bin/python")),
        Some(std::path::PathBuf::from("python3")),
    ];
    candidates.into_iter().flatten().find(|p| {
        Command::new(p).args(["-c", &format!("import {module}")]).output().is_ok_and(|o| o.status.success())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without `/usr/bin/time`, the peak comes from `/proc`: a shell holding
    /// 40 MB in a variable shows at least that.
    #[test]
    fn peak_memory_without_usr_bin_time() {
        let script = "x=$(head -c 40000000 /dev/zero | tr '\\0' a); sleep 0.3; echo ${#x}";
        let t = timed_with(Path::new("/bin/sh"), &["-c".as_ref(), script.as_ref()], false).unwrap();
        assert_eq!(t.stdout.trim(), "40000000");
        let kib = t.peak_kib.expect("a peak from /proc");
        assert!(kib >= 39_000, "peak {kib} KiB");
    }
}

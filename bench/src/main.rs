//! The benchmark command: `cargo run --release -p bench [-- --quick] [--no-write] [--only WORD
//! [--update]] [--out PATH]`, or `bench --scaling [--quick] [--threads 1,2,4] [--bin-dir DIR] [--budget SECONDS]
//! [--out PATH]`.
//!
//! Builds what it needs, generates its inputs, runs every benchmark the
//! issues name with repetitions, and rewrites `BENCHMARKS.md` (or `--out
//! PATH`) with the machine, date and commit. Every figure stands beside the
//! reference measured in the same run (g++ -O2, native Rust, host memcpy),
//! as a ratio, since absolute times on shared machines are noise. `--quick`
//! runs each benchmark once on small inputs (CI runs it so none rots) and,
//! like `--no-write`, leaves `BENCHMARKS.md` alone. `--only WORD --update`
//! replaces only the sections it ran in `BENCHMARKS.md`, each stamped
//! with its own machine state, date and commit. `--scaling` runs only
//! the thread-scaling table ([`scaling_bench`]), made to run from copied
//! binaries on a machine without a toolchain
//! (`scripts/device-scaling.sh`); it writes only to `--out`.

#![forbid(unsafe_code)]

mod compile_bench;
mod estimator_bench;
mod exchange_bench;
mod host_api_bench;
mod ir_bench;
mod machine;
mod memcpy_bench;
mod ops_bench;
mod popc_bench;
mod python_bench;
mod replicas_bench;
mod report_bench;
mod runtime_bench;
mod scaling_bench;
mod tools;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

type Section = (&'static str, fn(bool) -> Vec<(String, String)>);

const SECTIONS: &[Section] = &[
    ("Physical reference", memcpy_bench::run),
    ("PIR front end: parse + check", ir_bench::run),
    ("Codelet compiler: popc", popc_bench::run),
    ("Graph compiler: poplar-compile", compile_bench::run),
    ("Runtime: cpu and sim devices", runtime_bench::run),
    ("Exchange alone: copies between tiles", exchange_bench::run),
    ("Report: poplar-report in Chromium", report_bench::run),
    ("Library operations (PIR ops)", ops_bench::run),
    ("Cost model against PopLibs' cycle estimators", estimator_bench::run),
    ("C++ host API (libpoplar)", host_api_bench::run),
    ("Python package (poplar)", python_bench::run),
    ("Replicas and collectives", replicas_bench::run),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut quick = false;
    let mut no_write = false;
    let mut scaling = false;
    let mut out_path: Option<String> = None;
    let mut scaling_opts =
        scaling_bench::Options { quick: false, threads: Vec::new(), bin_dir: None, budget: None };
    // `--only WORD`: run the sections whose title contains WORD (e.g.
    // `runtime`), to look at one figure; never writes BENCHMARKS.md.
    let mut only: Option<String> = None;
    let mut update = false;
    let mut rest = args.iter();
    let fail = |msg: String| -> ! {
        eprintln!("bench: error: {msg}");
        std::process::exit(1);
    };
    while let Some(a) = rest.next() {
        let mut value =
            |what: &str| rest.next().cloned().unwrap_or_else(|| fail(format!("{a} needs {what}")));
        match a.as_str() {
            "--quick" => quick = true,
            "--no-write" => no_write = true,
            "--update" => update = true,
            "--only" => only = Some(value("a word of a section title (e.g. runtime)").to_lowercase()),
            "--out" => out_path = Some(value("a path")),
            "--scaling" => scaling = true,
            "--threads" => {
                let v = value("thread counts (e.g. 1,2,4)");
                scaling_opts.threads = v
                    .split(',')
                    .map(|t| t.trim().parse().ok().filter(|&t: &usize| t > 0))
                    .collect::<Option<Vec<_>>>()
                    .unwrap_or_else(|| {
                        fail(format!("--threads: '{v}' is not a list of counts such as 1,2,4"))
                    });
            }
            "--bin-dir" => scaling_opts.bin_dir = Some(value("a folder").into()),
            "--budget" => {
                let v = value("seconds");
                scaling_opts.budget = Some(
                    v.parse().unwrap_or_else(|_| fail(format!("--budget: '{v}' is not a number of seconds"))),
                );
            }
            bad => fail(format!(
                "unknown option '{bad}' (expected --quick, --no-write, --only WORD, --update, --out PATH, --scaling, \
                 --threads LIST, --bin-dir DIR, --budget SECONDS)"
            )),
        }
    }
    // Relative paths (`--out`, `--bin-dir`) are the caller's; the benchmarks
    // then run in the workspace root: this checkout's, or, where the binary
    // was copied without it, the current folder.
    let here = std::env::current_dir().expect("current folder");
    let out_path = out_path.map(|p| here.join(p));
    scaling_opts.bin_dir = scaling_opts.bin_dir.map(|d| here.join(d));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("bench lives in the workspace");
    if root.join("Cargo.toml").exists() {
        std::env::set_current_dir(root).expect("workspace root");
    }
    if scaling {
        scaling_opts.quick = quick;
        let md = scaling_bench::run(&scaling_opts, out_path.as_deref());
        print!("{md}");
        if let Some(p) = &out_path {
            eprintln!("bench: wrote {}", p.display());
        }
        return;
    }
    if update && (only.is_none() || quick || no_write || out_path.is_some()) {
        fail("--update goes with --only WORD alone".into());
    }
    let write = (!quick && !no_write && only.is_none()) || out_path.is_some();
    let mut out = String::new();
    out.push_str("# Benchmarks\n\nWritten by `cargo run --release -p bench`; do not edit by hand.\n");
    out.push_str(
        "Each figure stands beside its reference, measured in the same run. Timings are medians of\n",
    );
    out.push_str(
        "the repetitions with min and max where shown; popc's code-speed figures are the best of 10\n",
    );
    out.push_str("runs, for popc and g++ alike. Ratios, not absolute times, are the figures to read.\n\n## Machine\n\n");
    for (k, v) in machine::describe() {
        let _ = writeln!(out, "- {k}: {v}");
    }
    let mode = if quick { "quick (small inputs, one repetition)" } else { "full" };
    let _ = writeln!(out, "- mode: {mode}");
    for (title, run) in SECTIONS {
        if only.as_ref().is_some_and(|w| !title.to_lowercase().contains(w.as_str())) {
            continue;
        }
        eprintln!("bench: {title} …");
        let start = Instant::now();
        let rows = run(quick);
        eprintln!("bench: {title} done in {:.1} s", start.elapsed().as_secs_f64());
        let _ = write!(out, "\n## {title}\n\n| benchmark | figure |\n|---|---|\n");
        for (k, v) in rows {
            let _ = writeln!(out, "| {k} | {v} |");
        }
    }
    if only.is_none() {
        out.push_str(&device_figures(Path::new("bench/device")));
    }
    print!("{out}");
    if update {
        let path = Path::new("BENCHMARKS.md");
        let old = std::fs::read_to_string(path)
            .unwrap_or_else(|e| fail(format!("cannot read {}: {e}", path.display())));
        let stamp = machine::describe()
            .into_iter()
            .filter(|(k, _)| k.starts_with("date") || k.starts_with("commit") || k.starts_with("load"))
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ");
        let new =
            replace_sections(&old, &out, &format!("Measured apart from the rest of this file: {stamp}."));
        std::fs::write(path, new).unwrap_or_else(|e| fail(format!("cannot write {}: {e}", path.display())));
        eprintln!("bench: updated {}", path.display());
    }
    if write {
        let path = out_path.unwrap_or_else(|| "BENCHMARKS.md".into());
        std::fs::write(&path, &out).unwrap_or_else(|e| fail(format!("cannot write {}: {e}", path.display())));
        eprintln!("bench: wrote {}", path.display());
    }
}

/// `old` with each `## ` section that `fresh` also has replaced by
/// `fresh`'s, `note` written under its heading; sections `fresh` lacks
/// stay as they are, and a new one goes before the figures measured on
/// other machines.
fn replace_sections(old: &str, fresh: &str, note: &str) -> String {
    fn sections(text: &str) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = vec![(String::new(), String::new())];
        for line in text.split_inclusive('\n') {
            if let Some(title) = line.strip_prefix("## ") {
                out.push((title.trim().to_string(), String::new()));
            }
            if let Some(last) = out.last_mut() {
                last.1.push_str(line);
            }
        }
        out
    }
    let fresh: Vec<(String, String)> = sections(fresh).into_iter().skip(2).collect();
    let stamped = |title: &str, body: &str| {
        let rest = body.split_once('\n').map_or("", |(_, r)| r);
        format!("## {title}\n\n{note}\n{}\n\n", rest.trim_end())
    };
    let old = sections(old);
    let new_ones: String =
        fresh.iter().filter(|(t, _)| !old.iter().any(|(o, _)| o == t)).map(|(t, b)| stamped(t, b)).collect();
    let mut out = String::new();
    let mut new_placed = false;
    for (title, body) in &old {
        if title == "Measured on other machines" && !new_placed {
            out.push_str(&new_ones);
            new_placed = true;
        }
        match fresh.iter().find(|(t, _)| t == title) {
            Some((_, b)) if !title.is_empty() => out.push_str(&stamped(title, b)),
            _ => out.push_str(body),
        }
    }
    if !new_placed {
        out.push_str(&new_ones);
    }
    out
}

/// The figures measured on other machines (a device machine with many
/// cores, where nothing can be built: `scripts/device-scaling.sh`), kept
/// as markdown files in `dir` and copied into BENCHMARKS.md as they are,
/// in file-name order, under a heading of their own.
fn device_figures(dir: &Path) -> String {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect(),
        Err(_) => return String::new(),
    };
    files.sort();
    let mut out = String::new();
    for f in files {
        match std::fs::read_to_string(&f) {
            Ok(text) => {
                if out.is_empty() {
                    out.push_str(
                        "\n## Measured on other machines\n\nCopied from `bench/device/`: figures a device \
                         machine measured with the binaries of the commit each names.\n\n",
                    );
                }
                out.push_str(text.trim_end());
                out.push('\n');
            }
            Err(e) => eprintln!("bench: skipping {}: {e}", f.display()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::replace_sections;

    #[test]
    fn update_replaces_only_the_sections_run() {
        let old = "# B\n\n## Machine\n\n- commit: a\n\n## One\n\n| x | 1 |\n\n## Two\n\n| y | 2 |\n\n\
                   ## Measured on other machines\n\nfar\n";
        let fresh = "# B\n\n## Machine\n\n- commit: b\n\n## Two\n\n| y | 3 |\n\n## Three\n\n| z | 4 |\n";
        let new = replace_sections(old, fresh, "(b)");
        assert_eq!(
            new,
            "# B\n\n## Machine\n\n- commit: a\n\n## One\n\n| x | 1 |\n\n## Two\n\n(b)\n\n| y | 3 |\n\n\
             ## Three\n\n(b)\n\n| z | 4 |\n\n## Measured on other machines\n\nfar\n"
        );
    }
}

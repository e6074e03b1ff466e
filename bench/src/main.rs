//! The benchmark command: `cargo run --release -p bench [-- --quick] [--no-write] [--only WORD]`.
//!
//! Builds what it needs, generates its inputs, runs every benchmark the
//! issues name with repetitions, and rewrites `BENCHMARKS.md` with the
//! machine, date and commit. Every figure stands beside the reference
//! measured in the same run (g++ -O2, native Rust, host memcpy), as a ratio,
//! since absolute times on shared machines are noise. `--quick` runs each
//! benchmark once on small inputs (CI runs it so none rots) and, like
//! `--no-write`, leaves `BENCHMARKS.md` alone.

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
mod tools;

use std::fmt::Write as _;
use std::path::Path;
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
    // `--only WORD`: run the sections whose title contains WORD (e.g.
    // `runtime`), to look at one figure; never writes BENCHMARKS.md.
    let mut only: Option<String> = None;
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--no-write" => no_write = true,
            "--only" => match rest.next() {
                Some(w) => only = Some(w.to_lowercase()),
                None => {
                    eprintln!("bench: error: --only needs a word of a section title (e.g. runtime)");
                    std::process::exit(1);
                }
            },
            bad => {
                eprintln!("bench: error: unknown option '{bad}' (expected --quick, --no-write, --only WORD)");
                std::process::exit(1);
            }
        }
    }
    let write = !quick && !no_write && only.is_none();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("bench lives in the workspace");
    std::env::set_current_dir(root).expect("workspace root");

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
    print!("{out}");
    if write {
        std::fs::write("BENCHMARKS.md", &out).expect("cannot write BENCHMARKS.md");
        eprintln!("bench: wrote BENCHMARKS.md");
    }
}

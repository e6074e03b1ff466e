//! The end-to-end run-case harness, shared by `run.rs` (the goldens, at the
//! baseline ISA level) and `run_host_isa.rs` (the same cases at this
//! processor's own level): see `run.rs` for what a case is.

// Each of the two test binaries constructs one of the checks.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use runtime::linker::image::Image;
use testdata::Report;

/// How a case's output is compared with its expectation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Exactly (the expectations were written at the baseline ISA level).
    Golden,
    /// With the summary's vertex code size masked on both sides: code
    /// generated at another ISA level has other sizes, and everything
    /// else must be identical. Never blesses.
    CodeSizesMasked,
}

/// The line of the summary that holds the code segment's size.
const CODE_SIZE_LINE: &str = "Vertex Code (shared segment, not in tile memory):";

fn mask_code_size(text: &str) -> String {
    text.lines()
        .map(|l| match l.find(CODE_SIZE_LINE) {
            Some(i) => format!("{}{CODE_SIZE_LINE} (masked)", &l[..i]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Compares `actual` with the file at `path` as `check` says.
fn compare(report: &mut Report, check: Check, label: &str, path: &Path, actual: &str) {
    match check {
        Check::Golden => report.compare(path, actual),
        Check::CodeSizesMasked => {
            let expected = std::fs::read_to_string(path).unwrap_or_default();
            if mask_code_size(&expected) == mask_code_size(actual) {
                report.pass();
            } else {
                report.fail(format!(
                    "{label}: output differs from {} (code sizes masked):\n{actual}",
                    path.display()
                ));
            }
        }
    }
}

fn cases() -> Vec<PathBuf> {
    let examples = testdata::root().join("../examples");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(testdata::root().join("run"))
        .expect("testdata/run")
        .chain(std::fs::read_dir(&examples).expect("examples"))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("graph.pir").is_file())
        .collect();
    if let Ok(only) = std::env::var("RUN_CASE") {
        dirs.retain(|d| d.file_name().is_some_and(|n| n.to_string_lossy().contains(&only)));
    }
    dirs.sort();
    dirs
}

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(dir: &Path, image: &Image, graph: &str, args: &[String]) -> Outcome {
    let mut argv = vec![dir.join("graph.pir").to_string_lossy().into_owned()];
    argv.extend(args.iter().cloned());
    let compile = |_: &Path, want: bool| Ok((image.clone(), Vec::new(), want.then(|| graph.to_string())));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        runtime::cli::main(&argv, &runtime::cli::Env::default(), &compile, &mut out, &mut err)
    }));
    let code = result.unwrap_or(101);
    let dir_text = dir.to_string_lossy();
    Outcome {
        code,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).replace(dir_text.as_ref(), "$DIR"),
    }
}

/// Compiles case `testdata/run/<name>` and runs it with `args`: its exit
/// status and standard output.
pub fn run_case(name: &str, args: &[&str]) -> (i32, String) {
    let dir = testdata::root().join("run").join(name);
    let (image, _, graph) = compiler::compile_for_run_profiled(&dir.join("graph.pir"), true)
        .unwrap_or_else(|e| panic!("{name}: does not compile:\n{e}"));
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let o = run(&dir, &image, &graph.unwrap_or_default(), &args);
    (o.code, o.stdout)
}

/// Runs every case (or those `RUN_CASE` names) and checks its output:
/// against the expectation files as they are (blessing them with
/// `BLESS=1`) in [`Check::Golden`], or with code sizes masked in
/// [`Check::CodeSizesMasked`].
pub fn run_cases(check: Check) {
    let mut report = Report::new();
    for dir in cases() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let (image, graph) = match compiler::compile_for_run_profiled(&dir.join("graph.pir"), true) {
            Ok((image, _, graph)) => (image, graph.unwrap_or_default()),
            Err(e) => {
                report.fail(format!("{name}: does not compile:\n{e}"));
                continue;
            }
        };
        let cmd = std::fs::read_to_string(dir.join("cmd")).unwrap_or_default();
        let args: Vec<String> =
            cmd.split_whitespace().map(|a| a.replace("$DIR", &dir.to_string_lossy())).collect();
        let fails = dir.join("expected.stderr").exists() || name.starts_with("err_");
        let fixed_device = args.iter().any(|a| a == "--device" || a.starts_with("--device="));
        let devices: &[&str] = if fixed_device { &[""] } else { &["sim", "cpu"] };
        for (i, device) in devices.iter().enumerate() {
            let mut args = args.clone();
            let mut summary_cut = false;
            if !device.is_empty() {
                args.extend(["--device".to_string(), device.to_string()]);
                if *device == "cpu" && args.iter().any(|a| a == "--summary") {
                    args.retain(|a| a != "--summary");
                    summary_cut = true;
                }
            }
            let o = run(&dir, &image, &graph, &args);
            let label = if device.is_empty() { name.clone() } else { format!("{name} on {device}") };
            if o.code == 101 {
                report.fail(format!("{label}: panicked (exit 101 is a bug)\n{}", o.stderr));
                continue;
            }
            if fails {
                if o.code != 1 {
                    report.fail(format!("{label}: expected exit status 1, got {}\n{}", o.code, o.stderr));
                    continue;
                }
                compare(&mut report, check, &label, &dir.join("expected.stderr"), &o.stderr);
            } else if o.code != 0 {
                report.fail(format!("{label}: exit status {}\n{}", o.code, o.stderr));
                continue;
            }
            let expected_path = dir.join("expected.stdout");
            if summary_cut {
                let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
                let cut = expected.find("\nTarget:\n").map_or(expected.len(), |i| i + 1);
                if o.stdout != expected[..cut] {
                    report.fail(format!(
                        "{label}: stdout differs from {} before the summary:\n{}",
                        expected_path.display(),
                        o.stdout
                    ));
                } else {
                    compare(&mut report, check, &label, &expected_path, &expected);
                }
            } else if i == 0 || !testdata::blessing() {
                compare(&mut report, check, &label, &expected_path, &o.stdout);
            } else {
                // Blessing: the first device wrote the file; the second must agree.
                let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
                if expected != o.stdout {
                    report.fail(format!("{label}: output differs from the other device:\n{}", o.stdout));
                }
            }
        }
    }
    report.finish(match check {
        Check::Golden => "run cases",
        Check::CodeSizesMasked => "run cases at this processor's ISA level",
    });
}

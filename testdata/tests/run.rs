//! The end-to-end golden run cases (`testdata/run/<case>/`, and the ported
//! Poplar tutorials in `examples/<nn_name>/`): each case's
//! `graph.pir` is compiled once through the compiler library, then run
//! through `poplar-run`'s own code path (`runtime::cli::main`) with the
//! arguments in its `cmd` file, on both devices (`sim` and `cpu`) unless
//! `cmd` names one. Standard output must match `expected.stdout` on both.
//! A case with `expected.stderr` must fail (exit status 1) with exactly that
//! text. In `cmd`, `$DIR` stands for the case's folder (for data files);
//! the same token replaces the folder in error text. With `--summary` in
//! `cmd`, the `cpu` run leaves it out and is compared with the expectation
//! up to the summary's first line (`Target:`).
//!
//! `BLESS=1 cargo test -p testdata --test run` rewrites the expectations.

use std::path::{Path, PathBuf};

use runtime::linker::image::Image;
use testdata::Report;

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

#[test]
fn run_cases() {
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
                report.compare(&dir.join("expected.stderr"), &o.stderr);
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
                    report.compare(&expected_path, &expected);
                }
            } else if i == 0 || !testdata::blessing() {
                report.compare(&expected_path, &o.stdout);
            } else {
                // Blessing: the first device wrote the file; the second must agree.
                let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
                if expected != o.stdout {
                    report.fail(format!("{label}: output differs from the other device:\n{}", o.stdout));
                }
            }
        }
    }
    report.finish("run cases");
}

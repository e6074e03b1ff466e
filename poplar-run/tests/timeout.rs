//! `poplar-run --timeout` on the real binary: a control loop that never
//! ends stops at a step boundary, and a codelet looping for ever stops at a
//! loop back edge (issue 11, finding 1), both with exit status 1 and a
//! message naming where, on both devices.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn case(name: &str, codelet: &str, program: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("poplar-run-timeout-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("c.cpp"), codelet).unwrap();
    let pir = format!(
        "target mk2(tiles_per_ipu = 2)\ncodelets \"c.cpp\"\nvar n: float @ tile 0 = 0\n\
         compute_set spin {{ vertex Spin @ tile 0 {{ out = n }} }}\nprogram main {{ {program} }}\n"
    );
    std::fs::write(dir.join("graph.pir"), pir).unwrap();
    dir
}

fn run(dir: &Path, device: &str) -> (i32, String, Duration) {
    run_with(dir, &["--device", device, "--timeout", "1"])
}

fn run_with(dir: &Path, args: &[&str]) -> (i32, String, Duration) {
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_poplar-run"))
        .arg(dir.join("graph.pir"))
        .args(args)
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned(), t.elapsed())
}

const SPIN: &str = "#include <poplar/Vertex.hpp>\nusing namespace poplar;\n\
class Spin : public Vertex {\npublic:\n  Output<float> out;\n  \
void compute() { while (true) { *out += 1.0f; } }\n};\n";

const ONCE: &str = "#include <poplar/Vertex.hpp>\nusing namespace poplar;\n\
class Spin : public Vertex {\npublic:\n  Output<float> out;\n  void compute() { *out += 1.0f; }\n};\n";

#[test]
fn a_codelet_that_never_returns_is_interrupted() {
    let dir = case("codelet", SPIN, "execute spin");
    for device in ["cpu", "sim"] {
        let (code, err, took) = run(&dir, device);
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains(
                "vertex Spin (id 0) on tile 0 in compute set 'spin' failed: interrupted: the run's --timeout \
                 passed while it was running"
            ),
            "{err}"
        );
        // Compiling the codelet counts too; the limit is the watchdog's.
        assert!(took < Duration::from_secs(60), "{took:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_endless_control_loop_stops_at_a_step() {
    let dir = case("loop", ONCE, "repeat 9223372036854775807 { execute spin }");
    for device in ["cpu", "sim"] {
        let (code, err, _) = run(&dir, device);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("the run exceeded --timeout 1 s at program 'main'"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn max_cycles_stops_sim_inside_a_codelet() {
    let dir = case("cycles", SPIN, "execute spin");
    let (code, err, took) = run_with(&dir, &["--device", "sim", "--max-cycles", "1000000"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            "vertex Spin (id 0) on tile 0 in compute set 'spin' failed: stopped: the run passes --max-cycles \
             within this vertex"
        ),
        "{err}"
    );
    assert!(took < Duration::from_secs(60), "{took:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Audit 2026-11: a run stopped by `--timeout` or `--max-cycles` wrote no
/// profile and no trace. Now the profile (`--profile` and autoReport's), the
/// trace and the page cover the run up to the step where it stopped, marked
/// partial with the run's error, and the command still fails with it.
#[test]
fn a_stopped_run_still_writes_its_profile_and_trace() {
    let dir = case("partial", ONCE, "repeat 9223372036854775807 { execute spin }");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    let path = |f: &str| dir.join(f).to_string_lossy().into_owned();
    // --timeout on sim: the profile, autoReport's files and the page. (Its
    // trace, two million events in a second, is left to --max-cycles.)
    let auto = format!(r#"{{"autoReport.all":"true","autoReport.directory":"{}"}}"#, path("out"));
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_poplar-run"))
        .arg(dir.join("graph.pir"))
        .args(["--device", "sim", "--timeout", "1", "--profile", &path("timeout.json")])
        .env("POPLAR_ENGINE_OPTIONS", &auto)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("the run exceeded --timeout 1 s at program 'main'"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(60));
    // Where it stops (at the repeat's step, or inside the compute set when
    // the machine is loaded) varies; the program is always named.
    let stopped = "\"stoppedBy\": \"the run exceeded --timeout 1 s at program 'main'";
    for f in ["timeout.json", "out/execution.json"] {
        let p = read(f);
        assert!(p.contains("\"partial\": true") && p.contains(stopped), "{f}:\n{p}");
        assert!(
            p.contains("\"computeSetRuns\": [\n    ") && !p.contains("\"computeSetRuns\": [\n    0"),
            "{f}"
        );
    }
    let page = read("out/report.html");
    assert!(page.contains("\"partial\":true,\"stopped_by\":\"the run exceeded --timeout 1 s"), "the page");
    // --max-cycles on sim: the trace too.
    let (code, err, _) = run_with(
        &dir,
        &[
            "--device",
            "sim",
            "--max-cycles",
            "5000",
            "--profile",
            &path("cycles.json"),
            "--trace",
            &path("t.json"),
        ],
    );
    assert_eq!(code, 1, "{err}");
    let why = "the run exceeded --max-cycles 5000 at program 'main', step 0 (repeat 9223372036854775807)";
    assert!(err.contains(why), "{err}");
    assert!(read("cycles.json").contains(&format!("\"stoppedBy\": \"{why}")), "{}", read("cycles.json"));
    let trace = read("t.json");
    assert!(trace.contains(&format!("\"partial\":true,\"stoppedBy\":\"{why} (cycles so far: ")), "{trace}");
    assert!(trace.contains("\"name\":\"spin\""), "the trace has the steps before the stop");
    // --timeout on cpu: the steps-only profile.
    let (code, err, _) =
        run_with(&dir, &["--device", "cpu", "--timeout", "1", "--profile", &path("cpu.json")]);
    assert_eq!(code, 1, "{err}");
    let p = read("cpu.json");
    assert!(p.contains("\"partial\": true") && p.contains("\"profilerMode\": \"CPU\""), "{p}");
    let _ = std::fs::remove_dir_all(&dir);
}

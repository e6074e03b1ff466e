//! The ISA level on the real binaries (`linker::isa`): `POPLAR_HOST_ISA`
//! lowers the level code is generated at, a `prog.exe` of a higher level
//! than the process allows is refused with its target named, and an
//! unusable value is an error before anything runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use runtime::linker::isa::Level;

/// A matrix product (library code) and elementwise maps of it, printed:
/// inexact values, so a fused multiply-add or any other change of
/// rounding would show.
fn graph() -> String {
    let row = |r: usize| {
        (0..5).map(|q| format!("{}", 0.1 + 0.37 * (r * 5 + q) as f64)).collect::<Vec<_>>().join(", ")
    };
    let a = (0..6).map(|r| format!("[{}]", row(r))).collect::<Vec<_>>().join(", ");
    format!(
        "target mk2(tiles_per_ipu = 4)\nvar a: float[6, 5] @ linear = [{a}]\nvar b: float[5, 3] @ linear = 0.3\n\
         program main {{ c = matmul(a, b)  d = tanh(c * 0.01) - c  e = c * 1.1 + 0.3  \
         print \"c\" c  print \"d\" d  print \"e\" e }}\n"
    )
}

fn dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("poplar-run-isa-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("graph.pir"), graph()).unwrap();
    dir
}

fn poplar_run(input: &Path, isa: Option<&str>, device: &str) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_poplar-run"));
    cmd.arg(input).args(["--device", device]);
    match isa {
        Some(level) => cmd.env("POPLAR_HOST_ISA", level),
        None => cmd.env_remove("POPLAR_HOST_ISA"),
    };
    cmd.output().unwrap()
}

/// `prog.exe` compiled in this process, at its (detected) level.
fn compile(dir: &Path) -> PathBuf {
    let exe = dir.join("prog.exe");
    let args: Vec<String> =
        vec![dir.join("graph.pir").display().to_string(), "-o".into(), exe.display().to_string()];
    let (code, _, err) = compiler::run_cli(&args);
    assert_eq!(code, 0, "{err}");
    exe
}

#[test]
fn every_level_computes_the_same() {
    let dir = dir("same");
    let graph = dir.join("graph.pir");
    for device in ["sim", "cpu"] {
        let outputs: Vec<Output> = Level::all()
            .iter()
            .filter(|l| l.missing().is_empty())
            .map(|l| poplar_run(&graph, Some(l.name()), device))
            .collect();
        for o in &outputs {
            assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(o.stdout, outputs[0].stdout);
        }
        let default = poplar_run(&graph, None, device);
        assert_eq!(default.stdout, outputs[0].stdout);
        assert!(String::from_utf8_lossy(&default.stdout).contains("c: {"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_image_above_the_allowed_level_is_refused() {
    if Level::current() == Level::Baseline {
        eprintln!("skipped: this processor's ISA level is the baseline");
        return;
    }
    let dir = dir("refused");
    let exe = compile(&dir);
    let o = poplar_run(&exe, Some(Level::Baseline.name()), "cpu");
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "is for target '{}-{} {}'",
            std::env::consts::ARCH,
            std::env::consts::OS,
            Level::current().name()
        )) && err.contains(&format!(
            "'{}' and lower ISA levels (POPLAR_HOST_ISA lowers the level from",
            Level::Baseline.target()
        )),
        "{err}"
    );
    assert_eq!(poplar_run(&exe, None, "cpu").status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unusable_level_is_an_error() {
    let dir = dir("unusable");
    let o = poplar_run(&dir.join("graph.pir"), Some("x86-64-v9"), "cpu");
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("poplar-run: error: POPLAR_HOST_ISA='x86-64-v9' names no instruction-set level"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

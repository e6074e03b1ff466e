//! The `poplar-compile` binary as a shell sees it: a reader that has gone
//! (`poplar-compile --dump … | true`) ends the output quietly instead of a
//! panic (exit 101), and `-o /dev/null` leaves the device a device.

use std::io::Read;
use std::process::{Command, Stdio};

#[test]
fn closed_stdout_is_not_a_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/compile/ok/matvec");
    let mut child = Command::new(env!("CARGO_BIN_EXE_poplar-compile"))
        .current_dir(dir)
        .args(["graph.pir", "-o", "/dev/null", "--dump", "image"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("poplar-compile runs");
    // Hang up before the compile is done, as `| true` does.
    drop(child.stdout.take());
    let mut err = String::new();
    let _ = child.stderr.take().expect("piped").read_to_string(&mut err);
    let status = child.wait().expect("poplar-compile ends");
    assert_ne!(status.code(), Some(101), "poplar-compile panicked: {err}");
    assert!(!err.contains("panicked"), "{err}");
    // `-o /dev/null` writes into the device; it used to rename a file over
    // it (which root may do), leaving /dev/null a regular file.
    use std::os::unix::fs::FileTypeExt;
    let null = std::fs::metadata("/dev/null").expect("/dev/null");
    assert!(null.file_type().is_char_device(), "/dev/null is no longer a device");
}

/// `--expansion-limit N` and `POPLAR_EXPANSION_LIMIT` set the budget of
/// what loops make beyond the text; the error names both.
#[test]
fn expansion_limit_is_an_option() {
    let dir = std::env::temp_dir().join(format!("poplar-compile-expansion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let pir = dir.join("loop.pir");
    // 100 iterations making a vertex each: 1,700 units.
    let src = "var a: float[4]\nmap a -> tile 0\ncompute_set cs {\n  for i in 0..100 { vertex V @ tile 0 { x = a[i % 4] } }\n}\n";
    std::fs::write(&pir, src).expect("write loop.pir");
    let compile = |args: &[&str], env: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_poplar-compile"));
        cmd.arg(&pir).arg("--check").args(args).env_remove("POPLAR_EXPANSION_LIMIT");
        if let Some(v) = env {
            cmd.env("POPLAR_EXPANSION_LIMIT", v);
        }
        let o = cmd.output().expect("poplar-compile runs");
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (code, err) = compile(&["--expansion-limit", "1000"], None);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("error: expansion limit exceeded: more than 1000 units"), "{err}");
    assert!(err.contains("`poplar-compile --expansion-limit N`, or POPLAR_EXPANSION_LIMIT=N"), "{err}");
    assert_eq!(compile(&["--expansion-limit", "1700"], None).0, Some(0));
    let (code, err) = compile(&[], Some("1000"));
    assert!(code == Some(1) && err.contains("more than 1000 units"), "{err}");
    assert_eq!(compile(&[], Some("1_700")).0, Some(0));
    // The option wins over the environment.
    assert_eq!(compile(&["--expansion-limit", "1700"], Some("1000")).0, Some(0));
    let (code, err) = compile(&[], Some("lots"));
    assert!(code == Some(1) && err.contains("POPLAR_EXPANSION_LIMIT: `lots` is not a whole number"), "{err}");
    // `--check --time-passes`: the front end's time, and nothing else.
    let (code, err) = compile(&["--time-passes"], None);
    assert_eq!(code, Some(0), "{err}");
    let passes: Vec<&str> = err.lines().filter_map(|l| l.split(" ms  ").nth(1)).collect();
    assert_eq!(passes, ["parse_and_check (ir)", "total"], "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

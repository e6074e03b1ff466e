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

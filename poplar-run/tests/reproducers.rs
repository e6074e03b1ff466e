//! The reproducers of the hardening audit (HARDENING.md) that `poplar-run`
//! handles, run through the real binary under a 2 GiB address-space cap
//! (`ulimit -v`): each must end with exit status 0 or 1 and its clear
//! message in bounded time, never an abort, a signal or a hang.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Address-space cap for every run, in KiB.
const CAP_KIB: u64 = 2 << 20;

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

/// A fresh folder for one test.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("poplar-run-repro-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `poplar-run FILE ARGS...` under the cap, with a 60 s bound.
fn run(file: &Path, args: &[&str]) -> Outcome {
    let t = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {CAP_KIB}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_poplar-run"))
        .arg(file)
        .args(args)
        .output()
        .unwrap();
    assert!(t.elapsed() < Duration::from_secs(60), "{file:?} {args:?} took {:?}", t.elapsed());
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn pir(d: &Path, name: &str, text: &str) -> PathBuf {
    let p = d.join(format!("{name}.pir"));
    std::fs::write(&p, text).unwrap();
    p
}

fn fails_with(o: &Outcome, needle: &str) {
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains(needle), "expected '{needle}' in: {}", o.stderr);
}

#[test]
fn runaway_and_deep_programs() {
    let d = dir("runaway");
    let empty =
        pir(&d, "empty", "target mk2(tiles_per_ipu = 2)\nprogram main { repeat 9223372036854775807 { } }\n");
    fails_with(&run(&empty, &["--device", "sim", "--max-cycles", "1000"]), "exceeded --max-cycles 1000");
    fails_with(&run(&empty, &["--device", "cpu", "--max-cycles", "1000"]), "(steps so far: 1001)");

    let mut chain = String::from("target mk2(tiles_per_ipu = 2)\nfunction f0 { sync }\n");
    for i in 1..10_000 {
        chain += &format!("function f{i} {{ call f{} }}\n", i - 1);
    }
    chain += "program main { call f9999 }\n";
    fails_with(&run(&pir(&d, "chain", &chain), &[]), "levels deep, more than the 1024 supported");

    let nested = format!(
        "target mk2(tiles_per_ipu = 2)\nprogram main {{ {}sync{} }}\n",
        "repeat 1 { ".repeat(10_000),
        " }".repeat(10_000)
    );
    fails_with(&run(&pir(&d, "nested", &nested), &[]), "nested too deeply");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn remote_buffers_and_output() {
    let d = dir("remote");
    let wrap = pir(&d, "wrap", "target mk2(tiles_per_ipu = 2)\nremote_buffer \"rb\": float[4000000000] x 4000000000\nprogram main { }\n");
    fails_with(&run(&wrap, &[]), "needs more host memory than the 8 GiB limit");
    // 4 GB: within the limit, so it loads; touching it under the cap is a
    // clean error.
    let big = pir(
        &d,
        "big",
        "target mk2(tiles_per_ipu = 2)\nremote_buffer \"rb\": float[1000000] x 1000\nprogram main { }\n",
    );
    assert_eq!(run(&big, &[]).code, 0);
    let bin = d.join("rb.bin");
    fails_with(&run(&big, &["--read", &format!("rb={}", bin.display())]), "cannot allocate 4000000000 bytes");

    let empty = pir(
        &d,
        "emptyprint",
        "target mk2(tiles_per_ipu = 2)\nvar e: float[100000000000, 0] @ tile 0\nhost_read \"e\" <- e\n\
         program main { print \"e\" e }\n",
    );
    let o = run(&empty, &["--read", "e"]);
    assert_eq!((o.code, o.stdout.as_str()), (0, "e: {}\ne: {}\n"), "{}", o.stderr);

    // Output arrives while the run goes on: stopped by --timeout, the
    // program has already printed many lines.
    let chatty = pir(
        &d,
        "chatty",
        "target mk2(tiles_per_ipu = 2)\nvar a: float[1] @ tile 0\nprogram main { repeat 100000000 { print \"a\" a } }\n",
    );
    let o = run(&chatty, &["--device", "cpu", "--timeout", "2"]);
    fails_with(&o, "exceeded --timeout 2 s");
    assert!(o.stdout.lines().count() > 1000, "{}", o.stdout.len());
    assert!(o.stdout.lines().all(|l| l == "a: {0}"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn host_data() {
    let d = dir("data");
    let prog = pir(
        &d,
        "data",
        "target mk2(tiles_per_ipu = 2)\nvar a: float[4] @ tile 0\nhost_write \"w\" -> a\nprogram main { }\n",
    );
    let write = |data: &str| run(&prog, &["--write", &format!("w={data}")]);
    fails_with(&write("[1,,2,,,3,4]"), "an empty item");
    fails_with(&write("[[[1]]],2,3,[4"), "after the closing ']'");
    fails_with(&write("[1e39,0,0,0]"), "1e39 is out of range for float");
    assert_eq!(write("[[1],[2,3],4]").code, 0);

    let npy = |name: &str, bytes: &[u8]| {
        let p = d.join(format!("{name}.npy"));
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let header = |h: &str| {
        let mut v = b"\x93NUMPY\x01\x00".to_vec();
        v.extend_from_slice(&(h.len() as u16).to_le_bytes());
        v.extend_from_slice(h.as_bytes());
        v
    };
    let good = header("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }          \n");
    let mut full = good.clone();
    full.extend_from_slice(&[0; 16]);
    assert_eq!(write(&npy("good", &full)).code, 0);
    fails_with(&write(&npy("nodata", &good)), "holds 0 bytes of data after its header");
    fails_with(&write(&npy("half", &full[..full.len() - 8])), "holds 8 bytes of data");
    let mut trailing = full.clone();
    trailing.extend_from_slice(&[1, 2]);
    fails_with(&write(&npy("trailing", &trailing)), "holds 18 bytes of data");
    let mut v2 = b"\x93NUMPY\x02\x00".to_vec();
    v2.extend_from_slice(&u32::MAX.to_le_bytes());
    v2.extend_from_slice(b"{'descr': '<f4', ");
    fails_with(&write(&npy("v2", &v2)), "more than the 65536 accepted");
    let nested =
        header(&format!("{{'descr': {}'<f4'{}, 'shape': (4,), }}\n", "[(".repeat(30), ")]".repeat(30)));
    fails_with(&write(&npy("nested", &nested)), "nests brackets too deeply");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn printf_output_is_bounded() {
    let d = dir("printf");
    std::fs::write(
        d.join("c.cpp"),
        "#include <poplar/Vertex.hpp>\nusing namespace poplar;\nclass Chatty : public Vertex {\npublic:\n  \
         Output<int> out;\n  void compute() { for (int i = 0; i < 100000000; ++i) { printf(\"%d\\n\", i); } *out = 1; }\n};\n",
    )
    .unwrap();
    let prog = pir(
        &d,
        "chatty",
        "target mk2(tiles_per_ipu = 2)\ncodelets \"c.cpp\"\nvar n: int @ tile 0 = 0\n\
         compute_set cs { vertex Chatty @ tile 0 { out = n } }\nprogram main { execute cs }\n",
    );
    for device in ["cpu", "sim"] {
        let o = run(&prog, &["--device", device]);
        fails_with(&o, "tile 0 printed more than 1024 KiB with printf in compute set 'cs'");
        // What was printed up to the limit is kept.
        assert!(o.stdout.starts_with("0\n1\n2\n") && o.stdout.len() >= 1 << 20, "{}", o.stdout.len());
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// The PIR fuzzer's out-of-memory input (a `map` of 3.3 billion repeats of
/// one element: 24 GB before the fix) and its neighbours fail at once
/// under the cap, compiled in-process by `poplar-run`.
#[test]
fn repeating_views_are_bounded() {
    let d = dir("repeats");
    let zero_stride =
        pir(&d, "zero_stride", "var v: float[4]\nmap affine(v, 2, [[3333333333, 0]]) -> tile 00\n");
    fails_with(&run(&zero_stride, &[]), "expansion limit exceeded");
    let slice = pir(
        &d,
        "slice",
        "var big: float[3300000000]\nprogram main { print \"b\" broadcast(big[0:1], 3300000000) }\n",
    );
    fails_with(&run(&slice, &[]), "expansion limit exceeded");
    let strided = pir(&d, "strided", "var big: float[3300000000]\nmap big[0:3300000000:2] -> tile 0\n");
    fails_with(&run(&strided, &[]), "expansion limit exceeded");
    let _ = std::fs::remove_dir_all(&d);
}

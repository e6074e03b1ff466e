//! Replicas over MPI ranks (issue 27): `poprun` launching `poplar-run`
//! instances with Open MPI. For 1, 2 and 4 processes of a 4-replica graph,
//! and 3 processes of a 6-replica one, standard output, `.npy` outputs and
//! the `--summary` figures equal the single-process run's byte for byte,
//! on both devices; a replica count the image does not have is refused;
//! a trap on one rank ends the job with a non-zero status in time; replicas
//! that diverge across ranks report what one process reports; a C++ host
//! program (`sdk/tests/mpi_job.cpp`, against libpoplar built with MPI)
//! prints in each instance what it prints in one process.
//!
//! Built only with `--features mpi` (`.ci/run` does); without `mpirun` on
//! the path each test says it is skipped. `mpirun` runs with
//! `--oversubscribe`, so 4 ranks fit a 2-core machine.

#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn have_mpirun() -> bool {
    let found = Command::new("mpirun").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: mpirun absent (Open MPI: apt-get install openmpi-bin)");
    }
    found
}

fn dir(name: &str, pir: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("poplar-run-mpi-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("graph.pir"), pir).unwrap();
    d
}

/// The program: every replica makes its data from its index, then every
/// collective combines them; its outputs are read to `.npy` files.
/// Replica 1 then works alone before the prints, which every replica
/// meets at (a host sync), so the others' waits show in the summary.
fn program(replicas: u32) -> String {
    format!(
        "target mk2(tiles_per_ipu = 4, replication_factor = {replicas})\nconst r: uint = replication_index\n\
         map r -> tile 0\nconst j: uint[6] = [0, 1, 2, 3, 4, 5]\nmap j -> tile 1\nvar x: float[6] @ linear\n\
         var one: bool @ tile 0\n\
         host_read \"x\" <- x\nhost_read \"s\" <- s\nhost_read \"g\" <- g\nprogram main {{\n  \
         x = (cast<float>(r) + 1.0) * 0.1 + cast<float>(j) * 1000.0\n  s = all_reduce(x, add)\n  \
         m = all_reduce(x, mean, group = consecutive({half}))\n  g = all_gather(x[0:2])\n  \
         q = reduce_scatter(x, add)\n  b = replica_broadcast(x, root = 1)\n  one = r == 1\n  \
         if one {{\n    x = x * 3.0\n  }}\n  print \"m\" m\n  print \"q\" q\n  \
         print \"b\" b\n}}\n",
        half = if replicas.is_multiple_of(2) { 2 } else { 1 }
    )
}

/// Runs `poplar-run` (through `poprun` when `instances` is given) in `d`,
/// reading `x`, `s` and `g` to `.npy` files named after `tag`.
fn run(d: &Path, device: &str, instances: Option<u32>, replicas: u32, tag: &str) -> (Output, Vec<Vec<u8>>) {
    let reads: Vec<String> =
        ["x", "s", "g"].iter().flat_map(|h| ["--read".to_string(), format!("{h}={h}-{tag}.npy")]).collect();
    let mut cmd = match instances {
        None => Command::new(env!("CARGO_BIN_EXE_poplar-run")),
        Some(n) => {
            let mut c = Command::new(env!("CARGO_BIN_EXE_poprun"));
            c.args(["--num-instances", &n.to_string(), "--num-replicas", &replicas.to_string()]);
            c.arg(env!("CARGO_BIN_EXE_poplar-run"));
            c
        }
    };
    let out = cmd
        .current_dir(d)
        .arg("graph.pir")
        .args(["--device", device, "--summary"])
        .args(&reads)
        .output()
        .expect("run");
    let files = ["x", "s", "g"]
        .iter()
        .map(|h| std::fs::read(d.join(format!("{h}-{tag}.npy"))).unwrap_or_default())
        .collect();
    (out, files)
}

#[test]
fn ranks_print_what_one_process_prints() {
    if !have_mpirun() {
        return;
    }
    for (replicas, counts) in [(4u32, &[1u32, 2, 4][..]), (6, &[3][..])] {
        let d = dir(&format!("same-{replicas}"), &program(replicas));
        for device in ["sim", "cpu"] {
            let (one, one_files) = run(&d, device, None, replicas, &format!("{device}-single"));
            assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
            assert!(one_files.iter().all(|f| !f.is_empty()));
            for &n in counts {
                let (many, files) = run(&d, device, Some(n), replicas, &format!("{device}-{n}"));
                let err = String::from_utf8_lossy(&many.stderr);
                assert!(many.status.success(), "r = {replicas} over {n} ranks on {device}: {err}");
                assert_eq!(
                    String::from_utf8_lossy(&many.stdout),
                    String::from_utf8_lossy(&one.stdout),
                    "r = {replicas} over {n} ranks on {device}"
                );
                assert_eq!(files, one_files, "r = {replicas} over {n} ranks on {device}: .npy outputs");
            }
        }
    }
}

#[test]
fn a_replica_count_the_image_lacks_is_refused() {
    if !have_mpirun() {
        return;
    }
    let d = dir("mismatch", &program(4));
    let out = Command::new(env!("CARGO_BIN_EXE_poprun"))
        .current_dir(&d)
        .args(["--num-instances", "2", "--num-replicas", "2", env!("CARGO_BIN_EXE_poplar-run"), "graph.pir"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("the image has a replication factor of 4 but the job was launched with 2 replicas"),
        "{err}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_poprun"))
        .args(["--num-instances", "4", "--num-replicas", "6", "poplar-run"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be shared equally"));
}

#[test]
fn a_trap_on_one_rank_ends_the_job() {
    if !have_mpirun() {
        return;
    }
    // Replica 2 (on rank 1) divides by zero; replica 0 then waits at the
    // all-reduce for ever unless the job stops.
    let pir = "target mk2(tiles_per_ipu = 2, replication_factor = 4)\nconst r: int = replication_index\n\
               map r -> tile 0\nvar x: int[4] @ tile 1\nprogram main {\n  x = 10 / (r - 2)\n  \
               x = all_reduce(x, add)\n}\n";
    let d = dir("trap", pir);
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_poprun"))
        .current_dir(&d)
        .args(["--num-instances", "2", "--num-replicas", "4", env!("CARGO_BIN_EXE_poplar-run"), "graph.pir"])
        .args(["--timeout", "60"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("replica 2: vertex pir_ops::Map0") && err.contains("integer division by zero"),
        "{err}"
    );
    assert!(t.elapsed() < Duration::from_secs(60), "the job took {:?}", t.elapsed());
}

#[test]
fn ranks_that_diverge_report_what_one_process_reports() {
    if !have_mpirun() {
        return;
    }
    let pir = "target mk2(tiles_per_ipu = 2, replication_factor = 3)\nconst r: uint = replication_index\n\
               map r -> tile 0\nvar x: float[4] @ tile 1\nprogram main {\n  if r {\n    x = all_reduce(x, add)\n  }\n}\n";
    let d = dir("diverge", pir);
    let one =
        Command::new(env!("CARGO_BIN_EXE_poplar-run")).current_dir(&d).arg("graph.pir").output().unwrap();
    let many = Command::new(env!("CARGO_BIN_EXE_poprun"))
        .current_dir(&d)
        .args(["--num-instances", "3", "--num-replicas", "3", env!("CARGO_BIN_EXE_poplar-run"), "graph.pir"])
        .output()
        .unwrap();
    assert!(!one.status.success() && !many.status.success());
    let first = String::from_utf8_lossy(&one.stderr).lines().next().unwrap_or_default().to_string();
    assert!(first.contains("replica 0 finished its program while replica 1 waits"), "{first}");
    assert!(
        String::from_utf8_lossy(&many.stderr).starts_with(&first),
        "{}",
        String::from_utf8_lossy(&many.stderr)
    );
}

/// Per-replica streams (`--stream-replica R:NAME=DATA`): every instance
/// gets the whole command line and connects the replicas it holds; the
/// job prints and reads what one process does, on both devices.
#[test]
fn ranks_connect_the_streams_of_their_replicas() {
    if !have_mpirun() {
        return;
    }
    let pir = "target mk2(tiles_per_ipu = 2, replication_factor = 4)\nconst r: int = replication_index\nmap r -> tile 0\n\
               var y: int[3] @ tile 1\nstream \"s\": int[3] from host\nstream \"o\": int[3] to host\n\
               program main {\n  copy \"s\" -> y\n  y = y + r * 100\n  m = all_reduce(y, max)\n  print \"m\" m\n  \
               copy y -> \"o\"\n}\n";
    let d = dir("stream-replica", pir);
    let streams: Vec<String> = (0..4)
        .flat_map(|i| ["--stream-replica".to_string(), format!("{i}:s=[{i},{},{}]", 2 * i, 3 * i)])
        .collect();
    for device in ["sim", "cpu"] {
        let run = |instances: Option<u32>| {
            let mut cmd = match instances {
                None => Command::new(env!("CARGO_BIN_EXE_poplar-run")),
                Some(n) => {
                    let mut c = Command::new(env!("CARGO_BIN_EXE_poprun"));
                    c.args(["--num-instances", &n.to_string(), "--num-replicas", "4"]);
                    c.arg(env!("CARGO_BIN_EXE_poplar-run"));
                    c
                }
            };
            cmd.current_dir(&d).arg("graph.pir").args(["--device", device]).args(&streams);
            cmd.args(["--read", "o"]).output().expect("run")
        };
        let one = run(None);
        let text = String::from_utf8_lossy(&one.stdout);
        assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
        assert!(text.starts_with("m: {303,306,309}\n"), "{text}");
        assert!(text.contains("{101,102,103}") && text.contains("{202,204,206}"), "{text}");
        for n in [2, 4] {
            let many = run(Some(n));
            assert!(
                many.status.success(),
                "{n} ranks on {device}: {}",
                String::from_utf8_lossy(&many.stderr)
            );
            assert_eq!(String::from_utf8_lossy(&many.stdout), text, "{n} ranks on {device}");
        }
    }
}

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `sdk/tests/mpi_job.cpp` built against libpoplar with MPI (built here
/// with the cargo running us, in this test's profile), or why not.
fn cpp_job() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    // target/<profile>/deps/mpi-… -> target/<profile>
    let lib = exe.parent().and_then(Path::parent).ok_or("no target folder")?.to_path_buf();
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo.args(["build", "--quiet", "-p", "capi", "--lib", "--features", "mpi"]).current_dir(root());
    if lib.file_name().is_some_and(|n| n == "release") {
        cargo.arg("--release");
    }
    if let Some(target) = lib.parent() {
        cargo.env("CARGO_TARGET_DIR", target);
    }
    let o = cargo.output().map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(format!("cargo build -p capi --features mpi:\n{}", String::from_utf8_lossy(&o.stderr)));
    }
    let out = std::env::temp_dir().join(format!("poplar-mpi-job-{}", std::process::id()));
    let o = Command::new("g++")
        .args(["-std=c++11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root().join("sdk/include"))
        .arg(root().join("sdk/tests/mpi_job.cpp"))
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lpoplar", "-o"])
        .arg(&out)
        .output()
        .map_err(|e| format!("g++: {e}"))?;
    if !o.status.success() {
        return Err(format!("g++ mpi_job.cpp:\n{}", String::from_utf8_lossy(&o.stderr)));
    }
    Ok(out)
}

/// A C++ host program launched by `poprun` runs its instance's share of
/// the replicas: each instance prints what one process prints (results,
/// program output and the summary's cycles), and `poprun
/// --only-output-from-instance 0` shows it once.
#[test]
fn a_host_program_runs_its_share_of_the_replicas() {
    if !have_mpirun() {
        return;
    }
    if !Command::new("g++").arg("--version").output().is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: g++ absent");
        return;
    }
    let exe = cpp_job().unwrap();
    let one = Command::new(&exe).output().expect("run");
    let text = String::from_utf8_lossy(&one.stdout).into_owned();
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    assert!(text.contains("x of replica 1: 4.25 4.25") && text.contains("Total cycles"), "{text}");
    for n in [2u32, 4] {
        let many = Command::new(env!("CARGO_BIN_EXE_poprun"))
            .args([
                "--num-instances",
                &n.to_string(),
                "--num-replicas",
                "4",
                "--only-output-from-instance",
                "0",
            ])
            .arg(&exe)
            .output()
            .expect("poprun");
        assert!(many.status.success(), "{n} instances: {}", String::from_utf8_lossy(&many.stderr));
        assert_eq!(String::from_utf8_lossy(&many.stdout), text, "{n} instances");
    }
    // Every instance prints it, without the option.
    let all = Command::new(env!("CARGO_BIN_EXE_poprun"))
        .args(["--num-instances", "2", "--num-replicas", "4"])
        .arg(&exe)
        .output()
        .expect("poprun");
    assert!(all.status.success(), "{}", String::from_utf8_lossy(&all.stderr));
    assert_eq!(String::from_utf8_lossy(&all.stdout).matches("Total cycles").count(), 2);
    let _ = std::fs::remove_file(exe);
}

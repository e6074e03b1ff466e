//! Replicas and collectives (issue 27): the all-reduce of 4 KiB to 64 MiB
//! per replica, across replicas in one process and across MPI ranks
//! launched by `poprun`, beside a plain `MPI_Allreduce` of the same bytes
//! on the same machine (a C program built with `mpicc`, run by `mpirun`
//! with as many ranks). The ratio is the price of the ordered reduction
//! (every replica's input gathered, then summed in replica order) and of
//! the runtime around it.
//!
//! Each figure is the time of one collective: a program repeating it `k`
//! times, less the same program repeating nothing, over `k` (so process
//! start-up and loading cancel out). The in-process figures run on the
//! `cpu` device; ranks share the machine's cores (`--oversubscribe`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::tools::cargo;

const MPI_REFERENCE: &str = r#"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
/* argv: floats per rank, repetitions. Prints microseconds per MPI_Allreduce. */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long n = atol(argv[1]);
  int k = atoi(argv[2]);
  float *in = calloc(n, sizeof(float)), *out = calloc(n, sizeof(float));
  MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  for (int i = 0; i < k; ++i)
    MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  t = MPI_Wtime() - t;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf("%f\n", t / k * 1e6);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
"#;

pub fn run(quick: bool) -> Vec<(String, String)> {
    let sizes: &[u64] =
        if quick { &[4 << 10, 64 << 10] } else { &[4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20] };
    let replicas: &[u32] = if quick { &[2] } else { &[2, 4] };
    let dir = PathBuf::from("target/bench/replicas");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return vec![("replicas".into(), format!("failed: {e}"))];
    }
    let mpi = Mpi::prepare(&dir);
    let mut rows = weak_scaling(quick);
    match &mpi {
        Ok(m) => rows.extend(m.pod16(&dir, quick)),
        Err(e) => rows.push(("POD16 over processes".into(), e.clone())),
    }
    for &r in replicas {
        for &bytes in sizes {
            let k = repetitions(bytes, quick);
            let label = format!("all-reduce {} x {r} replicas", size_text(bytes));
            let local = match in_process(r, bytes, k) {
                Ok(us) => us,
                Err(e) => {
                    rows.push((label, format!("failed: {e}")));
                    continue;
                }
            };
            let reference = match &mpi {
                Ok(m) => m.allreduce(r, bytes, k),
                Err(e) => Err(e.clone()),
            };
            let ranks = match &mpi {
                Ok(m) => m.over_ranks(&dir, r, bytes, k),
                Err(e) => Err(e.clone()),
            };
            let text = match (&reference, &ranks) {
                (Ok(refr), Ok(over)) => format!(
                    "in one process {} ({:.2}x MPI_Allreduce); over {r} ranks {} ({:.2}x); MPI_Allreduce {r} ranks {}",
                    us_text(local),
                    local / refr,
                    us_text(*over),
                    over / refr,
                    us_text(*refr)
                ),
                (Ok(refr), Err(e)) => format!(
                    "in one process {} ({:.2}x MPI_Allreduce); over {r} ranks {e}; MPI_Allreduce {r} ranks {}",
                    us_text(local),
                    local / refr,
                    us_text(*refr)
                ),
                (Err(e), _) => format!("in one process {}; MPI: {e}", us_text(local)),
            };
            rows.push((label, text));
        }
    }
    rows
}

/// Weak scaling of a replicated tutorial 7 (its 10000x1000 multiply, split
/// 7, on mk2): r replicas in one process on the `cpu` device with all the
/// machine's cores shared among them, each doing one replica's whole work.
/// Ideal weak scaling keeps the time of one replica while cores last.
fn weak_scaling(quick: bool) -> Vec<(String, String)> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let path = Path::new("testdata/run/tut7_split/graph.pir").to_path_buf();
    let Ok(text) = std::fs::read_to_string(&path) else {
        return vec![("weak scaling".into(), format!("skipped: {} absent", path.display()))];
    };
    let counts: &[u32] = if quick { &[1, 2] } else { &[1, 2, 4, 8, 16] };
    let reps = if quick { 1 } else { 3 };
    let mut rows = Vec::new();
    let mut one = None;
    for &r in counts {
        let pir = text.replacen("\ntarget mk2\n", &format!("\ntarget mk2(replication_factor = {r})\n"), 1);
        let time = || -> Result<f64, String> {
            let (image, _, _) =
                compiler::driver::compile_source_for_run("<tut7>", pir.clone().into_bytes(), &path, false)?;
            let loaded = runtime::load_image(image).map_err(|e| e.to_string())?;
            let opts = runtime::EngineOptions { device: runtime::DeviceKind::Cpu, ..Default::default() };
            let mut e = runtime::Engine::new(loaded, &opts);
            e.run_named("init").map_err(|e| e.to_string())?;
            let mut samples = Vec::new();
            for _ in 0..reps {
                let t = Instant::now();
                e.run_named("multiply").map_err(|e| e.to_string())?;
                samples.push(t.elapsed().as_secs_f64());
            }
            samples.sort_by(f64::total_cmp);
            Ok(samples[samples.len() / 2])
        };
        let label = format!("weak scaling: tutorial 7 multiply, {r} replicas in one process ({cores} cores)");
        match time() {
            Ok(t) => {
                let base = *one.get_or_insert(t);
                rows.push((
                    label,
                    format!(
                        "{:.1} ms per multiply of all replicas; efficiency {:.2} (1 replica: {:.1} ms)",
                        t * 1e3,
                        base / t,
                        base * 1e3
                    ),
                ));
            }
            Err(e) => rows.push((label, format!("failed: {}", e.lines().next().unwrap_or("")))),
        }
    }
    rows
}

/// Repetitions for a size: enough that one run takes a good fraction of a
/// second.
fn repetitions(bytes: u64, quick: bool) -> u64 {
    let k = ((256u64 << 20) / bytes).clamp(4, 2000);
    if quick {
        (k / 20).max(2)
    } else {
        k
    }
}

fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

fn us_text(us: f64) -> String {
    if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.1} us")
    }
}

/// The program: `ar` all-reduces `x` `k` times, `empty` repeats nothing.
fn program(replicas: u32, bytes: u64, k: u64) -> String {
    format!(
        "target mk2(replication_factor = {replicas})\nvar x: float[{n}] @ linear\n\
         program ar {{\n  repeat {k} {{\n    x = all_reduce(x, add)\n  }}\n}}\n\
         program empty {{\n  repeat {k} {{\n  }}\n}}\n",
        n = bytes / 4
    )
}

/// Microseconds per all-reduce among `replicas` threads of this process.
fn in_process(replicas: u32, bytes: u64, k: u64) -> Result<f64, String> {
    let pir = program(replicas, bytes, k);
    let (image, _, _) = compiler::driver::compile_source_for_run(
        "<bench>",
        pir.into_bytes(),
        Path::new("replicas.pir"),
        false,
    )?;
    let loaded = runtime::load_image(image).map_err(|e| e.to_string())?;
    let opts = runtime::EngineOptions { device: runtime::DeviceKind::Cpu, ..Default::default() };
    let mut e = runtime::Engine::new(loaded, &opts);
    let mut time = |name: &str| -> Result<f64, String> {
        let t = Instant::now();
        e.run_named(name).map_err(|e| e.to_string())?;
        Ok(t.elapsed().as_secs_f64())
    };
    time("ar")?;
    let full = time("ar")?;
    let empty = time("empty")?;
    if full <= empty {
        return Err(format!("{k} all-reduces took no longer than {k} empty iterations"));
    }
    Ok((full - empty) / k as f64 * 1e6)
}

/// The MPI side: the reference program and the MPI build of `poplar-run`.
struct Mpi {
    reference: PathBuf,
    poprun: PathBuf,
    poplar_run: PathBuf,
    compile: PathBuf,
}

impl Mpi {
    fn prepare(dir: &Path) -> Result<Mpi, String> {
        if !Command::new("mpirun").arg("--version").output().is_ok_and(|o| o.status.success()) {
            return Err("skipped: mpirun absent".into());
        }
        let src = dir.join("allreduce.c");
        std::fs::write(&src, MPI_REFERENCE).map_err(|e| e.to_string())?;
        let reference = dir.join("allreduce");
        let st = Command::new("mpicc").args(["-O2", "-o"]).arg(&reference).arg(&src).status();
        if !st.is_ok_and(|s| s.success()) {
            return Err("skipped: mpicc could not build the reference".into());
        }
        cargo(&["build", "--release", "-q", "-p", "poplar-run", "--features", "mpi", "-p", "compiler"])
            .map_err(|e| format!("skipped: {e}"))?;
        let root = std::env::current_dir().map_err(|e| e.to_string())?;
        Ok(Mpi {
            reference,
            poprun: root.join("target/release/poprun"),
            poplar_run: root.join("target/release/poplar-run"),
            compile: root.join("target/release/poplar-compile"),
        })
    }

    fn mpirun(&self) -> Command {
        let mut c = Command::new("mpirun");
        if std::fs::metadata("/proc/self").is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0) {
            c.arg("--allow-run-as-root");
        }
        c.arg("--oversubscribe");
        c
    }

    /// Microseconds per `MPI_Allreduce` of `bytes` among `ranks` ranks.
    fn allreduce(&self, ranks: u32, bytes: u64, k: u64) -> Result<f64, String> {
        let o = self
            .mpirun()
            .args(["-np", &ranks.to_string()])
            .arg(&self.reference)
            .args([(bytes / 4).to_string(), k.to_string()])
            .output()
            .map_err(|e| e.to_string())?;
        String::from_utf8_lossy(&o.stdout)
            .trim()
            .parse()
            .map_err(|_| format!("MPI_Allreduce reference failed: {}", String::from_utf8_lossy(&o.stderr)))
    }

    /// A POD16's worth of IPUs: 16 replicas of tutorial 7 on one mk2 IPU
    /// each (23,552 tiles in all), run over 1, 2 and 4 processes: wall
    /// time of the job (start-up and loading included) and the peak
    /// resident memory of its largest process; then a POD64 (64 replicas)
    /// projected from them.
    fn pod16(&self, dir: &Path, quick: bool) -> Vec<(String, String)> {
        let replicas = if quick { 2 } else { 16 };
        let src = std::env::current_dir().unwrap_or_default().join("testdata/run/tut7_split");
        let run = || -> Result<Vec<(u32, f64, u64)>, String> {
            let text = std::fs::read_to_string(src.join("graph.pir")).map_err(|e| e.to_string())?;
            let pir = text.replacen(
                "\ntarget mk2\n",
                &format!("\ntarget mk2(replication_factor = {replicas})\n"),
                1,
            );
            // Beside its codelets, which the compiler finds by relative path.
            let path = src.join(format!(".pod{replicas}-{}.pir", std::process::id()));
            let exe = dir.join(format!("pod{replicas}.exe"));
            std::fs::write(&path, pir).map_err(|e| e.to_string())?;
            let o = Command::new(&self.compile).arg(&path).arg("-o").arg(&exe).output();
            let _ = std::fs::remove_file(&path);
            let o = o.map_err(|e| e.to_string())?;
            if !o.status.success() {
                return Err(format!("poplar-compile failed: {}", String::from_utf8_lossy(&o.stderr)));
            }
            let mut out = Vec::new();
            for n in [1u32, 2, 4].into_iter().filter(|n| replicas % n == 0) {
                let t = Instant::now();
                let o = Command::new(&self.poprun)
                    .args(["--num-instances", &n.to_string(), "--num-replicas", &replicas.to_string()])
                    .args(["/usr/bin/time", "-f", "peak-kib %M"])
                    .arg(&self.poplar_run)
                    .arg(&exe)
                    .args(["--device", "cpu", "--run", "init", "--run", "multiply"])
                    .output()
                    .map_err(|e| e.to_string())?;
                let wall = t.elapsed().as_secs_f64();
                let err = String::from_utf8_lossy(&o.stderr);
                if !o.status.success() {
                    return Err(format!("poprun -n {n} failed: {}", err.lines().next().unwrap_or("")));
                }
                let peak =
                    err.lines().filter_map(|l| l.strip_prefix("peak-kib ")?.trim().parse::<u64>().ok()).max();
                out.push((n, wall, peak.unwrap_or(0)));
            }
            Ok(out)
        };
        if !Path::new("/usr/bin/time").exists() {
            return vec![("POD16 over processes".into(), "skipped: /usr/bin/time absent".into())];
        }
        match run() {
            Err(e) => vec![("POD16 over processes".into(), format!("failed: {e}"))],
            Ok(points) => {
                let mut rows: Vec<(String, String)> = points
                    .iter()
                    .map(|(n, wall, kib)| {
                        (
                            format!("{replicas} replicas of tutorial 7 on mk2 ({} tiles) over {n} processes", replicas * 1472),
                            format!("{wall:.2} s (init + multiply, start-up included); peak {:.0} MiB in its largest process", *kib as f64 / 1024.0),
                        )
                    })
                    .collect();
                // Memory per process = a fixed part + its replicas' share.
                if let (Some(a), Some(b)) = (points.first(), points.last()) {
                    let (ra, rb) = (f64::from(replicas / a.0), f64::from(replicas / b.0));
                    if ra > rb {
                        let per = (a.2 as f64 - b.2 as f64) / (ra - rb) / 1024.0;
                        let base = b.2 as f64 / 1024.0 - rb * per;
                        rows.push((
                            "POD64 on paper: 64 replicas of tutorial 7 (94,208 tiles)".into(),
                            format!(
                                "from the points above, {per:.0} MiB per replica + {base:.0} MiB per process: {:.1} GiB in one process, {:.0} MiB per process over 16, {:.0} MiB over 64",
                                (base + 64.0 * per) / 1024.0,
                                base + 4.0 * per,
                                base + per
                            ),
                        ));
                    }
                }
                rows
            }
        }
    }

    /// Microseconds per all-reduce of replicas on `ranks` ranks, one each.
    fn over_ranks(&self, dir: &Path, ranks: u32, bytes: u64, k: u64) -> Result<f64, String> {
        let pir = dir.join(format!("ar-{ranks}-{bytes}.pir"));
        let exe = dir.join(format!("ar-{ranks}-{bytes}.exe"));
        std::fs::write(&pir, program(ranks, bytes, k)).map_err(|e| e.to_string())?;
        let st =
            Command::new(&self.compile).arg(&pir).arg("-o").arg(&exe).output().map_err(|e| e.to_string())?;
        if !st.status.success() {
            return Err(format!("poplar-compile failed: {}", String::from_utf8_lossy(&st.stderr)));
        }
        let time = |name: &str| -> Result<f64, String> {
            let t = Instant::now();
            let o = Command::new(&self.poprun)
                .args(["--num-instances", &ranks.to_string(), "--num-replicas", &ranks.to_string()])
                .arg(&self.poplar_run)
                .arg(&exe)
                .args(["--device", "cpu", "--run", name])
                .output()
                .map_err(|e| e.to_string())?;
            if !o.status.success() {
                return Err(format!("poprun failed: {}", String::from_utf8_lossy(&o.stderr)));
            }
            Ok(t.elapsed().as_secs_f64())
        };
        // The fastest of three runs of each, since process start-up is
        // noise; a difference that start-up hides is not a figure.
        let fastest = |name: &str| -> Result<f64, String> {
            (0..3).map(|_| time(name)).try_fold(f64::INFINITY, |m, t| Ok(m.min(t?)))
        };
        let empty = fastest("empty")?;
        let full = fastest("ar")?;
        if full <= empty {
            return Err(format!(
                "not measured: {k} all-reduces are lost in the jobs' start-up ({:.0} ms)",
                empty * 1e3
            ));
        }
        Ok((full - empty) / k as f64 * 1e6)
    }
}

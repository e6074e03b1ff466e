//! Library operation benchmarks (issue 12): `v = a + b` over 16M floats on
//! 1,472 tiles against a native Rust loop, `matmul` 1024x1024x1024 on `cpu`
//! against numpy's `@` with the same thread count, and tutorial 4's two
//! products on `sim` (mk2): modelled cycles and the fraction of the IPU's
//! f32 peak they imply.
//!
//! The graphs are PIR text compiled in-process; numpy runs as a child
//! Python (`tools::python_with`; skipped with a note when none has numpy).

use std::process::Command;
use std::time::Instant;

use runtime::{DeviceKind, Engine, EngineOptions};

use crate::tools::Stats;

/// The Mk2 IPU's f32 peak per tile and cycle: 16 multiply-adds (32 flops),
/// which at 1,472 tiles and 1.33 GHz is Graphcore's 62.5 TFLOPS.
const MK2_F32_FLOPS_PER_TILE_CYCLE: f64 = 32.0;

/// Figure rows: (what, value).
pub fn run(quick: bool) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    add(&mut rows, quick, threads);
    matmul(&mut rows, quick, threads);
    tutorial4(&mut rows, quick);
    rows
}

pub(crate) fn compile(name: &str, pir: &str) -> Result<runtime::linker::image::Image, String> {
    let dir = std::env::temp_dir().join(format!("bench_ops_{name}_{}", std::process::id()));
    let r = std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(dir.join("graph.pir"), pir))
        .map_err(|e| e.to_string())
        .and_then(|_| compiler::compile_for_run(&dir.join("graph.pir")).map(|(i, _)| i));
    let _ = std::fs::remove_dir_all(&dir);
    r.map_err(|e| e.lines().next().unwrap_or("").to_string())
}

pub(crate) fn engine(image: runtime::linker::image::Image, device: DeviceKind, threads: usize) -> Engine {
    let loaded = runtime::load_image(image).expect("load");
    Engine::new(loaded, &EngineOptions { device, threads, ..Default::default() })
}

fn time_runs(e: &mut Engine, reps: usize) -> Stats {
    Stats::of(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                e.run(0).expect("run");
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

fn add(rows: &mut Vec<(String, String)>, quick: bool, threads: usize) {
    let n: u64 = if quick { 1 << 20 } else { 16 << 20 };
    let reps = if quick { 3 } else { 10 };
    let pir = format!(
        "target mk2\nvar a: float[{n}] @ linear = 1.5\nvar b: float[{n}] @ linear = 2.0\n\
         host_read \"v\" <- v\nprogram main {{ v = a + b }}\n"
    );
    let image = match compile("add", &pir) {
        Ok(i) => i,
        Err(e) => {
            rows.push(("ops: v = a + b".into(), format!("skipped: cannot compile ({e})")));
            return;
        }
    };
    let mut e = engine(image, DeviceKind::Cpu, threads);
    e.run(0).expect("add");
    let v: Vec<f32> = e.read_values("v").expect("read v");
    assert!(v.iter().all(|&x| x == 3.5), "v = a + b computed a wrong result");
    let device = time_runs(&mut e, reps);
    let a = vec![1.5f32; n as usize];
    let b = vec![2.0f32; n as usize];
    let mut out = vec![0f32; n as usize];
    let chunk = (n as usize).div_ceil(threads);
    let native = Stats::of(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                std::thread::scope(|s| {
                    for ((o, x), y) in out.chunks_mut(chunk).zip(a.chunks(chunk)).zip(b.chunks(chunk)) {
                        s.spawn(move || o.iter_mut().zip(x).zip(y).for_each(|((o, x), y)| *o = x + y));
                    }
                });
                t.elapsed().as_secs_f64()
            })
            .collect(),
    );
    rows.push((
        format!("ops: v = a + b, {n} floats on 1,472 tiles, cpu ({threads} threads)"),
        format!("{} ({:.2} GB/s)", device.ms(), 12.0 * n as f64 / device.median / 1e9),
    ));
    rows.push((format!("ops: native Rust v[i] = a[i] + b[i] ({threads} threads)"), native.ms()));
    rows.push(("ops: v = a + b speed / native".into(), format!("{:.2}x", native.median / device.median)));
}

/// The benchmark's product: `c = matmul(a, b)` of `s x s` floats.
pub(crate) fn matmul_pir(s: u64) -> String {
    format!(
        "target mk2\nvar a: float[{s}, {s}] @ linear = 0.5\nvar b: float[{s}, {s}] @ linear = 0.25\n\
         host_read \"c\" <- c\nprogram main {{ c = matmul(a, b) }}\n"
    )
}

/// Times the compiled `s x s` product on `cpu` with `threads` threads
/// against numpy's with as many BLAS threads, in `blocks` alternating
/// blocks, after checking the result: the device's seconds per product,
/// and numpy's (`Err` says why there are none).
pub(crate) fn matmul_vs_numpy(
    image: &runtime::linker::image::Image,
    s: u64,
    threads: usize,
    blocks: usize,
) -> (Stats, Result<Stats, &'static str>) {
    let mut e = engine(image.clone(), DeviceKind::Cpu, threads);
    e.run(0).expect("matmul");
    let c: Vec<f32> = e.read_values("c").expect("read c");
    let want = 0.125 * s as f32;
    assert!(c.iter().all(|&x| x == want), "matmul computed a wrong result");
    // The device's runs alternate with numpy's in blocks (numpy in a
    // child that stays up), so that a drift of the machine's speed during
    // the benchmark falls on both alike. Each block starts after a pause
    // (BLAS worker threads spin for a while after a product and would take
    // the cores from the device's runs) with one untimed product, so that
    // neither side is timed waking its threads.
    let mut numpy = Numpy::start(s, threads);
    let started = numpy.is_some();
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..blocks {
        std::thread::sleep(SETTLE);
        e.run(0).expect("run");
        for _ in 0..BLOCK {
            let t = Instant::now();
            e.run(0).expect("run");
            ours.push(t.elapsed().as_secs_f64());
        }
        if let Some(np) = numpy.as_mut() {
            std::thread::sleep(SETTLE);
            match np.block() {
                Some(x) => theirs.extend(x),
                None => numpy = None,
            }
        }
    }
    let theirs = match (started, numpy.is_some()) {
        (false, _) => Err("skipped: no Python with numpy (POPLAR_PYTHON names one)"),
        (true, false) => Err("skipped: the numpy child stopped answering part way"),
        (true, true) => Ok(Stats::of(theirs)),
    };
    (Stats::of(ours), theirs)
}

fn matmul(rows: &mut Vec<(String, String)>, quick: bool, threads: usize) {
    let s: u64 = if quick { 256 } else { 1024 };
    let blocks = if quick { 1 } else { 4 };
    let t = Instant::now();
    let image = match compile("matmul", &matmul_pir(s)) {
        Ok(i) => i,
        Err(e) => {
            rows.push(("ops: matmul".into(), format!("skipped: cannot compile ({e})")));
            return;
        }
    };
    let compile_s = t.elapsed().as_secs_f64();
    let (device, numpy) = matmul_vs_numpy(&image, s, threads, blocks);
    rows.push((
        format!("ops: matmul {s}x{s}x{s} float, cpu ({threads} threads)"),
        format!(
            "{} ({:.2} GFLOP/s); compile {:.2} s",
            device.ms(),
            2.0 * (s * s * s) as f64 / device.median / 1e9,
            compile_s
        ),
    ));
    let np = match numpy {
        Ok(np) => np,
        Err(why) => {
            rows.push(("ops: numpy a @ b".into(), why.into()));
            return;
        }
    };
    rows.push((format!("ops: numpy a @ b, same size ({threads} threads, runs alternating)"), np.ms()));
    rows.push(("ops: matmul speed / numpy".into(), format!("{:.3}x", np.median / device.median)));
}

/// The pause before each block of the alternating comparison.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(300);

/// Timed products in a block of the alternating comparison.
const BLOCK: usize = 3;

/// numpy's `a @ b` in a child Python with `threads` BLAS threads: for
/// each line it reads, one untimed product, then `BLOCK` timed ones.
struct Numpy {
    child: std::process::Child,
    to: std::process::ChildStdin,
    from: std::io::BufReader<std::process::ChildStdout>,
}

impl Numpy {
    fn start(s: u64, threads: usize) -> Option<Numpy> {
        use std::process::Stdio;
        let script = format!(
            "import sys, time, numpy as np\na = np.full(({s}, {s}), 0.5, np.float32)\n\
             b = np.full(({s}, {s}), 0.25, np.float32)\nfor _ in sys.stdin:\n    a @ b\n    \
             for _ in range({BLOCK}):\n        t = time.perf_counter(); a @ b; print(time.perf_counter() - t)\n    \
             sys.stdout.flush()\n"
        );
        let n = threads.to_string();
        let python = crate::tools::python_with("numpy")?;
        let mut child = Command::new(python)
            .arg("-c")
            .arg(&script)
            .env("OMP_NUM_THREADS", &n)
            .env("OPENBLAS_NUM_THREADS", &n)
            .env("MKL_NUM_THREADS", &n)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let to = child.stdin.take()?;
        let from = std::io::BufReader::new(child.stdout.take()?);
        Some(Numpy { child, to, from })
    }

    /// One block's seconds per product, or `None` when the child failed.
    fn block(&mut self) -> Option<Vec<f64>> {
        use std::io::{BufRead, Write};
        writeln!(self.to).ok()?;
        self.to.flush().ok()?;
        (0..BLOCK)
            .map(|_| {
                let mut line = String::new();
                self.from.read_line(&mut line).ok()?;
                line.trim().parse().ok()
            })
            .collect()
    }
}

impl Drop for Numpy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tutorial4(rows: &mut Vec<(String, String)>, quick: bool) {
    let (m, k, n, p) = if quick { (90, 60, 30, 20) } else { (900, 600, 300, 200) };
    let pir = format!(
        "target mk2\nvar m1: float[{m}, {k}] @ linear = 0.5\nvar m2: float[{k}, {n}] @ linear = 0.25\n\
         var m3: float[{n}, {p}] @ linear = 2.0\nhost_read \"m5\" <- m5\n\
         program main {{\n  m4 = matmul(m1, m2)\n  m5 = matmul(m4, m3)\n}}\n"
    );
    let image = match compile("tut4", &pir) {
        Ok(i) => i,
        Err(e) => {
            rows.push(("ops: tutorial 4".into(), format!("skipped: cannot compile ({e})")));
            return;
        }
    };
    let clock = image.target.clock_mhz;
    let tiles = image.target.tiles_per_ipu * image.target.ipus;
    let mut e = engine(image, DeviceKind::Sim, 0);
    e.run(0).expect("tutorial 4");
    let cycles = e.totals().cycles;
    let flops = 2.0 * (m * k * n + m * n * p) as f64;
    let peak = MK2_F32_FLOPS_PER_TILE_CYCLE * tiles as f64;
    rows.push((
        format!("ops: tutorial 4 ({m}x{k} . {k}x{n} . {n}x{p}), sim mk2: modelled cycles"),
        format!("{cycles} ({:.1} µs at {clock} MHz)", cycles as f64 / clock as f64),
    ));
    rows.push((
        "ops: tutorial 4 fraction of the mk2 f32 peak (32 flops/tile/cycle)".into(),
        format!(
            "{:.2}% ({:.0} flops/cycle of {:.0})",
            100.0 * flops / cycles as f64 / peak,
            flops / cycles as f64,
            peak
        ),
    ));
}

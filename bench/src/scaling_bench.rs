//! Thread scaling (issue 28): `bench --scaling` measures, at 1, 2, 4, …
//! threads up to the machine's cores (or the counts `--threads` lists),
//! the runtime figures that should scale, each beside its reference at the
//! same thread count: `matmul` 1024^3 on `cpu` against numpy's `@` with as
//! many BLAS threads, tutorial 7's multiply against the native matrix-vector
//! product, an empty compute set's cost on `sim` and `cpu`, and the three
//! exchange patterns against host memcpy; then `poplar-compile` on the
//! generated 1M- and 10M-vertex graphs (wall time and peak memory).
//!
//! It is made to run where there is no toolchain: binaries it starts come
//! from `--bin-dir` (`poplar-compile`, `gen_big`), nothing is built, the
//! commit comes from `POPLAR_COMMIT` when git is absent, and `--budget
//! SECONDS` skips what would not finish in the time left (the 10M compile
//! first). `--quick` shrinks every size, for a trial run. The result is one
//! markdown section, written to `--out PATH` (default: printed only).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use runtime::DeviceKind;

use crate::tools::{self, Stats};

/// What `--scaling` was asked.
pub struct Options {
    pub quick: bool,
    /// Thread counts; empty: powers of two up to the cores, and the cores.
    pub threads: Vec<usize>,
    /// Where `poplar-compile` and `gen_big` are; `None`: build them.
    pub bin_dir: Option<PathBuf>,
    /// Seconds the whole run may take; `None`: no limit.
    pub budget: Option<f64>,
}

/// The default thread counts: 1, 2, 4, … below `cores`, and `cores`.
pub fn thread_counts(cores: usize) -> Vec<usize> {
    let mut v: Vec<usize> =
        std::iter::successors(Some(1usize), |&t| Some(t * 2)).take_while(|&t| t < cores).collect();
    v.push(cores.max(1));
    v
}

/// One row of the scaling table: a figure per thread count.
struct Row {
    what: String,
    cells: Vec<String>,
}

impl Row {
    fn new(what: impl Into<String>) -> Row {
        Row { what: what.into(), cells: Vec::new() }
    }
}

/// Runs the scaling benchmarks; returns the markdown section, which it
/// also writes to `out` (when given) after each stage, so that a run cut
/// short leaves what it measured.
pub fn run(opts: &Options, out: Option<&Path>) -> String {
    let start = Instant::now();
    let left = |need: f64| opts.budget.is_none_or(|b| b - start.elapsed().as_secs_f64() >= need);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let counts = if opts.threads.is_empty() { thread_counts(cores) } else { opts.threads.clone() };
    let quick = opts.quick;

    let mut head = String::new();
    let cpu =
        crate::machine::describe().into_iter().find(|(k, _)| k == "CPU").map_or("unknown".into(), |x| x.1);
    let _ = writeln!(head, "## Thread scaling: {cpu}, {cores} cores\n");
    let _ = writeln!(
        head,
        "Written by `bench --scaling`{}.\n",
        if quick { " --quick (small sizes)" } else { "" }
    );
    for (k, v) in crate::machine::describe() {
        if k != "rustc" && k != "reference compiler" {
            let _ = writeln!(head, "- {k}: {v}");
        }
    }
    let python = tools::python_with("numpy");
    let _ = writeln!(
        head,
        "- numpy: {}",
        python.as_ref().map_or("none found".to_string(), |p| p.display().to_string())
    );
    let _ = writeln!(
        head,
        "- thread counts: {counts:?} (numpy: OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = the same)"
    );

    let mut table =
        Table { counts: counts.clone(), rows: Vec::new(), notes: Vec::new(), compile: Vec::new() };
    type Stage = fn(&mut Table, bool);
    let stages: [(&str, Stage); 4] = [
        ("matmul", matmul),
        ("tutorial 7", tutorial7),
        ("empty compute sets", superstep),
        ("exchange", exchange),
    ];
    let save = |md: &str| {
        if let Some(p) = out {
            if let Err(e) = std::fs::write(p, md) {
                eprintln!("bench: cannot write {}: {e}", p.display());
            }
        }
    };
    for (i, (name, stage)) in stages.iter().enumerate() {
        eprintln!("bench: scaling: {name} …");
        stage(&mut table, quick);
        save(&table.render(&head, Some(stages.get(i + 1).map_or("compile", |s| s.0)), start));
    }
    eprintln!("bench: scaling: compile …");
    table.compile = compile(opts, &left);
    let md = table.render(&head, None, start);
    save(&md);
    md
}

/// What the stages measured so far.
struct Table {
    counts: Vec<usize>,
    rows: Vec<Row>,
    notes: Vec<String>,
    compile: Vec<(String, String)>,
}

impl Table {
    /// The section; `next` names the stage not yet run, if any.
    fn render(&self, head: &str, next: Option<&str>, start: Instant) -> String {
        let mut out = head.to_string();
        out.push_str("\n| benchmark |");
        for t in &self.counts {
            let _ = write!(out, " {t} thread{} |", if *t == 1 { "" } else { "s" });
        }
        out.push_str("\n|---|");
        for _ in &self.counts {
            out.push_str("---|");
        }
        out.push('\n');
        for r in &self.rows {
            let _ = write!(out, "| {} |", r.what);
            for c in &r.cells {
                let _ = write!(out, " {c} |");
            }
            out.push('\n');
        }
        for n in &self.notes {
            let _ = writeln!(out, "\n{n}");
        }
        if !self.compile.is_empty() {
            out.push_str("\n| benchmark | figure |\n|---|---|\n");
            for (k, v) in &self.compile {
                let _ = writeln!(out, "| {k} | {v} |");
            }
        }
        match next {
            Some(n) => {
                let _ = writeln!(
                    out,
                    "\nPartial: stopped before {n}, {:.0} s in.",
                    start.elapsed().as_secs_f64()
                );
            }
            None => {
                let _ = writeln!(out, "\nTotal time of this run: {:.0} s.", start.elapsed().as_secs_f64());
            }
        }
        out
    }
}

fn speedup(row: &[f64]) -> Vec<String> {
    row.iter().map(|s| format!("{:.2}x", row[0] / s)).collect()
}

fn matmul(table: &mut Table, quick: bool) {
    let (rows, notes, counts) = (&mut table.rows, &mut table.notes, &table.counts);
    let s: u64 = if quick { 256 } else { 1024 };
    let blocks = if quick { 1 } else { 3 };
    let image = match crate::ops_bench::compile("matmul", &crate::ops_bench::matmul_pir(s)) {
        Ok(i) => i,
        Err(e) => {
            notes.push(format!("matmul skipped: cannot compile ({e})"));
            return;
        }
    };
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let mut why = None;
    for &t in counts.iter() {
        let (d, np) = crate::ops_bench::matmul_vs_numpy(&image, s, t, blocks);
        ours.push(d.median);
        match np {
            Ok(np) => theirs.push(np.median),
            Err(w) => why = Some(w),
        }
    }
    let flops = 2.0 * (s * s * s) as f64;
    let mut r = Row::new(format!("matmul {s}^3 float, cpu: ms per product (median)"));
    r.cells = ours.iter().map(|x| format!("{:.2}", x * 1e3)).collect();
    rows.push(r);
    let mut r = Row::new("matmul: GFLOP/s");
    r.cells = ours.iter().map(|x| format!("{:.1}", flops / x / 1e9)).collect();
    rows.push(r);
    let mut r = Row::new("matmul: speed-up over 1 thread");
    r.cells = speedup(&ours);
    rows.push(r);
    if theirs.len() == ours.len() {
        let mut r = Row::new("numpy a @ b, same size: ms (runs alternating)");
        r.cells = theirs.iter().map(|x| format!("{:.2}", x * 1e3)).collect();
        rows.push(r);
        let mut r = Row::new("numpy: speed-up over 1 thread");
        r.cells = speedup(&theirs);
        rows.push(r);
        let mut r = Row::new("matmul speed / numpy");
        r.cells = ours.iter().zip(&theirs).map(|(o, t)| format!("{:.3}x", t / o)).collect();
        rows.push(r);
    } else {
        notes.push(format!("numpy {}", why.unwrap_or("skipped")));
    }
}

fn tutorial7(table: &mut Table, quick: bool) {
    let (rows, notes, counts) = (&mut table.rows, &mut table.notes, &table.counts);
    let image = match crate::runtime_bench::variant("tut7_split") {
        Ok(i) => i,
        Err(e) => {
            notes.push(format!("tutorial 7 skipped: cannot compile ({})", e.lines().next().unwrap_or("")));
            return;
        }
    };
    let reps = if quick { 3 } else { 10 };
    let m: Vec<f32> = (0..10000u32)
        .flat_map(|r| (0..1000u32).map(move |c| (((r * 7 + c * 3) % 11) as i32 - 5) as f32))
        .collect();
    let x: Vec<f32> = (0..1000u32).map(|c| ((c % 5) as i32 - 2) as f32).collect();
    let (mut ours, mut native) = (Vec::new(), Vec::new());
    for &t in counts.iter() {
        let loaded = runtime::load_image(image.clone()).expect("load");
        let mut e = runtime::Engine::new(
            loaded,
            &runtime::EngineOptions { device: DeviceKind::Cpu, threads: t, ..Default::default() },
        );
        e.run_named("init").expect("init");
        e.run_named("multiply").expect("multiply");
        let d = Stats::of(
            (0..reps)
                .map(|_| {
                    let s = Instant::now();
                    e.run_named("multiply").expect("multiply");
                    s.elapsed().as_secs_f64()
                })
                .collect(),
        );
        ours.push(d.median);
        native.push(Stats::of((0..reps).map(|_| crate::runtime_bench::native(&m, &x, t).1).collect()).median);
    }
    let mut r = Row::new("tutorial 7 multiply (10000x1000, split 7), cpu: ms (median)");
    r.cells = ours.iter().map(|x| format!("{:.2}", x * 1e3)).collect();
    rows.push(r);
    let mut r = Row::new("tutorial 7: speed-up over 1 thread");
    r.cells = speedup(&ours);
    rows.push(r);
    let mut r = Row::new("native Rust matvec, same data: ms");
    r.cells = native.iter().map(|x| format!("{:.2}", x * 1e3)).collect();
    rows.push(r);
    let mut r = Row::new("native matvec: speed-up over 1 thread");
    r.cells = speedup(&native);
    rows.push(r);
}

fn superstep(table: &mut Table, quick: bool) {
    let (rows, counts) = (&mut table.rows, &table.counts);
    let repeats = if quick { 200 } else { 2000 };
    let image = crate::runtime_bench::empty_vertices(1472, 1, repeats);
    for device in [DeviceKind::Cpu, DeviceKind::Sim] {
        let mut r = Row::new(format!(
            "empty compute set (1 empty vertex x 1,472 tiles), {}: µs per compute set (median of 3)",
            device.name()
        ));
        for &t in counts.iter() {
            let s = Stats::of((0..3).map(|_| crate::runtime_bench::time_run(&image, device, t)).collect());
            r.cells.push(format!("{:.1}", s.median * 1e6 / repeats as f64));
        }
        rows.push(r);
    }
}

fn exchange(table: &mut Table, quick: bool) {
    let (rows, notes, counts) = (&mut table.rows, &mut table.notes, &table.counts);
    let reps = if quick { 3 } else { 11 };
    for p in crate::exchange_bench::patterns(quick) {
        let image = match crate::exchange_bench::build(&p) {
            Ok(i) => i,
            Err(e) => {
                notes.push(format!("exchange {} skipped: {e}", p.name));
                continue;
            }
        };
        let memcpy = crate::memcpy_bench::bandwidth(p.bytes as usize, reps);
        let mut r = Row::new(format!(
            "exchange {}, {} ({:.1} MB), cpu: GB/s (of 1-thread memcpy's {:.2} GB/s)",
            p.name,
            p.what,
            p.bytes as f64 / 1e6,
            memcpy / 1e9
        ));
        for &t in counts.iter() {
            let s = crate::exchange_bench::time(&image, t, reps);
            let rate = p.bytes as f64 / s.median;
            r.cells.push(format!("{:.2} ({:.2})", rate / 1e9, rate / memcpy));
        }
        rows.push(r);
    }
}

/// `poplar-compile` on the generated graphs: 1M vertices, then 10M when
/// the budget leaves time for it (estimated from the 1M run).
fn compile(opts: &Options, left: &dyn Fn(f64) -> bool) -> Vec<(String, String)> {
    let (compiler, gen) = match &opts.bin_dir {
        Some(d) => (d.join("poplar-compile"), d.join("gen_big")),
        None => {
            let built =
                tools::cargo(&["build", "--release", "-q", "-p", "compiler", "--bin", "poplar-compile"])
                    .and_then(|_| {
                        tools::cargo(&["build", "--release", "-q", "-p", "ir", "--example", "gen_big"])
                    });
            if let Err(e) = built {
                return vec![("poplar-compile".into(), format!("skipped: {e}"))];
            }
            (PathBuf::from("target/release/poplar-compile"), PathBuf::from("target/release/examples/gen_big"))
        }
    };
    let dir = std::env::temp_dir().join(format!("poplar-scaling-{}", std::process::id()));
    let mut rows = Vec::new();
    let sizes: [u64; 2] = if opts.quick { [10_000, 100_000] } else { [1_000_000, 10_000_000] };
    // The last size compiled: vertices, compile wall time, and that plus
    // the graph's generation.
    let mut last: Option<(u64, f64, f64)> = None;
    for n in sizes {
        // A size 10x the last takes about 12x its time (generation and
        // compile): go on only with room to spare.
        if let Some((_, _, total)) = last {
            if !left(15.0 * total + 10.0) {
                rows.push((
                    format!("poplar-compile {n} vertices"),
                    "skipped: not enough of the budget left".into(),
                ));
                continue;
            }
        }
        let t = Instant::now();
        let r = std::fs::create_dir_all(&dir)
            .and_then(|_| std::fs::write(dir.join("big_codelets.cpp"), crate::compile_bench::BIG_CODELETS))
            .map_err(|e| e.to_string())
            .and_then(|_| tools::generate_big_with(&gen, &dir, n))
            .and_then(|pir| {
                let gen_s = t.elapsed().as_secs_f64();
                let exe = dir.join("big.exe");
                let m = tools::timed(&compiler, &[pir.as_os_str(), "-o".as_ref(), exe.as_os_str()]);
                let _ = std::fs::remove_file(&pir);
                let _ = std::fs::remove_file(&exe);
                m.map(|m| (gen_s, m))
            });
        match r {
            Ok((gen_s, m)) => {
                rows.push((
                    format!("poplar-compile {n} vertices: wall, one run"),
                    format!(
                        "{:.2} s ({:.0} vertices/s); graph generated in {gen_s:.2} s",
                        m.wall_s,
                        n as f64 / m.wall_s
                    ),
                ));
                rows.push((
                    format!("poplar-compile {n} vertices: peak RSS"),
                    m.peak_kib.map_or("unknown".into(), |k| format!("{:.0} MiB", k as f64 / 1024.0)),
                ));
                if let Some((n0, w0, _)) = last {
                    rows.push((
                        format!("poplar-compile growth {n}/{n0} vertices (linear = {}x)", n / n0),
                        format!("{:.1}x", m.wall_s / w0.max(1e-9)),
                    ));
                }
                last = Some((n, m.wall_s, m.wall_s + gen_s));
            }
            Err(e) => {
                rows.push((
                    format!("poplar-compile {n} vertices"),
                    format!("failed: {}", e.lines().next().unwrap_or("")),
                ));
                break;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    rows
}

//! Runtime benchmarks: `cpu` against native Rust on tutorial 7's 10000x1000
//! split matrix-vector product, superstep overhead on 1,472 tiles, `sim`
//! against `cpu`, loading a 1M-vertex image, and the simulator's fidelity
//! on tutorial 7 (modelled cycles against Poplar's published figures,
//! reported as ratios, never tuned).
//!
//! Images for the overhead and load figures are built directly (vertex code
//! of two or three x86-64 instructions), so they need no compiler; the
//! tutorial 7 figures compile `testdata/run/tut7_split/graph.pir` and skip
//! with a note when the compiler cannot.

use std::path::Path;
use std::time::Instant;

use runtime::linker::gp::VertexBase;
use runtime::linker::image::*;
use runtime::{DeviceKind, Engine, EngineOptions};

use crate::tools::Stats;

/// Figure rows: (what, value).
pub fn run(quick: bool) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    rows.push(("runtime: host threads".into(), threads.to_string()));
    superstep(&mut rows, quick);
    load_time(&mut rows, quick);
    tutorial7(&mut rows, quick, threads);
    elementwise(&mut rows, quick, threads);
    rows
}

fn target(tiles: u32) -> Target {
    Target {
        name: "mk2".into(),
        ipus: 1,
        tiles_per_ipu: tiles,
        bytes_per_tile: 638_976,
        workers: 6,
        clock_mhz: 1330.0,
        exchange_bytes_per_cycle: 4,
        sync_cycles: 100,
        replicas: 1,
        links: Default::default(),
    }
}

/// An image whose tiles each run `per_tile` empty vertices in one compute
/// set, executed `repeats` times.
pub(crate) fn empty_vertices(tiles: u32, per_tile: u32, repeats: u64) -> Image {
    let plain = [0x31, 0xC0, 0xC3]; // xor eax, eax; ret
    let counting = [0x48, 0x83, 0x47, 0x18, 0x01, 0x31, 0xC0, 0xC3]; // count += 1
    let mut code = plain.to_vec();
    code.extend_from_slice(&counting);
    let tile = |t: u32| TileImage {
        mem_size: 4 * per_tile.max(1),
        init: vec![Segment { offset: 0, bytes: vec![0; 4 * per_tile as usize] }],
        vertices: (0..per_tile)
            .map(|i| VertexInstance { vertex_type: 0, state: 4 * i, id: t * per_tile + i, cycles: None })
            .collect(),
    };
    Image {
        target: target(tiles),
        code,
        relocs: vec![],
        vertex_types: vec![VertexCode {
            name: "Empty".into(),
            base: VertexBase::Vertex,
            plain: (0, 3),
            counting: (3, 8),
            returns_bool: false,
            source: "bench".into(),
            plain_lines: vec![],
            counting_lines: vec![],
            stack_size: 0,
            statics: 0,
        }],
        tiles: (0..tiles).map(tile).collect(),
        compute_sets: vec![ComputeSet {
            name: "empty".into(),
            tiles: (0..tiles).map(|t| TileWork { tile: t, start: 0, end: per_tile }).collect(),
            exchange_in: Exchange::default(),
            exchange_out: Exchange::default(),
            in_by_tile: false,
        }],
        copies: vec![],
        programs: vec![Program {
            name: "main".into(),
            body: vec![Step::Repeat { count: repeats, body: vec![Step::Execute(0)] }],
        }],
        functions: vec![],
        handles: vec![],
        streams: vec![],
        remote_buffers: vec![],
        replica_index: Vec::new(),
        isa: Default::default(),
    }
}

pub(crate) fn time_run(image: &Image, device: DeviceKind, threads: usize) -> f64 {
    let loaded = runtime::load_image(image.clone()).expect("load");
    let mut e = Engine::new(loaded, &EngineOptions { device, threads, ..Default::default() });
    let t = Instant::now();
    e.run(0).expect("run");
    t.elapsed().as_secs_f64()
}

fn superstep(rows: &mut Vec<(String, String)>, quick: bool) {
    let repeats = if quick { 200 } else { 2000 };
    let image = empty_vertices(1472, 1, repeats);
    for device in [DeviceKind::Cpu, DeviceKind::Sim] {
        for threads in [1, 0] {
            let s = time_run(&image, device, threads);
            rows.push((
                format!(
                    "runtime: superstep overhead, {} ({} threads), 1 empty vertex x 1,472 tiles",
                    device.name(),
                    if threads == 0 { "all".to_string() } else { threads.to_string() }
                ),
                format!("{:.1} µs per compute set", s * 1e6 / repeats as f64),
            ));
        }
    }
    let repeats = if quick { 5 } else { 20 };
    let image = empty_vertices(1472, 100, repeats);
    let cpu = time_run(&image, DeviceKind::Cpu, 0);
    let sim = time_run(&image, DeviceKind::Sim, 0);
    rows.push((
        "runtime: 147,200 empty vertices per compute set, cpu".into(),
        format!(
            "{:.2} ms per compute set ({:.1} ns per vertex)",
            cpu * 1e3 / repeats as f64,
            cpu * 1e9 / (repeats as f64 * 147_200.0)
        ),
    ));
    rows.push(("runtime: same, sim / cpu time".into(), format!("{:.2}x", sim / cpu)));
}

fn load_time(rows: &mut Vec<(String, String)>, quick: bool) {
    let per_tile = if quick { 68 } else { 680 }; // 1,000,960 vertices in full
    let image = empty_vertices(1472, per_tile, 1);
    let bytes = image.to_bytes();
    let t = Instant::now();
    let loaded = runtime::load(&bytes).expect("load");
    let load = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let e = Engine::new(loaded, &EngineOptions { device: DeviceKind::Cpu, ..Default::default() });
    let alloc = t.elapsed().as_secs_f64();
    drop(e);
    rows.push((
        format!("runtime: load a {}-vertex prog.exe ({:.1} MB)", 1472 * per_tile, bytes.len() as f64 / 1e6),
        format!("{:.0} ms validate+map, {:.0} ms tile memory", load * 1e3, alloc * 1e3),
    ));
}

/// Compiles the run case `testdata/run/<case>` (one of the tutorial 7
/// graphs).
pub(crate) fn variant(case: &str) -> Result<Image, String> {
    // The working directory is the workspace root (see `main`).
    let path = Path::new("testdata/run").join(case).join("graph.pir");
    compiler::compile_for_run(&path).map(|(i, _)| i)
}

/// y = M x natively, with tutorial 7's data, rows split over `threads`.
pub(crate) fn native(m: &[f32], x: &[f32], threads: usize) -> (Vec<f32>, f64) {
    let rows = x.len().max(1);
    let n = m.len() / rows;
    let mut y = vec![0f32; n];
    let t = Instant::now();
    let chunk = n.div_ceil(threads);
    std::thread::scope(|s| {
        for (i, out) in y.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                for (j, o) in out.iter_mut().enumerate() {
                    let r = i * chunk + j;
                    let row = &m[r * rows..(r + 1) * rows];
                    *o = row.iter().zip(x).map(|(a, b)| a * b).sum();
                }
            });
        }
    });
    (y, t.elapsed().as_secs_f64())
}

fn tutorial7(rows: &mut Vec<(String, String)>, quick: bool, threads: usize) {
    let image = match variant("tut7_split") {
        Ok(i) => i,
        Err(e) => {
            let first = e.lines().next().unwrap_or("").to_string();
            rows.push(("runtime: tutorial 7 figures".into(), format!("skipped: cannot compile ({first})")));
            return;
        }
    };
    let reps = if quick { 3 } else { 10 };
    let time_multiply = |device: DeviceKind, threads: usize| -> (Stats, u64) {
        let loaded = runtime::load_image(image.clone()).expect("load");
        let mut e = Engine::new(loaded, &EngineOptions { device, threads, ..Default::default() });
        e.run_named("init").expect("init");
        let before = e.totals().cycles;
        let samples = (0..reps)
            .map(|_| {
                let t = Instant::now();
                e.run_named("multiply").expect("multiply");
                t.elapsed().as_secs_f64()
            })
            .collect();
        (Stats::of(samples), (e.totals().cycles - before) / reps as u64)
    };
    let (cpu_all, _) = time_multiply(DeviceKind::Cpu, threads);
    let (cpu_one, _) = time_multiply(DeviceKind::Cpu, 1);
    let (sim_all, cycles) = time_multiply(DeviceKind::Sim, threads);
    let stats = [cpu_all, sim_all];
    let best = [cpu_all.median, sim_all.median];
    let cpu_one = cpu_one.median;
    let m: Vec<f32> = (0..10000u32)
        .flat_map(|r| (0..1000u32).map(move |c| (((r * 7 + c * 3) % 11) as i32 - 5) as f32))
        .collect();
    let x: Vec<f32> = (0..1000u32).map(|c| ((c % 5) as i32 - 2) as f32).collect();
    let native_stats = |threads: usize| Stats::of((0..reps).map(|_| native(&m, &x, threads).1).collect());
    let native_all = native_stats(threads);
    let nbest = native_all.median;
    let nbest_one = native_stats(1).median;
    rows.push((
        format!("runtime: tutorial 7 10000x1000 split 7, cpu ({threads} threads)"),
        format!("{} per multiply, median of {reps}", stats[0].ms()),
    ));
    rows.push((format!("runtime: native Rust matvec ({threads} threads)"), native_all.ms()));
    rows.push((
        format!("runtime: tutorial 7 on sim ({threads} threads)"),
        format!("{} per multiply", stats[1].ms()),
    ));
    rows.push((
        "runtime: cpu throughput / native (target >= 0.5x)".into(),
        format!("{:.2}x", nbest / best[0]),
    ));
    rows.push((
        format!("runtime: cpu scaling, 1 -> {threads} threads (native: {:.2}x)", nbest_one / nbest),
        format!("{:.2}x ({:.2} ms with 1 thread)", cpu_one / best[0], cpu_one * 1e3),
    ));
    let xbytes = exchange_bytes(&image, "multiply");
    let memcpy = crate::memcpy_bench::bandwidth(64 << 20, 5);
    rows.push((
        "runtime: exchange bytes per multiply / cpu time per multiply (compute included), vs host memcpy"
            .into(),
        format!(
            "{:.1} MB / {:.2} ms = {:.2} GB/s = {:.2} of memcpy's {:.2} GB/s",
            xbytes as f64 / 1e6,
            best[0] * 1e3,
            xbytes as f64 / best[0] / 1e9,
            xbytes as f64 / best[0] / memcpy,
            memcpy / 1e9
        ),
    ));
    rows.push((
        "runtime: sim speed, modelled cycles per host second (tutorial 7)".into(),
        format!("{:.3e} cycles/s ({} cycles in {:.2} ms)", cycles as f64 / best[1], cycles, best[1] * 1e3),
    ));
    rows.push((
        "runtime: tutorial 7, sim time / cpu time (target <= 2x)".into(),
        format!("{:.2}x", best[1] / best[0]),
    ));
    anchors(rows);
}

/// The modelled figures of tutorial 7's multiply program beside Poplar's
/// published ones (the user guide's IPU Model run, the tutorial's own
/// estimate and IPU Model profile, and its IPU hardware profile), as
/// (case, figure, published value, bound).
fn anchors(rows: &mut Vec<(String, String)>) {
    // Total cycles of the program, or the tile average of its compute
    // cycles (including or excluding idle threads).
    #[derive(Clone, Copy)]
    enum Figure {
        Total,
        ComputeIncluding,
        ComputeExcluding,
    }
    let anchors = [
        (
            "tut7_split_mk1",
            Figure::Total,
            "mk1 split 5 with estimates, multiply cycles vs the IPU Model's",
            5071.0,
            0.10,
        ),
        (
            "tut7_split",
            Figure::Total,
            "mk2 split 7 with estimates, multiply cycles vs the tutorial's estimate",
            3996.0,
            0.10,
        ),
        (
            "tut7_split",
            Figure::ComputeIncluding,
            "mk2 split 7 with estimates, tile average compute (incl. idle) vs the IPU Model's",
            3801.8,
            0.10,
        ),
        (
            "tut7_split",
            Figure::ComputeExcluding,
            "mk2 split 7 with estimates, tile average compute (excl. idle) vs the IPU Model's",
            3717.6,
            0.10,
        ),
        (
            "tut7_split_counted",
            Figure::ComputeIncluding,
            "mk2 split 7 counted C++, tile average compute (incl. idle) vs IPU hardware's",
            28300.3,
            0.15,
        ),
    ];
    let mut measured: Vec<(&str, runtime::Totals, u64)> = Vec::new();
    for (case, figure, what, published, bound) in anchors {
        if !measured.iter().any(|m| m.0 == case) {
            let image = match variant(case) {
                Ok(i) => i,
                Err(e) => {
                    let first = e.lines().next().unwrap_or("").to_string();
                    rows.push((
                        format!("runtime: fidelity, {what}"),
                        format!("skipped: cannot compile ({first})"),
                    ));
                    continue;
                }
            };
            let multiply = image.programs.iter().position(|p| p.name == "multiply").expect("multiply");
            let tiles = image.tiles.len() as u64;
            let loaded = runtime::load_image(image).expect("load");
            let mut e = Engine::new(loaded, &EngineOptions { device: DeviceKind::Sim, ..Default::default() });
            e.run_named("init").expect("init");
            e.run_named("multiply").expect("multiply");
            measured.push((case, e.totals().by_program[multiply].clone(), tiles));
        }
        let (_, t, tiles) = measured.iter().find(|m| m.0 == case).expect("measured");
        let value = match figure {
            Figure::Total => t.cycles as f64,
            Figure::ComputeIncluding => t.compute_tile as f64 / *tiles as f64,
            Figure::ComputeExcluding => t.compute_active as f64 / *tiles as f64,
        };
        let off = value / published - 1.0;
        let verdict = if off.abs() <= bound { "within" } else { "OUTSIDE" };
        rows.push((
            format!("runtime: fidelity, {what} {published}"),
            format!("{value:.1} ({:+.1}%, {verdict} ±{:.0}%)", off * 100.0, bound * 100.0),
        ));
    }
}

/// Bytes moved by the exchange phases of the compute sets a program executes
/// (each compute set counted once per appearance, loops not multiplied).
fn exchange_bytes(image: &Image, program: &str) -> u64 {
    fn walk(image: &Image, steps: &[Step], total: &mut u64) {
        for s in steps {
            match s {
                Step::Execute(cs) => {
                    let cs = &image.compute_sets[*cs as usize];
                    for t in cs.exchange_in.transfers.iter().chain(&cs.exchange_out.transfers) {
                        *total += u64::from(t.bytes);
                    }
                }
                Step::Copy(c) => {
                    *total +=
                        image.copies[*c as usize].transfers.iter().map(|t| u64::from(t.bytes)).sum::<u64>()
                }
                Step::Call(f) => walk(image, &image.functions[*f as usize].body, total),
                other => other.bodies().into_iter().for_each(|b| walk(image, b, total)),
            }
        }
    }
    let mut total = 0;
    if let Some(p) = image.programs.iter().find(|p| p.name == program) {
        walk(image, &p.body, &mut total);
    }
    total
}

/// The codelet of the elementwise benchmark: `data[i] *= k`.
const SCALE_CODELET: &str = r#"#include <poplar/Vertex.hpp>
using namespace poplar;
class Scale : public Vertex {
public:
  InOut<Vector<float>> data;
  float k;
  bool compute() {
    for (unsigned i = 0; i < data.size(); ++i) data[i] = data[i] * k;
    return true;
  }
};
"#;

/// An elementwise operation over a tensor spread evenly over 1,472 tiles
/// (one `Scale` vertex per tile on the elements that tile holds, so no
/// exchange), on `cpu` against the same
/// loop in native Rust over the same number of threads.
fn elementwise(rows: &mut Vec<(String, String)>, quick: bool, threads: usize) {
    let n: u64 = if quick { 1 << 20 } else { 16 << 20 };
    let reps = if quick { 3 } else { 10 };
    let pir = format!(
        "target mk2\ncodelets \"scale.cpp\"\nvar x: float[{n}] = 1.0\n\
         for t in 0..1472 {{ map x[t * {n} / 1472:(t + 1) * {n} / 1472] -> tile t }}\nhost_read \"x\" <- x\n\
         compute_set scale {{ for t in 0..1472 {{ vertex Scale @ tile t {{ data = x[t * {n} / 1472:(t + 1) * {n} / 1472], k = 2.0 }} }} }}\n\
         program main {{ execute scale }}\n"
    );
    let dir = std::env::temp_dir().join(format!("bench_elementwise_{}", std::process::id()));
    let compiled = std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(dir.join("scale.cpp"), SCALE_CODELET))
        .and_then(|_| std::fs::write(dir.join("graph.pir"), &pir))
        .map_err(|e| e.to_string())
        .and_then(|_| compiler::compile_for_run(&dir.join("graph.pir")));
    let _ = std::fs::remove_dir_all(&dir);
    let image = match compiled {
        Ok((image, _)) => image,
        Err(e) => {
            let first = e.lines().next().unwrap_or("").to_string();
            rows.push(("runtime: elementwise figures".into(), format!("skipped: cannot compile ({first})")));
            return;
        }
    };
    let loaded = runtime::load_image(image).expect("load");
    let mut e =
        Engine::new(loaded, &EngineOptions { device: DeviceKind::Cpu, threads, ..Default::default() });
    e.run(0).expect("scale");
    let x: Vec<f32> = e.read_values("x").expect("read x");
    assert!(x.iter().all(|&v| v == 2.0), "elementwise benchmark computed a wrong result");
    let device = Stats::of(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                e.run(0).expect("scale");
                t.elapsed().as_secs_f64()
            })
            .collect(),
    );
    let mut data = vec![1f32; n as usize];
    let mut samples = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        let chunk = data.len().div_ceil(threads);
        // The factor is opaque to the optimiser but loop-invariant, as the
        // codelet's `k` field is, so the native loop vectorises too.
        let k = std::hint::black_box(2.0f32);
        std::thread::scope(|s| {
            for part in data.chunks_mut(chunk) {
                s.spawn(move || part.iter_mut().for_each(|v| *v *= k));
            }
        });
        samples.push(t.elapsed().as_secs_f64());
    }
    let native = Stats::of(samples);
    let (best, nbest) = (device.median, native.median);
    rows.push((
        format!("runtime: elementwise x *= k, {n} floats on 1,472 tiles, cpu ({threads} threads)"),
        format!("{} ({:.2} GB/s read+write)", device.ms(), 8.0 * n as f64 / best / 1e9),
    ));
    rows.push((format!("runtime: native Rust loop ({threads} threads)"), native.ms()));
    rows.push(("runtime: elementwise cpu throughput / native".into(), format!("{:.2}x", nbest / best)));
}

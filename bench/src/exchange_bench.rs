//! Exchange alone (issue 28): PIR programs whose one step is a `copy`
//! between tensors mapped on different tiles, so that a run is nothing but
//! an exchange phase, in three patterns over the mk2's 1,472 tiles:
//! `neighbour` (every tile sends its block to the next), `all-to-all` (256
//! tiles, each sending a message to each) and `broadcast` (one tile's
//! block to every tile). Each is timed on `cpu` with one thread and with
//! all, as bytes written per second against host memcpy of the same bytes
//! measured in the same run (one thread: memcpy is the bound of one
//! thread's copy).
//!
//! The graphs are compiled in-process, like the ops benchmarks.

use std::time::Instant;

use runtime::linker::image::Image;
use runtime::DeviceKind;

use crate::tools::Stats;

/// Tiles of the mk2 target the patterns spread over.
const TILES: u64 = 1472;

/// One exchange pattern: its name, what it moves, its PIR and the bytes
/// one run writes.
pub struct Pattern {
    pub name: &'static str,
    pub what: String,
    pub pir: String,
    pub bytes: u64,
}

/// The three patterns, smaller with `quick`.
pub fn patterns(quick: bool) -> Vec<Pattern> {
    let scale = if quick { 8 } else { 1 };
    // Neighbour: `c` floats per tile, tile t's block to tile t + 1.
    let c = 4096 / scale;
    let neighbour = format!(
        "target mk2\nvar x: float[{n}] = 1.0\nvar y: float[{n}]\n\
         for t in 0..{TILES} {{ map x[t * {c}:(t + 1) * {c}] -> tile t }}\n\
         for t in 0..{TILES} {{ map y[t * {c}:(t + 1) * {c}] -> tile (t + 1) % {TILES} }}\n\
         host_read \"y\" <- y\nprogram main {{ copy x -> y }}\n",
        n = TILES * c
    );
    // All-to-all among `p` tiles spread over the chip, `w` floats each way.
    let (p, w) = (256u64, 128 / scale);
    let stride = TILES / p;
    let all = format!(
        "target mk2\nvar x: float[{p}, {p}, {w}] = 1.0\nvar y: float[{p}, {p}, {w}]\n\
         for t in 0..{p} {{ map x[t] -> tile t * {stride} }}\n\
         for t in 0..{p} {{ map y[t] -> tile t * {stride} }}\n\
         host_read \"y\" <- y\nprogram main {{ copy dimshuffle(x, [1, 0, 2]) -> y }}\n"
    );
    // Broadcast: tile 0's `c` floats to every tile.
    let broadcast = format!(
        "target mk2\nvar x: float[{c}] @ tile 0 = 1.0\nvar y: float[{TILES}, {c}]\n\
         for t in 0..{TILES} {{ map y[t] -> tile t }}\n\
         host_read \"y\" <- y\nprogram main {{ copy broadcast(x, {TILES}) -> y }}\n"
    );
    vec![
        Pattern {
            name: "neighbour",
            what: format!("1,472 tiles x {} KiB to the next tile", c * 4 / 1024),
            pir: neighbour,
            bytes: TILES * c * 4,
        },
        Pattern {
            name: "all-to-all",
            what: format!("{p} tiles x {p} messages of {} bytes", w * 4),
            pir: all,
            bytes: p * p * w * 4,
        },
        Pattern {
            name: "broadcast",
            what: format!("tile 0's {} KiB to 1,472 tiles", c * 4 / 1024),
            pir: broadcast,
            bytes: TILES * c * 4,
        },
    ]
}

/// Compiles a pattern and checks that a run fills its destination.
pub fn build(p: &Pattern) -> Result<Image, String> {
    let image = crate::ops_bench::compile(&format!("exchange_{}", p.name.replace('-', "_")), &p.pir)?;
    let mut e = crate::ops_bench::engine(image.clone(), DeviceKind::Cpu, 1);
    e.run(0).map_err(|e| e.to_string())?;
    let y: Vec<f32> = e.read_values("y").map_err(|e| e.to_string())?;
    if y.len() as u64 * 4 != p.bytes || y.iter().any(|&v| v != 1.0) {
        return Err(format!("the {} exchange moved the wrong data", p.name));
    }
    Ok(image)
}

/// Seconds per run of the exchange on `cpu` with `threads` threads, over
/// `reps` runs after one untimed.
pub fn time(image: &Image, threads: usize, reps: usize) -> Stats {
    let mut e = crate::ops_bench::engine(image.clone(), DeviceKind::Cpu, threads);
    e.run(0).expect("exchange");
    Stats::of(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                e.run(0).expect("exchange");
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

/// Figure rows: (what, value).
pub fn run(quick: bool) -> Vec<(String, String)> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let reps = if quick { 3 } else { 11 };
    let mut rows = Vec::new();
    for p in patterns(quick) {
        let image = match build(&p) {
            Ok(i) => i,
            Err(e) => {
                rows.push((format!("exchange: {}", p.name), format!("skipped: {e}")));
                continue;
            }
        };
        let memcpy = crate::memcpy_bench::bandwidth(p.bytes as usize, reps);
        for t in [1, threads] {
            let s = time(&image, t, reps);
            let rate = p.bytes as f64 / s.median;
            rows.push((
                format!(
                    "exchange: {}, {} ({:.1} MB), cpu ({t} thread{})",
                    p.name,
                    p.what,
                    p.bytes as f64 / 1e6,
                    if t == 1 { "" } else { "s" }
                ),
                format!(
                    "{}; {:.2} GB/s = {:.2} of memcpy's {:.2} GB/s (same bytes, 1 thread)",
                    s.ms(),
                    rate / 1e9,
                    rate / memcpy,
                    memcpy / 1e9
                ),
            ));
            if threads == 1 {
                break;
            }
        }
    }
    rows
}

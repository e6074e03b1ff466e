//! The physical reference for exchange: host memcpy bandwidth.
//!
//! Exchange on the `cpu` device is memcpy between tile regions, so the
//! host's own copy bandwidth bounds it; the runtime section reports exchange
//! throughput as a fraction of this figure.

use std::hint::black_box;
use std::time::Instant;

/// Median bytes per second of copying `bytes` bytes, over `reps` repetitions.
pub fn bandwidth(bytes: usize, reps: usize) -> f64 {
    let src = vec![1u8; bytes];
    let mut dst = vec![0u8; bytes];
    dst.copy_from_slice(&src);
    let mut rates: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
            bytes as f64 / t.elapsed().as_secs_f64()
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

pub fn run(quick: bool) -> Vec<(String, String)> {
    let (bytes, reps) = if quick { (8 << 20, 3) } else { (256 << 20, 11) };
    let bw = bandwidth(bytes, reps);
    vec![(
        format!("host memcpy bandwidth ({} MiB, median of {reps})", bytes >> 20),
        format!("{:.2} GB/s", bw / 1e9),
    )]
}

//! The simulator's cost model: every constant the `sim` device uses to turn
//! execution into tile clock cycles, in one place.
//!
//! Time is in tile clock cycles of the image's target. The figures are
//! public-source approximations (DESIGN.md, "Target constants and the cost
//! model"); they are not tuned to any benchmark. Change them here only.
//!
//! - Compute: a tile has `target.workers` (6) worker contexts issuing in
//!   round robin, so one worker issues an instruction every 6 cycles. Each
//!   `Vertex` goes to the least-loaded worker (ties to the lowest number) in
//!   the order the tile lists them; a `MultiVertex` runs once on every
//!   worker; a `SupervisorVertex` waits for the workers, then runs alone.
//!   Tile time = workers x (largest per-worker instruction count) +
//!   [`SUPERVISOR_CYCLES_PER_VERTEX`] per vertex launched.
//! - Exchange: per tile, ceil(max(bytes sent, bytes received) /
//!   `target.exchange_bytes_per_cycle`) + [`EXCHANGE_OVERHEAD_CYCLES`];
//!   the phase takes the slowest tile. Bytes sent are the union of a tile's
//!   source ranges (one send may be broadcast to many tiles, as the IPU's
//!   exchange does); bytes received are summed. A transfer within one tile
//!   counts as both sent and received by it.
//! - Sync: [`SYNC_CYCLES`] per internal sync; every compute set, copy and
//!   host transfer starts a superstep with one.
//! - Host transfers (streams, remote buffers, prints): bytes over
//!   [`HOST_BYTES_PER_SECOND`] at the target clock plus
//!   [`HOST_LATENCY_NS`], preceded by an external sync ([`SYNC_CYCLES`]).
//! - Control flow: a branch or loop test broadcasts its predicate to every
//!   tile: [`BRANCH_CYCLES`] each time. A `repeat` iteration and a `call`
//!   cost [`LOOP_CYCLES`] (the tiles' own counter and branch), so every
//!   step of a program costs at least one cycle and `--max-cycles` stops any
//!   loop, even an empty one.
//! - Totals saturate at 2^64 - 1 cycles instead of wrapping.

/// Cycles for an internal sync across one IPU.
pub const SYNC_CYCLES: u64 = 100;

/// Fixed cycles each tile that takes part in an exchange spends on it
/// (the exchange code's setup and the last word's flight).
pub const EXCHANGE_OVERHEAD_CYCLES: u64 = 16;

/// Supervisor cycles to launch one vertex on a worker.
pub const SUPERVISOR_CYCLES_PER_VERTEX: u64 = 8;

/// Host link bandwidth (PCIe Gen4 x16 class, about 64 GB/s).
pub const HOST_BYTES_PER_SECOND: f64 = 64.0e9;

/// Latency of one host transfer, in nanoseconds.
pub const HOST_LATENCY_NS: f64 = 500.0;

/// A predicate broadcast for `if`, `switch` and each loop test
/// (a sync plus a one-word exchange).
pub const BRANCH_CYCLES: u64 = SYNC_CYCLES + EXCHANGE_OVERHEAD_CYCLES + 1;

/// A `repeat` iteration or a `call`: one tile-local branch.
pub const LOOP_CYCLES: u64 = 1;

/// Exchange cycles of one tile that sends `sent` and receives `received` bytes.
pub fn exchange_tile_cycles(sent: u64, received: u64, bytes_per_cycle: u32) -> u64 {
    let bytes = sent.max(received);
    if bytes == 0 {
        return 0;
    }
    bytes.div_ceil(u64::from(bytes_per_cycle.max(1))) + EXCHANGE_OVERHEAD_CYCLES
}

/// Cycles of a host transfer of `bytes` at a clock of `clock_mhz`.
pub fn host_transfer_cycles(bytes: u64, clock_mhz: f64) -> u64 {
    let hz = clock_mhz * 1.0e6;
    let seconds = bytes as f64 / HOST_BYTES_PER_SECOND + HOST_LATENCY_NS * 1.0e-9;
    (seconds * hz).ceil() as u64
}

/// Tile cycles of a compute phase, from per-worker instruction counts and
/// the number of vertices launched.
pub fn tile_compute_cycles(worker_loads: &[u64], vertices: u64) -> u64 {
    let workers = worker_loads.len() as u64;
    (workers.saturating_mul(worker_loads.iter().copied().max().unwrap_or(0)))
        .saturating_add(SUPERVISOR_CYCLES_PER_VERTEX.saturating_mul(vertices))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas() {
        assert_eq!(exchange_tile_cycles(0, 0, 4), 0);
        assert_eq!(exchange_tile_cycles(9, 4, 4), 3 + EXCHANGE_OVERHEAD_CYCLES);
        assert_eq!(tile_compute_cycles(&[10, 3, 0, 0, 0, 0], 2), 60 + 2 * SUPERVISOR_CYCLES_PER_VERTEX);
        // 64 KB at 1 GHz: 1 µs of bandwidth plus the latency.
        assert_eq!(host_transfer_cycles(64_000, 1000.0), 1000 + 500);
    }
}

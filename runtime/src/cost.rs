//! The simulator's cost model: every constant the `sim` device uses to turn
//! execution into tile clock cycles, in one place. `docs/cost-model.md`
//! explains each figure and where it comes from; popc's per-operation
//! costs for counted codelets are in `popc/src/cost.rs`.
//!
//! Time is in tile clock cycles of the image's target. The figures are
//! public-source approximations, not tuned to any benchmark. Change them
//! here only.
//!
//! - Compute: a tile has `target.workers` (6) worker contexts issuing in
//!   round robin, so one worker issues an instruction every 6 cycles. Each
//!   `Vertex` goes to the least-loaded worker (ties to the lowest number) in
//!   the order the tile lists them; a `MultiVertex` runs once on every
//!   worker; a `SupervisorVertex` waits for the workers, then runs alone.
//!   A vertex costs its `cycles` estimate when the graph gives one (as
//!   Poplar's `setPerfEstimate` replaces the vertex's cycles), otherwise
//!   what its counting code counted (entry included: popc's
//!   `VERTEX_ENTRY` plus one load per state word).
//!   Tile time = workers x (largest per-worker count): the IPU Model's
//!   round-robin schedule; there is no serial per-vertex supervisor cost.
//! - Exchange: per tile, ceil(max(bytes sent, bytes received) /
//!   `target.exchange_bytes_per_cycle`) + [`EXCHANGE_OVERHEAD_CYCLES`];
//!   the phase takes the slowest tile. Bytes sent are the union of a tile's
//!   source ranges (one send may be broadcast to many tiles, as the IPU's
//!   exchange does); bytes received are summed. A transfer within one tile
//!   counts as both sent and received by it.
//! - Sync: `target.sync_cycles` per internal sync; every compute set, copy
//!   and host transfer starts a superstep with one. Tiles that finish a
//!   phase early wait at the next sync: that wait is sync time, as in
//!   Poplar's profile.
//! - Host transfers (streams, remote buffers, prints): bytes over
//!   [`HOST_BYTES_PER_SECOND`] at the target clock plus
//!   [`HOST_LATENCY_NS`], preceded by an external sync.
//! - Control flow: a branch or loop test broadcasts its predicate to every
//!   tile: a sync plus a one-word exchange ([`branch_exchange_cycles`]).
//!   A `repeat` iteration and a `call` cost [`LOOP_CYCLES`] (the tiles' own
//!   counter and branch), so every step of a program costs at least one
//!   cycle and `--max-cycles` stops any loop, even an empty one.
//!
//! Cycle sums saturate at `u64::MAX` rather than wrap.

// The exchange and host-transfer formulas are shared with the compiler's
// graph profile (its exchange and host exchange cycles by tile).
pub use linker::profile::{
    exchange_tile_cycles, host_transfer_cycles, EXCHANGE_OVERHEAD_CYCLES, HOST_BYTES_PER_SECOND,
    HOST_LATENCY_NS,
};

/// The exchange part of a predicate broadcast for `if`, `switch` and each
/// loop test (its sync is charged as a sync).
pub fn branch_exchange_cycles() -> u64 {
    EXCHANGE_OVERHEAD_CYCLES + 1
}

/// A `repeat` iteration or a `call`: one tile-local branch.
pub const LOOP_CYCLES: u64 = 1;

/// Tile cycles of a compute phase, from per-worker instruction counts: the
/// workers issue in turn, so the tile is busy until its busiest worker is
/// done, one issue slot in `workers`.
pub fn tile_compute_cycles(worker_loads: &[u64]) -> u64 {
    let workers = worker_loads.len() as u64;
    worker_loads.iter().copied().max().unwrap_or(0).saturating_mul(workers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas() {
        assert_eq!(exchange_tile_cycles(0, 0, 4), 0);
        assert_eq!(exchange_tile_cycles(9, 4, 4), 3 + EXCHANGE_OVERHEAD_CYCLES);
        assert_eq!(tile_compute_cycles(&[10, 3, 0, 0, 0, 0]), 60);
        assert_eq!(tile_compute_cycles(&[u64::MAX, 0]), u64::MAX);
        assert_eq!(exchange_tile_cycles(u64::MAX, 0, 1), u64::MAX);
        // 64 KB at 1 GHz: 1 µs of bandwidth plus the latency.
        assert_eq!(host_transfer_cycles(64_000, 1000.0), 1000 + 500);
    }
}

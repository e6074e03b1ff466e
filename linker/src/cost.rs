//! The cost model, in one place: what each operation of a counted codelet
//! costs (popc's counting code variant adds these up) and every figure the
//! `sim` device uses to turn execution into tile clock cycles. It lives in
//! `linker`, below both popc and the runtime, because both use it and
//! neither may depend on the other. `docs/cost-model.md` explains each
//! figure and where it comes from. Change them here only.
//!
//! ## Codelet operations
//!
//! The counting variant adds, once per basic block, the sum of the costs of
//! the operations the source asked for in that block to `TileCtx::count`.
//! The sandbox's own work (bounds checks, trap branches, the counting
//! itself) is not counted. Array indexing `v[i]` costs no address
//! arithmetic: the IPU's loads and stores take a base register plus an
//! index register (or post-increment the base), so only the load or store
//! is counted. The figures model an IPU worker issuing one instruction per operation, with division
//! and transcendental functions expanding to instruction sequences.
//!
//! ## The machine
//!
//! Time is in tile clock cycles of the image's target. The figures are
//! public-source approximations, not tuned to any benchmark.
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
//! - Exchange between IPUs: a phase whose transfers cross from one IPU of
//!   the target to another adds, after its tiles' own exchange, a global
//!   sync and the busiest IPU's cross traffic over its IPU-Links
//!   ([`ipu_link_cycles`]; `barleyTwist` links carry twice as much), as
//!   global exchange. Which IPUs a transfer may join is the target's
//!   `ipuLinkConfiguration` and `ipuLinkTopology` (`crate::links`).
//! - Cross-replica collectives: the replicas meet at a global sync
//!   ([`GLOBAL_SYNC_CYCLES`], charged from the latest replica's arrival),
//!   then each member moves what a ring algorithm moves: all-reduce
//!   `2 (g-1)/g` of its input, reduce-scatter and all-gather `(g-1)/g` of
//!   the larger of input and output, all-to-all `(g-1)/g` of its input,
//!   broadcast its input ([`collective_cycles`]), over the IPU-Links its
//!   group's rings have ([`collective_links`]: the rings the topology
//!   runs at once, each one link of [`IPU_LINK_BYTES_PER_SECOND`]).
//!   A group of one costs nothing.
//! - Syncs of all replicas: a replicated run's replicas also meet, each
//!   waiting for the latest as sync time, at the syncs Poplar's second
//!   sync group makes: host transfers (unless the engine option
//!   `target.syncReplicasIndependently` is set) and, under
//!   `syncConfiguration` `ipuAndAll`, exchange between a replica's IPUs.
//!
//! Cycle sums saturate at `u64::MAX` rather than wrap.

/// Entering a vertex: the call from the supervisor, the return and the
/// status word. The tutorials' own estimates charge 5 fixed cycles per
/// vertex (`5 + (n + 1) / 2` for a dot product of `n` elements).
pub const VERTEX_ENTRY: u64 = 5;
/// Loading one 32-bit word of vertex state (an edge's address or count) at entry.
pub const STATE_WORD: u64 = MEMORY;
/// One trip of a counted loop (`for (i = a; i < n; ++i)`): the IPU's
/// `brnzdec` decrements the trip count and branches in one instruction, so
/// the increment, the test and the branch back cost this one cycle.
pub const COUNTED_LOOP_TRIP: u64 = 1;
/// Floats per vector operation in an elementwise float loop popc
/// recognises (`v[i] = a[i] + b[i]` and the like, no reduction): the IPU
/// loads and stores 64 bits (`ld64`, `st64`) and does `f32v2` arithmetic,
/// two floats per instruction, so one scalar iteration's cost is charged
/// once per two elements. Reductions stay one operation per element.
pub const FLOAT_VECTOR_WIDTH: u64 = 2;

/// Integer or float add, subtract, multiply, bitwise op, shift, negation.
pub const ARITH: u64 = 1;
/// A comparison (its result feeding a branch or a value).
pub const COMPARE: u64 = 1;
/// A load or store of tile memory or of a local in memory (an array, or a
/// scalar whose address is taken). Scalar locals live in registers, as a
/// tile compiler would keep them, and cost nothing to read or write.
pub const MEMORY: u64 = 1;
/// A taken or untaken conditional branch, or a jump.
pub const BRANCH: u64 = 1;
/// A conversion between types (int/float, float/half).
pub const CONVERT: u64 = 1;
/// Integer division or remainder.
pub const DIV_INT: u64 = 12;
/// Floating-point division.
pub const DIV_FLOAT: u64 = 8;
/// Square root.
pub const SQRT: u64 = 10;
/// `exp`, `log`, `sin`, `pow`, `erf` and the other host maths functions.
pub const TRANSCENDENTAL: u64 = 20;
/// `fabs`, `floor`, `ceil`, `trunc`, `fmin`, `fmax`, `copysign`, min/max.
pub const SIMPLE_MATH: u64 = 1;
/// A call of `printf` (formatting is on the host; this is the call).
pub const PRINTF: u64 = 50;
/// `memcpy`/`memset`: per byte moved.
pub const MEM_PER_BYTE: u64 = 1;
/// An IPU built-in that is one instruction on the tile: reading the cycle
/// counter (`__builtin_ipu_get_scount_l/_u`), a draw from the tile's
/// random generator (`__builtin_ipu_urand32`, `urand_f32`, `f32v2grand`...).
pub const IPU_REGISTER: u64 = 1;

/// Fixed cycles each tile that takes part in an exchange spends on it
/// (the exchange code's setup and the last word's flight).
pub const EXCHANGE_OVERHEAD_CYCLES: u64 = 16;

/// Host link bandwidth (PCIe Gen4 x16 class, about 64 GB/s).
pub const HOST_BYTES_PER_SECOND: f64 = 64.0e9;

/// Latency of one host transfer, in nanoseconds.
pub const HOST_LATENCY_NS: f64 = 500.0;

/// Cycles of a sync that spans IPUs (Poplar's `getGlobalSyncCycles`):
/// the order of an external sync through the IPU-Link sync network,
/// several internal syncs.
pub const GLOBAL_SYNC_CYCLES: u64 = 500;

/// One IPU-Link's bandwidth in one direction (an IPU-M2000's IPU has ten
/// links of 32 GB/s).
pub const IPU_LINK_BYTES_PER_SECOND: f64 = 32.0e9;

/// IPU-Links of one IPU that carry a phase's traffic to the other IPUs of
/// its target (an IPU-M2000's IPU has ten; two are reserved for the
/// gateway and host-side routing here, leaving eight for IPU to IPU).
pub const IPU_LINKS_PER_IPU: u64 = 8;

/// Cycles a phase with traffic between IPUs adds to its tiles' own
/// exchange: a global sync, then the busiest IPU's `bytes` (the larger of
/// what it sends to and receives from the others) over its
/// [`IPU_LINKS_PER_IPU`] links at [`IPU_LINK_BYTES_PER_SECOND`] each,
/// times `bandwidth_factor` (2 for `barleyTwist`,
/// `vocab::IpuLinks::bandwidth_factor`); 0 when no byte crosses.
pub fn ipu_link_cycles(bytes: u64, bandwidth_factor: u64, clock_mhz: f64) -> u64 {
    if bytes == 0 {
        return 0;
    }
    let links = (IPU_LINKS_PER_IPU * bandwidth_factor.max(1)) as f64;
    let per_cycle = links * IPU_LINK_BYTES_PER_SECOND / (clock_mhz * 1.0e6);
    GLOBAL_SYNC_CYCLES.saturating_add((bytes as f64 / per_cycle).ceil() as u64)
}

/// IPU-Links' worth of bandwidth each member of a collective's `group`
/// moves its bytes over, among `replicas` replicas of `ipus` IPUs each,
/// laid along the system's ladder in replica order.
///
/// A replica's IPUs each run the collective on their own part of the
/// tensor, with the same IPU of the other members; those rings share the
/// links between members, so a replica's bytes together cross them as if
/// its IPUs were one. The rings the topology runs at once over the IPUs a
/// group spans ([`vocab::IpuLinks::collective_rings`]) each add a link,
/// and `barleyTwist` links carry twice as much; the groups of
/// `orthogonal(n)`, spread over the same stretch of the ladder, share its
/// links (`consecutive(n)` groups lie on their own).
pub fn collective_links(links: &vocab::IpuLinks, group: vocab::CommGroup, replicas: u32, ipus: u32) -> f64 {
    let r = replicas.max(1);
    let g = group.size(r).unwrap_or(r).max(1);
    let (span, sharing) = match group {
        vocab::CommGroup::Orthogonal(_) => (r, r / g),
        vocab::CommGroup::All | vocab::CommGroup::Consecutive(_) => (g, 1),
    };
    let rings = links.collective_rings(span.saturating_mul(ipus.max(1)));
    (rings * links.bandwidth_factor(ipus)) as f64 / f64::from(sharing.max(1))
}

/// Link cycles of a collective among `g` replicas that reads `input` and
/// writes `output` bytes on each, over `links` IPU-Links' worth of
/// bandwidth ([`collective_links`]), at a clock of `clock_mhz` (the sync
/// that starts it is [`GLOBAL_SYNC_CYCLES`], charged apart).
pub fn collective_cycles(
    kind: vocab::CollectiveKind,
    g: u64,
    input: u64,
    output: u64,
    links: f64,
    clock_mhz: f64,
) -> u64 {
    use vocab::CollectiveKind as K;
    if g <= 1 {
        return 0;
    }
    let share = |bytes: u64| bytes as f64 * (g - 1) as f64 / g as f64;
    let bytes = match kind {
        K::AllReduce => 2.0 * share(input),
        K::ReduceScatter | K::AllGather => share(input.max(output)),
        K::AllToAll => share(input),
        K::Broadcast { .. } => input as f64,
    };
    let per_cycle = links.max(f64::MIN_POSITIVE) * IPU_LINK_BYTES_PER_SECOND / (clock_mhz * 1.0e6);
    // `as` saturates for out-of-range floats.
    (bytes / per_cycle).ceil() as u64
}

/// Exchange cycles of one tile that sends `sent` and receives `received` bytes.
pub fn exchange_tile_cycles(sent: u64, received: u64, bytes_per_cycle: u32) -> u64 {
    let bytes = sent.max(received);
    if bytes == 0 {
        return 0;
    }
    bytes.div_ceil(u64::from(bytes_per_cycle.max(1))).saturating_add(EXCHANGE_OVERHEAD_CYCLES)
}

/// Cycles of a host transfer of `bytes` at a clock of `clock_mhz`.
pub fn host_transfer_cycles(bytes: u64, clock_mhz: f64) -> u64 {
    let hz = clock_mhz * 1.0e6;
    let seconds = bytes as f64 / HOST_BYTES_PER_SECOND + HOST_LATENCY_NS * 1.0e-9;
    // `as` saturates for out-of-range floats.
    (seconds * hz).ceil() as u64
}

/// The part of [`host_transfer_cycles`] that moves the bytes (the rest is
/// the latency), at most the whole.
pub fn host_transfer_data_cycles(bytes: u64, clock_mhz: f64) -> u64 {
    let hz = clock_mhz * 1.0e6;
    let data = (bytes as f64 / HOST_BYTES_PER_SECOND * hz).ceil() as u64;
    data.min(host_transfer_cycles(bytes, clock_mhz))
}

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

    #[test]
    fn a_collective_has_the_links_of_its_rings() {
        use vocab::{CommGroup as G, IpuLinks, LinkConfiguration, LinkTopology};
        let on = |topology| IpuLinks { topology, ..IpuLinks::default() };
        let mesh = on(LinkTopology::Mesh);
        assert_eq!(collective_links(&mesh, G::All, 2, 1), 1.0);
        assert_eq!(collective_links(&mesh, G::All, 4, 1), 2.0);
        // Two IPUs per replica: two replicas already span two rungs.
        assert_eq!(collective_links(&mesh, G::All, 2, 2), 2.0);
        assert_eq!(collective_links(&on(LinkTopology::Torus), G::All, 8, 1), 4.0);
        assert_eq!(collective_links(&on(LinkTopology::Line), G::All, 8, 1), 1.0);
        let twisted = IpuLinks { configuration: Some(LinkConfiguration::BarleyTwist), ..mesh };
        assert_eq!(collective_links(&twisted, G::All, 8, 1), 4.0);
        // Pairs of neighbours lie on one rung each; pairs 4 apart share
        // the ladder with the three other pairs.
        assert_eq!(collective_links(&mesh, G::Consecutive(2), 8, 1), 1.0);
        assert_eq!(collective_links(&mesh, G::Orthogonal(2), 8, 1), 0.5);
        // An all-reduce of 32 KB among 4 replicas moves 48 KB: 1.5 µs over
        // one 32 GB/s link, half that over two.
        let ar = vocab::CollectiveKind::AllReduce;
        assert_eq!(collective_cycles(ar, 4, 32_000, 32_000, 1.0, 1000.0), 1500);
        assert_eq!(collective_cycles(ar, 4, 32_000, 32_000, 2.0, 1000.0), 750);
        assert_eq!(collective_cycles(ar, 1, 32_000, 32_000, 2.0, 1000.0), 0);
    }
}

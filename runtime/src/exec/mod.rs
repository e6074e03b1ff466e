//! The execution core shared by both devices: tile memories, the
//! bulk-synchronous compute / exchange phases on a fixed pool of host
//! threads, and the interpreter of the control program.
//!
//! Threads: the calling thread and a fixed rayon pool, N threads in all.
//! Each phase is split, once when the machine is built, into N contiguous
//! tile ranges balanced for that phase: by the compute set's vertex count,
//! or by the exchange's bytes (cut only between destination tiles). A
//! phase runs on as many of the N threads as its work pays for
//! ([`Machine::fan_out`]): `t` threads take `t` runs of consecutive ranges,
//! the caller the first, so a phase with little work runs on the caller
//! alone and never waits for sleeping workers to wake. An exchange's work
//! is its bytes; a compute set's is the thread time its last runs took
//! (timed per range; all N threads until it has run once). In a compute
//! phase each thread runs the vertices of its own tiles, in tile order; in
//! an exchange phase each thread performs the transfers whose destination
//! tile it owns (an image's transfers are sorted by destination and never
//! read what the same phase writes). The scope returning is the barrier.
//! Every tile's result depends only on its own memory and the phase's
//! transfers, so results (and `sim`'s cycles) are bit-identical for any N
//! and any choice of threads per phase.
//!
//! `sim` runs the counting code variant and turns counts into cycles with
//! [`crate::cost`]; `cpu` runs the plain variant and counts steps only.
//! Printf output is collected per tile and joined in tile order.
//!
//! By idea: [`memory`] (tile and host memory, and the raw per-tile views
//! threads share), [`interpreter`] (the control program, step by step,
//! with its cycle charges), [`compute`] (one compute phase: every vertex of
//! a compute set on its tile) and [`exchange`] (one exchange phase). This
//! module holds the [`Machine`] they all extend and how it is built. Only
//! `memory`, `compute` and `exchange` may use `unsafe`, each saying why.

use std::io::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::loader::Loaded;
use crate::profile::Recorder;
use crate::totals::Totals;

mod compute;
mod exchange;
mod interpreter;
mod memory;

use compute::TileResult;
use exchange::exchange_info;
pub(crate) use exchange::ExchangeInfo;
pub(crate) use memory::HostState;
pub use memory::HostStream;

/// Which device runs the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    /// Native execution on the host's cores.
    Cpu,
    /// The IPU Model: the same execution plus the cycle model.
    Sim,
}

impl DeviceKind {
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Cpu => "cpu",
            DeviceKind::Sim => "sim",
        }
    }
}

/// Most worker contexts a target may have (checked by the validator).
pub const MAX_WORKERS: usize = linker::valid::MAX_WORKERS as usize;

/// Which of a replicated run's syncs use Poplar's second sync group, the
/// one of all IPUs, so that every replica waits there for the latest (on
/// both devices, as at a collective; `sim` charges the wait as sync time).
/// The first group is `syncConfiguration`'s: the IPUs of one replica
/// (`intraReplicaAndAll`) or each IPU alone (`ipuAndAll`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SyncSpans {
    /// Host transfers: unless `target.syncReplicasIndependently` puts
    /// host syncs in the first group.
    pub host: bool,
    /// Exchange between the IPUs of a replica: under `ipuAndAll`, whose
    /// first group cannot join two IPUs.
    pub ipus: bool,
}

impl SyncSpans {
    /// The spans of a run of `replicas` replicas with these links, whose
    /// host syncs are in the first group when `independent`.
    pub fn new(replicas: u32, links: &vocab::IpuLinks, independent: bool) -> SyncSpans {
        let replicated = replicas > 1;
        SyncSpans {
            host: replicated && !independent,
            ipus: replicated && links.sync == vocab::SyncConfiguration::IpuAndAll,
        }
    }
}

/// A loaded image on a device, with its memory.
pub struct Machine {
    pub(crate) loaded: Arc<Loaded>,
    pub kind: DeviceKind,
    storage: Vec<Vec<u64>>,
    ptrs: Vec<usize>,
    lens: Vec<u32>,
    /// The worker threads besides the caller (all N when compute must
    /// run on sized stacks); `None` with one thread.
    pool: Option<rayon::ThreadPool>,
    /// Host threads tiles run on.
    nthreads: usize,
    /// Per compute set: thread nanoseconds its runs took (the last run's
    /// and the ones before, halved each run); 0 until it has run.
    cs_work: Vec<u64>,
    /// Per compute set: thread `i` runs `cs.tiles[s[i]..s[i+1]]` (a
    /// contiguous tile range balanced by that compute set's vertex count).
    cs_split: Vec<Vec<u32>>,
    /// Per exchange (compute set `i` in: `2i`, out: `2i+1`, then copies):
    /// thread `i` performs `transfers[s[i]..s[i+1]]`, split at destination
    /// tile boundaries and balanced by bytes.
    x_split: Vec<Vec<u32>>,
    /// Per compute set whose exchange in runs tile by tile
    /// (`ComputeSet::in_by_tile`), per entry of its `tiles`: the range of
    /// its `exchange_in.transfers` into that tile; empty for the others.
    in_by_tile: Vec<Vec<(u32, u32)>>,
    tile_out: Vec<Vec<u8>>,
    tile_res: Vec<TileResult>,
    /// Per compute set: exchange in and out; then per copy.
    pub(crate) cs_info: Vec<(ExchangeInfo, ExchangeInfo)>,
    pub(crate) copy_info: Vec<ExchangeInfo>,
    pub(crate) host: HostState,
    pub totals: Totals,
    /// Stop when cycles (sim) or steps (cpu) exceed this.
    pub max_cycles: Option<u64>,
    /// Stop at the first step boundary past this instant (`--timeout`),
    /// with the limit in milliseconds for the message.
    deadline: Option<(Instant, u64)>,
    /// Compute phases always run on the pool, whose threads have stacks
    /// sized for the image's largest frame (the caller's may be smaller).
    always_pool: bool,
    /// The first tile whose `printf` buffer filled in the last compute set.
    printf_full: Option<u32>,
    /// The word codelet code reads at loop back edges (`TileCtx::stop`):
    /// set once the deadline passes, it stops code that is running.
    stop: Arc<AtomicU32>,
    pub(crate) rec: Option<Recorder>,
    /// The lightweight profiler's plan and records (sim, when asked for).
    pub(crate) blocks: Option<crate::blocks::Blocks>,
    /// Run the plain variant on sim too (no instruction counts).
    pub(crate) uninstrumented: bool,
    /// This machine's replica number, and where it meets the other
    /// replicas at collectives (`None`: the only replica).
    pub(crate) replica: u32,
    pub(crate) fabric: Option<Arc<dyn crate::replicas::Fabric>>,
    /// Which syncs of a replicated run on `sim` span every replica, so
    /// that the replicas meet there (Poplar's second sync group).
    pub(crate) spans: SyncSpans,
    /// The memory of the last collective's output, reused for the next
    /// one's input (a large buffer freshly allocated each time would be
    /// faulted in page by page).
    pub(crate) collective_buffer: Vec<u8>,
}

/// The stop word's value once a run is interrupted (a passed deadline sets 1).
const INTERRUPTED: u32 = 2;

/// Stops a machine's run from another thread (Ctrl-C in a host program
/// that runs it on a thread of its own): the interpreter stops at its next
/// step, codelet code at its next loop back edge, and the run returns
/// [`RunError::Interrupted`](crate::RunError::Interrupted).
#[derive(Clone, Debug)]
pub struct Interrupter(Arc<AtomicU32>);

impl Interrupter {
    pub fn interrupt(&self) {
        self.0.store(INTERRUPTED, Ordering::Relaxed);
    }
}

/// Stack a worker thread has beyond the largest vertex frame: host
/// functions, `printf` formatting and the runtime's own frames.
const STACK_MARGIN: usize = 1 << 20;

/// The smallest worker stack (Rust's default for spawned threads).
const MIN_WORKER_STACK: usize = 2 << 20;

/// Largest vertex frame run on the calling thread, whose stack size the
/// runtime does not choose (a test thread has 2 MiB); above this, compute
/// always runs on the sized pool.
const CALLER_FRAME_LIMIT: u32 = 256 << 10;

/// Where program output goes as it is produced: a writer (the command
/// line's standard output), or nowhere until [`crate::Engine::take_output`].
pub(crate) type Sink<'a> = Option<&'a mut dyn Write>;

impl Machine {
    /// Allocates tile memory (zeroed, then the initial segments) and the
    /// thread pool. `threads` of 0 means all cores.
    pub fn new(loaded: Arc<Loaded>, kind: DeviceKind, threads: usize) -> Machine {
        let image = &loaded.image;
        let mut storage: Vec<Vec<u64>> =
            image.tiles.iter().map(|t| vec![0u64; (t.mem_size as usize).div_ceil(8)]).collect();
        for (t, tile) in image.tiles.iter().enumerate() {
            let bytes = memory::words_as_bytes_mut(&mut storage[t]);
            for s in &tile.init {
                bytes[s.offset as usize..s.offset as usize + s.bytes.len()].copy_from_slice(&s.bytes);
            }
        }
        let ptrs = storage.iter_mut().map(|s| s.as_mut_ptr() as usize).collect();
        let lens = image.tiles.iter().map(|t| t.mem_size).collect();
        let threads =
            if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
        let threads = threads.clamp(1, image.tiles.len().max(1));
        let always_pool = image.largest_frame() > CALLER_FRAME_LIMIT;
        // The caller runs the first range of every phase itself, unless
        // compute needs the pool's sized stacks.
        let workers = if always_pool { threads } else { threads - 1 };
        let pool = (workers > 0).then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .thread_name(|i| format!("tile-worker-{i}"))
                .stack_size(worker_stack(image.largest_frame()))
                .build()
                .expect("thread pool")
        });
        let ntiles = image.tiles.len();
        let cs_info = image
            .compute_sets
            .iter()
            .map(|cs| {
                (
                    exchange_info(&cs.exchange_in, &image.target),
                    exchange_info(&cs.exchange_out, &image.target),
                )
            })
            .collect();
        let copy_info = image.copies.iter().map(|x| exchange_info(x, &image.target)).collect();
        let cs_split = image
            .compute_sets
            .iter()
            .map(|cs| split(threads, cs.tiles.iter().map(|w| 4 * u64::from(w.end - w.start) + 1), |_| true))
            .collect();
        let x_split = image
            .compute_sets
            .iter()
            .flat_map(|cs| [&cs.exchange_in, &cs.exchange_out])
            .chain(image.copies.iter())
            .map(|x| {
                split(threads, x.transfers.iter().map(|t| u64::from(t.bytes) + 64), |i| {
                    x.transfers[i - 1].dst_tile != x.transfers[i].dst_tile
                })
            })
            .collect();
        let in_by_tile = image
            .compute_sets
            .iter()
            .map(|cs| {
                let tr = &cs.exchange_in.transfers;
                let of = |t: u32| tr.partition_point(|x| x.dst_tile < t) as u32;
                match cs.in_by_tile {
                    true => cs.tiles.iter().map(|w| (of(w.tile), of(w.tile + 1))).collect(),
                    false => Vec::new(),
                }
            })
            .collect();
        let host = HostState {
            streams: image.streams.iter().map(|_| (Vec::new(), 0, false)).collect(),
            outside: image.streams.iter().map(|_| None).collect(),
            remote: image.remote_buffers.iter().map(|_| Vec::new()).collect(),
            remote_bytes: image.remote_buffer_bytes(),
            output: Vec::new(),
        };
        Machine {
            kind,
            storage,
            ptrs,
            lens,
            pool,
            nthreads: threads,
            cs_work: vec![0; image.compute_sets.len()],
            cs_split,
            x_split,
            in_by_tile,
            tile_out: vec![Vec::new(); ntiles],
            tile_res: vec![TileResult::default(); ntiles],
            cs_info,
            copy_info,
            host,
            totals: Totals::default(),
            max_cycles: None,
            deadline: None,
            always_pool,
            printf_full: None,
            stop: Arc::new(AtomicU32::new(0)),
            rec: None,
            blocks: None,
            uninstrumented: false,
            replica: 0,
            fabric: None,
            spans: SyncSpans::default(),
            collective_buffer: Vec::new(),
            loaded,
        }
    }

    /// Makes this machine replica `replica`: writes its index into the
    /// image's replication-index tensors and shares `first`'s stop word,
    /// so one interrupt or deadline stops every replica.
    pub(crate) fn become_replica(&mut self, replica: u32, first: &Machine) {
        self.replica = replica;
        self.stop = first.stop.clone();
        self.write_replica_index();
    }

    /// Writes [`Machine::replica`] into every replication-index tensor.
    pub(crate) fn write_replica_index(&mut self) {
        let loaded = self.loaded.clone();
        for r in &loaded.image.replica_index {
            let one = vocab::encode_vec(r.elem, vocab::Value::Int(i128::from(self.replica)));
            let bytes: usize = r.regions.iter().map(|x| x.bytes as usize).sum();
            let data: Vec<u8> = one.iter().copied().cycle().take(bytes).collect();
            self.scatter(&r.regions, &data);
        }
    }

    /// Stops every later run at the first step boundary past `at`, and
    /// codelet code running then at its next loop back edge (a thread sets
    /// the stop word at `at`).
    pub(crate) fn set_deadline(&mut self, at: Instant, millis: u64) {
        self.deadline = Some((at, millis));
        let stop = self.stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
            stop.store(1, Ordering::Relaxed);
        });
    }

    /// A handle that stops this machine's runs from another thread.
    pub(crate) fn interrupter(&self) -> Interrupter {
        Interrupter(self.stop.clone())
    }

    /// Whether [`Interrupter::interrupt`] stopped the run.
    pub(crate) fn interrupted(&self) -> bool {
        self.stop.load(Ordering::Relaxed) == INTERRUPTED
    }

    /// Clears an interrupt that stopped the last run, before the next.
    pub(crate) fn clear_interrupt(&self) {
        let _ = self.stop.compare_exchange(INTERRUPTED, 0, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Threads this machine runs tiles on.
    pub fn threads(&self) -> usize {
        self.nthreads
    }
}

/// Thread time a compute phase must have per thread it runs on: fanning
/// out to a sleeping worker costs it tens of microseconds on a busy or
/// virtual machine, and more the more threads wake at once.
const WORK_PER_THREAD_NS: u64 = 50_000;

/// Bytes an exchange phase must move per thread it runs on (about as long
/// to copy as [`WORK_PER_THREAD_NS`]).
const BYTES_PER_THREAD: u64 = 256 << 10;

impl Machine {
    /// The threads a compute phase runs on: all until it has run once,
    /// then one per [`WORK_PER_THREAD_NS`] of its thread time.
    pub(super) fn compute_threads(&self, cs: usize) -> usize {
        match self.cs_work[cs] {
            0 => self.nthreads,
            w => ((w / WORK_PER_THREAD_NS) as usize).clamp(1, self.nthreads),
        }
    }

    /// Records that compute phase `cs` took `ns` thread nanoseconds.
    pub(super) fn record_work(&mut self, cs: usize, ns: u64) {
        let w = &mut self.cs_work[cs];
        *w = if *w == 0 { ns.max(1) } else { (*w / 2 + ns / 2).max(1) };
    }

    /// The threads an exchange phase of `bytes` bytes runs on.
    pub(super) fn exchange_threads(&self, bytes: u64) -> usize {
        ((bytes / BYTES_PER_THREAD) as usize).clamp(1, self.nthreads)
    }

    /// Runs `run(lo, hi)` over the ranges of `split` (`N + 1` cut points
    /// for N threads) on `used` threads: thread `i` takes ranges `i * N /
    /// used` up to `(i + 1) * N / used`, the caller the first of them.
    /// Returns each thread's result in range order.
    pub(super) fn fan_out<R: Send>(
        &self,
        split: &[u32],
        used: usize,
        run: impl Fn(usize, usize) -> R + Sync,
    ) -> Vec<R> {
        let n = split.len() - 1;
        let used = used.clamp(1, n);
        let share = |i: usize| share(split, used, i);
        let pool = match &self.pool {
            Some(pool) if used > 1 || self.always_pool => pool,
            _ => return vec![run(0, split[n] as usize)],
        };
        if used == 1 {
            return vec![pool.install(|| run(0, split[n] as usize))];
        }
        let mut out: Vec<Option<R>> = (0..used).map(|_| None).collect();
        match self.always_pool {
            true => pool.scope(|scope| spread(scope, &mut out, &run, &share)),
            false => pool.in_place_scope(|scope| spread(scope, &mut out, &run, &share)),
        }
        out.into_iter().map(|r| r.expect("every thread ran")).collect()
    }
}

/// Thread `i`'s items when the ranges of `split` (`N + 1` cut points) go
/// to `used` threads: ranges `i * N / used` up to `(i + 1) * N / used`.
fn share(split: &[u32], used: usize, i: usize) -> (usize, usize) {
    let n = split.len() - 1;
    (split[i * n / used] as usize, split[(i + 1) * n / used] as usize)
}

/// Runs share 0 here and spawns the others on `scope`, each writing its
/// slot of `out`.
fn spread<'s, R: Send>(
    scope: &rayon::Scope<'s>,
    out: &'s mut [Option<R>],
    run: &'s (impl Fn(usize, usize) -> R + Sync),
    share: &'s (impl Fn(usize) -> (usize, usize) + Sync),
) {
    let (first, rest) = out.split_first_mut().expect("one thread at least");
    for (i, slot) in rest.iter_mut().enumerate() {
        let (lo, hi) = share(i + 1);
        scope.spawn(move |_| *slot = Some(run(lo, hi)));
    }
    let (lo, hi) = share(0);
    *first = Some(run(lo, hi));
}

/// Stack bytes of a worker thread for vertex frames of up to `frame` bytes.
pub fn worker_stack(frame: u32) -> usize {
    (frame as usize + STACK_MARGIN).max(MIN_WORKER_STACK)
}

/// Splits items `0..n` (weights `weight`) into `threads` contiguous
/// ranges of similar total weight, cutting only before items `i` for which
/// `cut(i)` holds. Returns `threads + 1` indices.
fn split(
    threads: usize,
    weight: impl ExactSizeIterator<Item = u64> + Clone,
    cut: impl Fn(usize) -> bool,
) -> Vec<u32> {
    let n = weight.len();
    let total: u64 = weight.clone().sum();
    let mut out = vec![0u32];
    let mut acc = 0u64;
    for (i, w) in weight.enumerate() {
        // Cut before item `i` once the weight so far reaches the next share.
        while out.len() < threads && i > 0 && acc * threads as u64 >= total * out.len() as u64 && cut(i) {
            out.push(i as u32);
        }
        acc += w;
    }
    while out.len() < threads + 1 {
        out.push(n as u32);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the threads a phase uses, their shares are the machine's
    /// ranges in order, each item once.
    #[test]
    fn shares_cover_every_item_once_in_order() {
        for threads in 1..=7 {
            let weights = (0..23u32).map(|i| u64::from(i * 7 % 5 + 1));
            let s = split(threads, weights, |i| i % 3 != 0);
            assert_eq!(s.len(), threads + 1);
            for used in 1..=threads {
                let mut next = 0;
                for i in 0..used {
                    let (lo, hi) = share(&s, used, i);
                    assert_eq!(lo, next, "{threads} threads, {used} used");
                    assert!(hi >= lo);
                    next = hi;
                }
                assert_eq!(next, 23);
            }
        }
    }
}

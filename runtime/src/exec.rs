//! The execution core shared by both devices: tile memories, the
//! bulk-synchronous compute / exchange phases on a fixed pool of host
//! threads, and the interpreter of the control program.
//!
//! Threads: a fixed rayon pool of N threads. Each phase is split, once when
//! the machine is built, into N contiguous tile ranges balanced for that
//! phase: by the compute set's vertex count, or by the exchange's bytes
//! (cut only between destination tiles). In a compute phase each thread
//! runs the vertices of its own tiles, in tile order; in an exchange phase
//! each thread performs the transfers whose destination tile it owns (an
//! image's transfers are sorted by destination and never read what the
//! same phase writes). `broadcast` returning is the
//! barrier. Every tile's result depends only on its own memory and the
//! phase's transfers, so results are bit-identical for any N.
//!
//! `sim` runs the counting code variant and turns counts into cycles with
//! [`crate::cost`]; `cpu` runs the plain variant and counts steps only.
//! Printf output is collected per tile and joined in tile order.

#![allow(unsafe_code)]

use std::ffi::c_void;
use std::io::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

use linker::abi::{TileCtx, STATUS_OK};
use linker::gp::VertexBase;
use linker::image::{element_count, Exchange, Region, ScalarRef, Step};
use linker::profile::StepIds;

use crate::cost;
use crate::error::{Fault, HostError, RunError, StepPath};
use crate::format;
use crate::loader::Loaded;
use crate::profile::Recorder;
use crate::totals::Totals;

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

type Entry2 = unsafe extern "C" fn(*mut TileCtx, u32) -> u32;
type Entry3 = unsafe extern "C" fn(*mut TileCtx, u32, u32) -> u32;

/// A raw view of per-tile data that threads index by tile; each tile is
/// touched only by the thread that owns it during a phase.
#[derive(Clone, Copy)]
struct Shared<T>(*mut T);
// SAFETY: users uphold the ownership discipline described above.
unsafe impl<T> Send for Shared<T> {}
unsafe impl<T> Sync for Shared<T> {}
impl<T> Shared<T> {
    /// # Safety
    /// `i` in bounds and owned by the calling thread for the phase.
    #[allow(clippy::mut_from_ref)]
    unsafe fn at(&self, i: usize) -> &mut T {
        // SAFETY: per the contract.
        unsafe { &mut *self.0.add(i) }
    }
}

/// Static facts about one exchange, computed once.
#[derive(Clone, Debug, Default)]
pub(crate) struct ExchangeInfo {
    pub bytes: u64,
    /// Modelled cycles (slowest tile).
    pub cycles: u64,
    /// Sum over tiles of their exchange cycles.
    pub tile_cycles: u64,
    pub active_tiles: u32,
    /// Largest bytes sent or received by one tile.
    pub max_tile_bytes: u64,
    /// Bytes sent plus received, summed over tiles, and the largest of one
    /// tile (the profile's data balance).
    pub tile_data: u64,
    pub max_tile_data: u64,
}

/// Per-tile result of a compute phase.
#[derive(Clone, Debug, Default)]
struct TileResult {
    cycles: u64,
    active: u64,
}

/// Host-side data: stream buffers, remote buffers, printed text.
#[derive(Debug, Default)]
pub(crate) struct HostState {
    /// Per stream: the host buffer and the next byte position.
    pub streams: Vec<(Vec<u8>, usize, bool)>,
    /// Per remote buffer: its bytes, empty until first written (reading an
    /// unwritten buffer gives zeros), and the size it has then.
    remote: Vec<Vec<u8>>,
    remote_bytes: Vec<usize>,
    pub output: Vec<u8>,
}

impl HostState {
    /// Remote buffer `b`, allocated zeroed on first use; an error, not an
    /// abort, when the host cannot provide the memory.
    pub(crate) fn remote_mut(&mut self, b: usize) -> Result<&mut [u8], HostError> {
        if self.remote[b].len() != self.remote_bytes[b] {
            self.remote[b] = try_zeroed(self.remote_bytes[b])?;
        }
        Ok(&mut self.remote[b])
    }

    /// Bytes of remote buffer `b`.
    pub(crate) fn remote_bytes(&self, b: usize) -> usize {
        self.remote_bytes[b]
    }

    /// A copy of `len` bytes of remote buffer `b` from `at` (zeros if it was
    /// never written).
    pub(crate) fn remote_read(&self, b: usize, at: usize, len: usize) -> Result<Vec<u8>, HostError> {
        if self.remote[b].len() == self.remote_bytes[b] {
            Ok(self.remote[b][at..at + len].to_vec())
        } else {
            try_zeroed(len)
        }
    }
}

/// `n` zero bytes, or an error if the host has no memory for them (the
/// operating system supplies zeroed pages lazily, so untouched parts cost
/// nothing).
fn try_zeroed(n: usize) -> Result<Vec<u8>, HostError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let fail = || HostError::Data(format!("the host cannot allocate {n} bytes for a remote buffer"));
    let layout = std::alloc::Layout::array::<u8>(n).map_err(|_| fail())?;
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        return Err(fail());
    }
    // SAFETY: `p` comes from the global allocator with the layout of `n`
    // bytes (capacity `n`), all initialised to zero.
    Ok(unsafe { Vec::from_raw_parts(p, n, n) })
}

/// A loaded image on a device, with its memory.
pub struct Machine {
    pub(crate) loaded: Arc<Loaded>,
    pub kind: DeviceKind,
    storage: Vec<Vec<u64>>,
    ptrs: Vec<usize>,
    lens: Vec<u32>,
    pool: Option<rayon::ThreadPool>,
    /// Host threads tiles run on.
    nthreads: usize,
    /// Per compute set: thread `i` runs `cs.tiles[s[i]..s[i+1]]` (a
    /// contiguous tile range balanced by that compute set's vertex count).
    cs_split: Vec<Vec<u32>>,
    /// Per exchange (compute set `i` in: `2i`, out: `2i+1`, then copies):
    /// thread `i` performs `transfers[s[i]..s[i+1]]`, split at destination
    /// tile boundaries and balanced by bytes.
    x_split: Vec<Vec<u32>>,
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
    /// Run the plain variant on sim too (no instruction counts).
    pub(crate) uninstrumented: bool,
}

/// Below this many bytes an exchange runs on the calling thread.
const PARALLEL_EXCHANGE_BYTES: u64 = 64 * 1024;

/// Program output waiting in memory is written out once it reaches this
/// many bytes (and at the end of each run), so long runs print as they go.
const OUTPUT_CHUNK: usize = 64 * 1024;

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
            // SAFETY: the storage holds mem_size bytes, u8 view of u64s.
            let bytes = unsafe {
                std::slice::from_raw_parts_mut(storage[t].as_mut_ptr() as *mut u8, storage[t].len() * 8)
            };
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
        let pool = (threads > 1 || always_pool).then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("tile-worker-{i}"))
                .stack_size(worker_stack(image.largest_frame()))
                .build()
                .expect("thread pool")
        });
        let ntiles = image.tiles.len();
        let bpc = image.target.exchange_bytes_per_cycle;
        let cs_info = image
            .compute_sets
            .iter()
            .map(|cs| {
                (exchange_info(&cs.exchange_in, ntiles, bpc), exchange_info(&cs.exchange_out, ntiles, bpc))
            })
            .collect();
        let copy_info = image.copies.iter().map(|x| exchange_info(x, ntiles, bpc)).collect();
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
        let host = HostState {
            streams: image.streams.iter().map(|_| (Vec::new(), 0, false)).collect(),
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
            cs_split,
            x_split,
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
            uninstrumented: false,
            loaded,
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

    /// Threads this machine runs tiles on.
    pub fn threads(&self) -> usize {
        self.nthreads
    }

    /// Copies tile memory regions, in order, into one buffer.
    pub(crate) fn gather(&self, regions: &[Region]) -> Vec<u8> {
        let mut out = Vec::with_capacity(regions.iter().map(|r| r.bytes as usize).sum());
        for r in regions {
            out.extend_from_slice(&self.tile_bytes(r.tile)[r.offset as usize..(r.offset + r.bytes) as usize]);
        }
        out
    }

    /// Writes `data` across tile memory regions, in order.
    pub(crate) fn scatter(&mut self, regions: &[Region], data: &[u8]) {
        let mut at = 0;
        for r in regions {
            let n = r.bytes as usize;
            let tile = self.tile_bytes_mut(r.tile);
            tile[r.offset as usize..r.offset as usize + n].copy_from_slice(&data[at..at + n]);
            at += n;
        }
    }

    fn tile_bytes(&self, tile: u32) -> &[u8] {
        let s = &self.storage[tile as usize];
        // SAFETY: u8 view of the tile's u64 storage, limited to mem_size.
        unsafe { std::slice::from_raw_parts(s.as_ptr() as *const u8, self.lens[tile as usize] as usize) }
    }

    fn tile_bytes_mut(&mut self, tile: u32) -> &mut [u8] {
        let len = self.lens[tile as usize] as usize;
        let s = &mut self.storage[tile as usize];
        // SAFETY: as above, with exclusive access through &mut self.
        unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr() as *mut u8, len) }
    }

    /// A predicate: non-zero is true (for floats, `!= 0.0`; NaN is true).
    fn scalar(&self, s: &ScalarRef) -> i64 {
        let b = &self.tile_bytes(s.tile)[s.offset as usize..];
        match format::decode(s.elem, b) {
            format::Value::Int(i) => (i != 0) as i64,
            format::Value::Bool(b) => b as i64,
            format::Value::Float(f) => (f != 0.0) as i64,
        }
    }

    fn scalar_exact(&self, s: &ScalarRef) -> i64 {
        let b = &self.tile_bytes(s.tile)[s.offset as usize..];
        match format::decode(s.elem, b) {
            format::Value::Int(i) => i as i64,
            format::Value::Bool(b) => b as i64,
            format::Value::Float(f) => f as i64,
        }
    }

    /// Runs entry program `index`; output goes to `out` as it is produced
    /// (all of it by the time this returns), or stays in memory without one.
    pub fn run_program(&mut self, index: usize, mut out: Sink) -> Result<(), RunError> {
        let loaded = self.loaded.clone();
        let program = loaded
            .image
            .programs
            .get(index)
            .ok_or_else(|| RunError::Program(format!("there is no program {index}")))?;
        if let Some(rec) = &mut self.rec {
            rec.program_trace.push(loaded.tree.control[index]);
        }
        let label = format!("program '{}'", program.name);
        let mut path = Vec::new();
        let ids = &loaded.tree.program_steps[index];
        let r = self.steps(&program.body, ids, &label, &mut path, index as u32, &mut out);
        self.flush_output(&mut out, 0);
        r
    }

    /// Writes waiting output to `out` once there are at least `min` bytes.
    fn flush_output(&mut self, out: &mut Sink, min: usize) {
        if let Some(w) = out {
            if !self.host.output.is_empty() && self.host.output.len() >= min {
                let _ = w.write_all(&self.host.output);
                let _ = w.flush();
                self.host.output.clear();
            }
        }
    }

    /// Runs `steps`; `ids` are their nodes in the profiles' program list.
    fn steps(
        &mut self,
        steps: &[Step],
        ids: &[StepIds],
        label: &str,
        path: &mut Vec<usize>,
        program: u32,
        out: &mut Sink,
    ) -> Result<(), RunError> {
        for (i, (step, id)) in steps.iter().zip(ids).enumerate() {
            path.push(i);
            let r = self.step(step, id, label, path, program, out);
            path.pop();
            self.flush_output(out, OUTPUT_CHUNK);
            r?;
        }
        Ok(())
    }

    fn where_(&self, label: &str, path: &[usize], step: &Step) -> StepPath {
        let image = &self.loaded.image;
        let what = match step {
            Step::Execute(cs) => format!("execute '{}'", image.compute_sets[*cs as usize].name),
            Step::Copy(c) => format!("copy {c}"),
            Step::StreamIn { stream, .. } => {
                format!("copy from stream '{}'", image.streams[*stream as usize].name)
            }
            Step::StreamOut { stream, .. } => {
                format!("copy to stream '{}'", image.streams[*stream as usize].name)
            }
            Step::RemoteRead { buffer, repeat, .. } => {
                format!("read remote buffer '{}'[{repeat}]", image.remote_buffers[*buffer as usize].name)
            }
            Step::RemoteWrite { buffer, repeat, .. } => {
                format!("write remote buffer '{}'[{repeat}]", image.remote_buffers[*buffer as usize].name)
            }
            Step::Print { label, .. } => format!("print '{label}'"),
            Step::Repeat { count, .. } => format!("repeat {count}"),
            Step::While { .. } => "while".into(),
            Step::If { .. } => "if".into(),
            Step::Switch { .. } => "switch".into(),
            Step::Call(f) => format!("call '{}'", image.functions[*f as usize].name),
            Step::Sync => "sync".into(),
        };
        StepPath { program: label.to_string(), indices: path.to_vec(), what }
    }

    /// Counts a step (or a loop iteration) and stops the run past
    /// `--max-cycles` or `--timeout`.
    fn charge(&mut self, label: &str, path: &[usize], step: &Step) -> Result<(), RunError> {
        self.totals.steps = self.totals.steps.saturating_add(1);
        if let Some((at, millis)) = self.deadline {
            if Instant::now() >= at {
                return Err(RunError::Timeout { millis, step: self.where_(label, path, step) });
            }
        }
        if let Some(limit) = self.max_cycles {
            let (used, what) = match self.kind {
                DeviceKind::Sim => (self.totals.cycles, "cycles"),
                DeviceKind::Cpu => (self.totals.steps, "steps"),
            };
            if used > limit {
                return Err(RunError::MaxCycles { limit, used, what, step: self.where_(label, path, step) });
            }
        }
        Ok(())
    }

    fn sync(&mut self, program: u32) {
        if self.kind == DeviceKind::Sim {
            let c = u64::from(self.loaded.image.target.sync_cycles);
            let from = self.totals.cycles;
            self.totals.charge(program, |t| {
                t.cycles = t.cycles.saturating_add(c);
                t.sync = t.sync.saturating_add(c);
            });
            if let Some(rec) = &mut self.rec {
                rec.sync(from, c);
            }
        }
    }

    /// A predicate broadcast: a sync, then a one-word exchange on every
    /// tile; `node` is the branch or loop in the profiles.
    fn control(&mut self, program: u32, node: u32) {
        if self.kind == DeviceKind::Sim {
            self.sync(program);
            let c = cost::branch_exchange_cycles();
            let tiles = self.loaded.image.tiles.len() as u64;
            let from = self.totals.cycles;
            self.totals.charge(program, |t| {
                t.cycles = t.cycles.saturating_add(c);
                t.exchange = t.exchange.saturating_add(c);
                t.exchange_tile = t.exchange_tile.saturating_add(c.saturating_mul(tiles));
            });
            if let Some(rec) = &mut self.rec {
                rec.broadcast(node, from, c, tiles as u32);
            }
        }
    }

    /// A repeat iteration or a call: the tiles' own loop or branch.
    fn loop_step(&mut self, program: u32) {
        if self.kind == DeviceKind::Sim {
            self.totals.charge(program, |t| t.cycles = t.cycles.saturating_add(cost::LOOP_CYCLES));
            if let Some(rec) = &mut self.rec {
                rec.control_cycles = rec.control_cycles.saturating_add(cost::LOOP_CYCLES);
            }
        }
    }

    /// A host transfer: `node` is its `StreamCopy` in the profiles.
    fn host_transfer(&mut self, program: u32, node: u32, regions: &[Region]) {
        if self.kind != DeviceKind::Sim {
            return;
        }
        self.sync(program);
        let bytes: u64 = regions.iter().map(|r| u64::from(r.bytes)).sum();
        let c = cost::host_transfer_cycles(bytes, self.loaded.image.target.clock_mhz);
        let from = self.totals.cycles;
        self.totals.charge(program, |t| {
            t.cycles = t.cycles.saturating_add(c);
            t.host = t.host.saturating_add(c);
        });
        if let Some(rec) = &mut self.rec {
            let mut tiles: Vec<u32> = regions.iter().map(|r| r.tile).collect();
            tiles.sort_unstable();
            tiles.dedup();
            let loaded = self.loaded.clone();
            rec.stream_copy(&loaded.tree, node, from, c, tiles.len() as u32, bytes);
        }
    }

    fn step(
        &mut self,
        step: &Step,
        id: &StepIds,
        label: &str,
        path: &mut Vec<usize>,
        program: u32,
        out: &mut Sink,
    ) -> Result<(), RunError> {
        self.charge(label, path, step)?;
        let loaded = self.loaded.clone();
        let image = &loaded.image;
        match step {
            Step::Execute(cs) => {
                let cs = *cs as usize;
                let (xin, xout) = self.cs_info[cs].clone();
                let name = &image.compute_sets[cs].name;
                self.sync(program);
                if let Some(node) = id.pre {
                    self.exchange(&image.compute_sets[cs].exchange_in, &xin, 2 * cs, program, node);
                }
                self.compute(cs, program, id.node)
                    .map_err(|fault| RunError::Vertex { fault, step: self.where_(label, path, step) })?;
                if let Some(tile) = self.printf_full.take() {
                    return Err(RunError::Program(format!(
                        "tile {tile} printed more than {} KiB with printf in compute set '{name}' (a compute \
                         set's printf output is held until it ends), at {}",
                        linker::host::PRINTF_LIMIT >> 10,
                        self.where_(label, path, step)
                    )));
                }
                if let Some(node) = id.post {
                    self.sync(program);
                    self.exchange(&image.compute_sets[cs].exchange_out, &xout, 2 * cs + 1, program, node);
                }
            }
            Step::Copy(c) => {
                let info = self.copy_info[*c as usize].clone();
                self.sync(program);
                let xi = 2 * image.compute_sets.len() + *c as usize;
                self.exchange(&image.copies[*c as usize], &info, xi, program, id.node);
            }
            Step::StreamIn { stream, regions } => {
                let s = &image.streams[*stream as usize];
                let block = (element_count(&s.shape) * u64::from(s.elem.size())) as usize;
                let (buf, pos, connected) = &mut self.host.streams[*stream as usize];
                if !*connected || buf.is_empty() {
                    return Err(RunError::Unconnected {
                        stream: s.name.clone(),
                        step: self.where_(label, path, step),
                    });
                }
                let mut data = Vec::with_capacity(block);
                while data.len() < block {
                    let take = (block - data.len()).min(buf.len() - *pos);
                    data.extend_from_slice(&buf[*pos..*pos + take]);
                    *pos = (*pos + take) % buf.len();
                }
                self.scatter(regions, &data);
                self.host_transfer(program, id.node, regions);
            }
            Step::StreamOut { stream, regions } => {
                let data = self.gather(regions);
                let (buf, pos, connected) = &mut self.host.streams[*stream as usize];
                if *connected && !buf.is_empty() {
                    let mut at = 0;
                    while at < data.len() {
                        let take = (data.len() - at).min(buf.len() - *pos);
                        buf[*pos..*pos + take].copy_from_slice(&data[at..at + take]);
                        *pos = (*pos + take) % buf.len();
                        at += take;
                    }
                } else {
                    buf.extend_from_slice(&data);
                }
                self.host_transfer(program, id.node, regions);
            }
            Step::RemoteRead { buffer, repeat, regions } => {
                let b = &image.remote_buffers[*buffer as usize];
                let block = (element_count(&b.shape) * u64::from(b.elem.size())) as usize;
                let at = block * *repeat as usize;
                let data = self.host.remote_read(*buffer as usize, at, block)?;
                self.scatter(regions, &data);
                self.host_transfer(program, id.node, regions);
            }
            Step::RemoteWrite { buffer, repeat, regions } => {
                let b = &image.remote_buffers[*buffer as usize];
                let block = (element_count(&b.shape) * u64::from(b.elem.size())) as usize;
                let at = block * *repeat as usize;
                let data = self.gather(regions);
                self.host.remote_mut(*buffer as usize)?[at..at + block].copy_from_slice(&data);
                self.host_transfer(program, id.node, regions);
            }
            Step::Print { label: text, elem, shape, regions } => {
                let data = self.gather(regions);
                let s = format::print_tensor(text, *elem, shape, &data);
                self.host.output.extend_from_slice(s.as_bytes());
                self.host_transfer(program, id.node, regions);
            }
            Step::Repeat { count, body } => {
                for _ in 0..*count {
                    self.steps(body, &id.bodies[0], label, path, program, out)?;
                    self.loop_step(program);
                    self.charge(label, path, step)?;
                }
            }
            Step::While { cond, pred, body } => loop {
                self.steps(cond, &id.bodies[0], label, path, program, out)?;
                self.control(program, id.node);
                self.charge(label, path, step)?;
                if self.scalar(pred) == 0 {
                    break;
                }
                self.steps(body, &id.bodies[1], label, path, program, out)?;
            },
            Step::If { pred, then, otherwise } => {
                self.control(program, id.node);
                let (body, ids) =
                    if self.scalar(pred) != 0 { (then, &id.bodies[0]) } else { (otherwise, &id.bodies[1]) };
                self.steps(body, ids, label, path, program, out)?;
            }
            Step::Switch { selector, cases, default } => {
                self.control(program, id.node);
                let v = self.scalar_exact(selector);
                let case = cases.iter().position(|(c, _)| *c == v);
                let body = case.map_or(default, |i| &cases[i].1);
                let ids = &id.bodies[case.unwrap_or(cases.len())];
                self.steps(body, ids, label, path, program, out)?;
            }
            Step::Call(f) => {
                self.loop_step(program);
                let func = &image.functions[*f as usize];
                let label = format!("function '{}'", func.name);
                let mut inner = Vec::new();
                let ids = &loaded.tree.function_steps[*f as usize];
                self.steps(&func.body, ids, &label, &mut inner, program, out)?;
            }
            Step::Sync => self.sync(program),
        }
        Ok(())
    }

    /// Performs one exchange phase and charges its cycles.
    /// One exchange phase; `node` is its `DoExchange` in the profiles.
    fn exchange(&mut self, x: &Exchange, info: &ExchangeInfo, xi: usize, program: u32, node: u32) {
        let ptrs = Shared(self.ptrs.as_ptr() as *mut usize);
        let run = |lo: usize, hi: usize| {
            for tr in &x.transfers[lo..hi] {
                // SAFETY: validated ranges; destinations of a phase are
                // disjoint and never read by another transfer of it.
                unsafe {
                    let src = (*ptrs.at(tr.src_tile as usize) as *const u8).add(tr.src_offset as usize);
                    let dst = (*ptrs.at(tr.dst_tile as usize) as *mut u8).add(tr.dst_offset as usize);
                    std::ptr::copy(src, dst, tr.bytes as usize);
                }
            }
        };
        match &self.pool {
            Some(pool) if info.bytes >= PARALLEL_EXCHANGE_BYTES => {
                let s = &self.x_split[xi];
                pool.broadcast(|ctx| {
                    run(s[ctx.index()] as usize, s[ctx.index() + 1] as usize);
                });
            }
            _ => run(0, x.transfers.len()),
        }
        if self.kind == DeviceKind::Sim {
            let from = self.totals.cycles;
            self.totals.charge(program, |t| {
                t.cycles = t.cycles.saturating_add(info.cycles);
                t.exchange = t.exchange.saturating_add(info.cycles);
                t.exchange_tile = t.exchange_tile.saturating_add(info.tile_cycles);
            });
            if let Some(rec) = &mut self.rec {
                let loaded = self.loaded.clone();
                rec.exchange(&loaded.tree, node, from, info, x);
            }
        }
    }

    /// Runs every vertex of compute set `cs`; on failure, the fault of the
    /// lowest failing tile.
    fn compute(&mut self, cs_index: usize, program: u32, node: u32) -> Result<(), Box<Fault>> {
        let loaded = self.loaded.clone();
        let image = &loaded.image;
        let cs = &image.compute_sets[cs_index];
        let sim = self.kind == DeviceKind::Sim;
        let counting = sim && !self.uninstrumented;
        let workers = (image.target.workers as usize).min(MAX_WORKERS);
        let ptrs = Shared(self.ptrs.as_ptr() as *mut usize);
        let out = Shared(self.tile_out.as_mut_ptr());
        let res = Shared(self.tile_res.as_mut_ptr());
        let lens = &self.lens;
        let host = crate::hostfns::table() as usize;
        let stop = Arc::as_ptr(&self.stop) as usize;
        // A vertex counting more than the cycles left over the workers would
        // take the phase past --max-cycles (a tile's time is at least
        // workers x its busiest worker's count): stop it inside.
        let budget = match self.max_cycles {
            Some(limit) if counting => limit.saturating_sub(self.totals.cycles) / workers.max(1) as u64,
            _ => u64::MAX,
        };
        let record = self.rec.is_some();
        let vcounts = std::sync::Mutex::new(Vec::<(u32, u32, u64)>::new());
        let run = |lo: usize, hi: usize| -> Option<Box<Fault>> {
            let mut local_counts: Vec<(u32, u32, u64)> = Vec::new();
            for w in &cs.tiles[lo..hi] {
                let t = w.tile as usize;
                let tile = &image.tiles[t];
                // SAFETY: tile `t` is owned by this thread for the phase.
                let buf = unsafe { out.at(t) };
                let mut ctx = TileCtx {
                    mem: unsafe { *ptrs.at(t) } as *mut u8,
                    mem_len: u64::from(lens[t]),
                    host: host as *const linker::abi::HostTable,
                    count: 0,
                    trap_addr: 0,
                    trap_line: 0,
                    tile: t as u32,
                    host_data: buf as *mut Vec<u8> as *mut c_void,
                    stop: stop as *const u32,
                    budget,
                };
                let mut loads = [0u64; MAX_WORKERS];
                let loads = &mut loads[..workers];
                let verts = &tile.vertices[w.start as usize..w.end as usize];
                for v in verts {
                    let vt = &image.vertex_types[v.vertex_type as usize];
                    let use_counting = counting && v.cycles.is_none();
                    let entry = if use_counting {
                        loaded.counting[v.vertex_type as usize]
                    } else {
                        loaded.plain[v.vertex_type as usize]
                    };
                    let fault = |ctx: &TileCtx, status: u32, worker: Option<u32>| {
                        Box::new(Fault {
                            tile: t as u32,
                            vertex_type: vt.name.clone(),
                            vertex_id: v.id,
                            compute_set: cs.name.clone(),
                            status,
                            trap_addr: ctx.trap_addr,
                            source: (ctx.trap_line != 0).then(|| (vt.source.clone(), ctx.trap_line)),
                            worker,
                        })
                    };
                    let mut total = 0u64;
                    if vt.base == VertexBase::MultiVertex {
                        // SAFETY: the loader mapped this entry with this signature.
                        let f: Entry3 = unsafe { std::mem::transmute::<usize, Entry3>(entry) };
                        for (wk, load) in loads.iter_mut().enumerate() {
                            ctx.count = 0;
                            // SAFETY: generated code only touches memory through ctx, checked.
                            let status = unsafe { f(&mut ctx, v.state, wk as u32) };
                            if status != STATUS_OK {
                                return Some(fault(&ctx, status, Some(wk as u32)));
                            }
                            let c = v.cycles.unwrap_or(ctx.count);
                            *load = load.saturating_add(c);
                            total = total.saturating_add(c);
                        }
                    } else {
                        // SAFETY: as above.
                        let f: Entry2 = unsafe { std::mem::transmute::<usize, Entry2>(entry) };
                        ctx.count = 0;
                        // SAFETY: as above.
                        let status = unsafe { f(&mut ctx, v.state) };
                        if status != STATUS_OK {
                            return Some(fault(&ctx, status, None));
                        }
                        let c = v.cycles.unwrap_or(ctx.count);
                        total = c;
                        if vt.base == VertexBase::Supervisor {
                            let m = loads.iter().copied().max().unwrap_or(0).saturating_add(c);
                            loads.iter_mut().for_each(|l| *l = m);
                        } else {
                            let (i, _) = loads.iter().enumerate().min_by_key(|&(i, l)| (*l, i)).unwrap();
                            loads[i] = loads[i].saturating_add(c);
                        }
                    }
                    if record && sim {
                        local_counts.push((v.id, v.vertex_type, total));
                    }
                }
                if sim {
                    // SAFETY: owned tile.
                    let r = unsafe { res.at(t) };
                    r.cycles = cost::tile_compute_cycles(loads);
                    r.active = loads.iter().fold(0u64, |a, &l| a.saturating_add(l));
                }
            }
            if !local_counts.is_empty() {
                vcounts.lock().unwrap().extend(local_counts);
            }
            None
        };
        let fault = match &self.pool {
            Some(pool) if cs.tiles.len() > 1 || self.always_pool => {
                let s = &self.cs_split[cs_index];
                let faults = pool.broadcast(|ctx| run(s[ctx.index()] as usize, s[ctx.index() + 1] as usize));
                faults.into_iter().flatten().min_by_key(|f| f.tile)
            }
            _ => run(0, cs.tiles.len()),
        };
        // Printf output in tile order, up to the failing tile.
        for w in &cs.tiles {
            let buf = &mut self.tile_out[w.tile as usize];
            if !buf.is_empty() {
                if fault.as_ref().is_none_or(|f| w.tile <= f.tile) {
                    self.host.output.extend_from_slice(buf);
                    if buf.len() >= linker::host::PRINTF_LIMIT && self.printf_full.is_none() {
                        self.printf_full = Some(w.tile);
                    }
                }
                buf.clear();
            }
        }
        if let Some(f) = fault {
            return Err(f);
        }
        if sim {
            let (mut max, mut tile_sum, mut active_sum) = (0u64, 0u64, 0u64);
            for w in &cs.tiles {
                let r = &self.tile_res[w.tile as usize];
                max = max.max(r.cycles);
                tile_sum = tile_sum.saturating_add(r.cycles);
                active_sum = active_sum.saturating_add(r.active);
            }
            let from = self.totals.cycles;
            self.totals.charge(program, |t| {
                t.cycles = t.cycles.saturating_add(max);
                t.compute = t.compute.saturating_add(max);
                t.compute_tile = t.compute_tile.saturating_add(tile_sum);
                t.compute_active = t.compute_active.saturating_add(active_sum);
            });
            if let Some(rec) = &mut self.rec {
                let per_tile: Vec<(u32, u64, u64)> = cs
                    .tiles
                    .iter()
                    .map(|w| {
                        let r = &self.tile_res[w.tile as usize];
                        (w.tile, r.cycles, r.active)
                    })
                    .collect();
                rec.compute(
                    node,
                    cs_index as u32,
                    &cs.name,
                    from,
                    max,
                    &per_tile,
                    &vcounts.into_inner().unwrap(),
                );
            }
        }
        Ok(())
    }

    /// Bytes of a handle's / region list's data.
    pub(crate) fn read_regions(&self, regions: &[Region]) -> Vec<u8> {
        self.gather(regions)
    }

    pub(crate) fn write_regions(&mut self, regions: &[Region], data: &[u8]) -> Result<(), HostError> {
        let want: usize = regions.iter().map(|r| r.bytes as usize).sum();
        if data.len() != want {
            return Err(HostError::Data(format!("expected {want} bytes, got {}", data.len())));
        }
        self.scatter(regions, data);
        Ok(())
    }
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

/// Bytes and modelled cycles of an exchange.
fn exchange_info(x: &Exchange, ntiles: usize, bpc: u32) -> ExchangeInfo {
    if x.transfers.is_empty() {
        return ExchangeInfo::default();
    }
    let bytes = x.transfers.iter().map(|t| u64::from(t.bytes)).sum();
    let _ = ntiles;
    let mut info = ExchangeInfo { bytes, ..Default::default() };
    for (_, s, r) in x.bytes_by_tile() {
        let c = cost::exchange_tile_cycles(s, r, bpc);
        info.cycles = info.cycles.max(c);
        info.tile_cycles = info.tile_cycles.saturating_add(c);
        info.active_tiles += 1;
        info.max_tile_bytes = info.max_tile_bytes.max(s.max(r));
        info.tile_data = info.tile_data.saturating_add(s + r);
        info.max_tile_data = info.max_tile_data.max(s + r);
    }
    info
}

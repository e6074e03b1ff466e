//! Compiling and running: `compileGraph` and `Engine`. A graph and its
//! programs compile in process with [`compiler::compile`] into an image;
//! an engine loads it on a device and runs programs, with streams bound to
//! live host memory or to callback objects of the host program.

use std::ffi::{c_char, c_void};

use linker::image::Image;
use runtime::{DeviceKind, EngineOptions, HostStream};

use crate::device::Device;
use crate::graph::{bodies, Graph};
use crate::program::Program;
use crate::status::{guard, ApiError, Result, Status};
use crate::{free, handle, handle_mut, put, put_box, put_string, slice, text};

/// A compiled graph (`prs_executable`): the image and its graph profile.
pub struct Executable {
    pub image: Image,
    /// The graph profile (JSON), for the summary and autoReport.
    pub graph_profile: Option<String>,
    /// The option flags it was compiled with.
    pub options: Vec<(String, String)>,
    /// Host-to-device streams broadcast to every replica
    /// (`ReplicatedStreamMode::BROADCAST`), by name.
    pub broadcast: Vec<String>,
}

/// The serialized form: a tag, the image's length, the image, the number
/// of broadcast streams and each one's name (its length first; integers are
/// 8 bytes, little-endian), the graph profile. `PRSEXE01`, the form without
/// the broadcast streams, is still read.
const EXE_TAG: &[u8; 8] = b"PRSEXE02";
const EXE_TAG_1: &[u8; 8] = b"PRSEXE01";

impl Executable {
    /// `Executable::serialize`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let image = self.image.to_bytes();
        let mut out = EXE_TAG.to_vec();
        out.extend_from_slice(&(image.len() as u64).to_le_bytes());
        out.extend_from_slice(&image);
        out.extend_from_slice(&(self.broadcast.len() as u64).to_le_bytes());
        for name in &self.broadcast {
            out.extend_from_slice(&(name.len() as u64).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
        }
        out.extend_from_slice(self.graph_profile.as_deref().unwrap_or("").as_bytes());
        out
    }

    /// `Executable::deserialize`: checked as an image is (trust: it holds
    /// native code, like a shared library).
    pub fn from_bytes(b: &[u8]) -> Result<Executable> {
        let bad = |why: &str| ApiError::new(Status::ParseError, format!("not a poplar-rs executable: {why}"));
        if b.len() < 16 || (&b[..8] != EXE_TAG && &b[..8] != EXE_TAG_1) {
            return Err(bad("it does not start with the executable tag"));
        }
        // A length, checked against what is left.
        let take = |at: &mut usize| -> Result<usize> {
            let n = b.get(*at..*at + 8).ok_or_else(|| bad("it is truncated"))?;
            *at += 8;
            let n = u64::from_le_bytes(n.try_into().unwrap_or_default());
            usize::try_from(n).ok().filter(|&n| n <= b.len() - *at).ok_or_else(|| bad("it is truncated"))
        };
        let mut at = 8;
        let n = take(&mut at)?;
        let image = Image::from_bytes(&b[at..at + n]).map_err(|e| bad(&e.to_string()))?.into_inner();
        at += n;
        let mut broadcast = Vec::new();
        if &b[..8] == EXE_TAG {
            for _ in 0..take(&mut at)? {
                let n = take(&mut at)?;
                let name =
                    std::str::from_utf8(&b[at..at + n]).map_err(|_| bad("a stream name is not text"))?;
                broadcast.push(name.to_string());
                at += n;
            }
        }
        let profile = std::str::from_utf8(&b[at..]).map_err(|_| bad("its graph profile is not text"))?;
        let graph_profile = (!profile.is_empty()).then(|| profile.to_string());
        Ok(Executable { image, graph_profile, options: Vec::new(), broadcast })
    }
}

/// An engine (`prs_engine`): an executable, loaded once `load` names a device.
pub struct Engine {
    exe: Executable,
    options: EngineOptions,
    running: Option<runtime::Engine>,
    /// Streams connected before `load`, bound when it comes.
    pending: Vec<(String, StreamEnd, Box<dyn HostStream>)>,
}

/// Which replicas a stream's host end serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StreamEnd {
    /// One replica's own stream (`ReplicatedStreamMode::REPLICATE`, and
    /// every stream of a graph of one replica).
    Replica(u32),
    /// Every replica, one host end (`ReplicatedStreamMode::BROADCAST`).
    Broadcast,
}

pub type ProgressFn = Option<extern "C" fn(*mut c_void, i32, i32)>;
pub type OutputFn = Option<extern "C" fn(*mut c_void, *const c_char, usize)>;

fn option_pairs(
    keys: *const *const c_char,
    values: *const *const c_char,
    n: usize,
) -> Result<Vec<(String, String)>> {
    let (k, v) = (slice(keys, n), slice(values, n));
    (0..n)
        .map(|i| Ok((text(k[i], "option name")?.to_string(), text(v[i], "option value")?.to_string())))
        .collect()
}

fn invalid_option(message: String) -> ApiError {
    ApiError::new(Status::InvalidOption, message)
}

/// The engine options of `pairs`, then `POPLAR_ENGINE_OPTIONS` over them,
/// as the SDK applies them.
fn engine_options(pairs: &[(String, String)]) -> Result<EngineOptions> {
    let mut o = EngineOptions::default();
    let mut notes = o.apply_pairs(pairs).map_err(invalid_option)?;
    if let Ok(env) = std::env::var("POPLAR_ENGINE_OPTIONS") {
        notes.extend(o.apply_json(&env).map_err(invalid_option)?);
    }
    note_once(notes);
    Ok(o)
}

/// Logs each of `notes` at INFO once per process, however many engines or
/// targets a program makes.
pub(crate) fn note_once(notes: Vec<String>) {
    static NOTED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let config = report::log::LogConfig::from_env().unwrap_or_default();
    if config.enabled(report::log::LogLevel::Info) {
        let mut noted = NOTED.lock().unwrap_or_else(|e| e.into_inner());
        for n in notes {
            if !noted.contains(&n) {
                report::log::write_stderr(&report::log::line(report::log::LogLevel::Info, &n));
                noted.push(n);
            }
        }
    }
}

/// Compiles the graph with these programs (`prog0`, `prog1`, ...).
pub fn compile(
    g: &Graph,
    programs: Vec<Vec<ir::Stmt>>,
    pairs: Vec<(String, String)>,
    progress: &dyn Fn(i32, i32),
) -> Result<Executable> {
    let named = programs.into_iter().enumerate().map(|(i, body)| (format!("prog{i}"), body)).collect();
    compile_named(g, named, pairs, progress, report::progress::Progress::default())
}

/// [`compile`] with the programs' names (PIR identifiers). `progress` is
/// told the stage (0 to 2 of 2: Poplar's `ProgressFunc`), `passes` each
/// compiler pass by name as it starts.
pub fn compile_named(
    g: &Graph,
    programs: Vec<(String, Vec<ir::Stmt>)>,
    pairs: Vec<(String, String)>,
    progress: &dyn Fn(i32, i32),
    passes: report::progress::Progress,
) -> Result<Executable> {
    engine_options(&pairs)?;
    let mut core = g.shared();
    let codelets = compiler::Codelets {
        objects: core.codelets.iter().map(|c| c.object.clone()).collect(),
        aliases: core.codelets.iter().flat_map(|c| c.aliases.iter().cloned()).collect(),
        library: None,
    };
    let opts = compiler::Options { report: true, progress: passes, ..Default::default() };
    progress(0, 2);
    let compiled = core.builder.with_programs(programs, |graph, spans, described| {
        compiler::compile("<graph>", described, graph, spans, &codelets, &opts)
    });
    opts.progress.finish();
    let compiled =
        compiled.map_err(|e| ApiError::new(Status::GraphProgramCompilationError, e.to_string()))?;
    progress(1, 2);
    let image = compiled.image.ok_or_else(|| {
        ApiError::new(Status::GraphProgramCompilationError, "the graph does not fit in the tiles' memory")
    })?;
    progress(2, 2);
    Ok(Executable {
        image,
        graph_profile: compiled.report,
        options: pairs,
        broadcast: core.broadcast.clone(),
    })
}

/// A stream bound to the user's memory, read and written circularly.
struct UserMemory {
    base: *mut u8,
    len: usize,
    pos: usize,
}

// SAFETY: the engine calls it only on the thread that runs its replica's
// program; the host program keeps the memory alive while it is connected
// (Poplar's contract for connectStream), and memory connected to several
// replicas' streams to the host is written by each (as on Poplar).
unsafe impl Send for UserMemory {}

impl HostStream for UserMemory {
    fn fill(&mut self, block: &mut [u8]) -> std::result::Result<(), String> {
        for b in block.iter_mut() {
            // SAFETY: pos < len, within the connected memory.
            *b = unsafe { *self.base.add(self.pos) };
            self.pos = (self.pos + 1) % self.len;
        }
        Ok(())
    }

    fn drain(&mut self, block: &[u8]) -> std::result::Result<(), String> {
        for &b in block {
            // SAFETY: as in fill.
            unsafe { *self.base.add(self.pos) = b };
            self.pos = (self.pos + 1) % self.len;
        }
        Ok(())
    }
}

/// `prs_stream_callback`.
#[repr(C)]
pub struct StreamCallback {
    pub this: *mut c_void,
    pub prefetch: Option<extern "C" fn(*mut c_void, *mut c_void) -> i32>,
    pub fetch: Option<extern "C" fn(*mut c_void, *mut c_void)>,
    pub complete: Option<extern "C" fn(*mut c_void)>,
    pub destroy: Option<extern "C" fn(*mut c_void)>,
}

// SAFETY: as UserMemory: called on one running thread at a time (a
// broadcast stream's end under its lock); the C++ side records callback
// exceptions under a lock.
unsafe impl Send for StreamCallback {}

impl Drop for StreamCallback {
    fn drop(&mut self) {
        if let Some(d) = self.destroy {
            d(self.this);
        }
    }
}

impl HostStream for StreamCallback {
    /// Each copy, when the program reaches it, first offers the callback
    /// to `prefetch` into the block; when it answers `NotAvailable` the
    /// copy calls `fetch`. Then `complete`.
    fn fill(&mut self, block: &mut [u8]) -> std::result::Result<(), String> {
        let ready = self.prefetch.is_some_and(|p| p(self.this, block.as_mut_ptr().cast()) != 0);
        if !ready {
            let fetch = self.fetch.ok_or("the callback has no fetch")?;
            fetch(self.this, block.as_mut_ptr().cast());
        }
        if let Some(c) = self.complete {
            c(self.this);
        }
        Ok(())
    }

    fn drain(&mut self, block: &[u8]) -> std::result::Result<(), String> {
        let mut copy = block.to_vec();
        let fetch = self.fetch.ok_or("the callback has no fetch")?;
        fetch(self.this, copy.as_mut_ptr().cast());
        if let Some(c) = self.complete {
            c(self.this);
        }
        Ok(())
    }
}

impl Engine {
    /// `Engine(exe, options)`: the executable's options, then these.
    pub fn new(exe: Executable, pairs: &[(String, String)]) -> Result<Engine> {
        let mut all = exe.options.clone();
        all.extend(pairs.iter().cloned());
        let options = engine_options(&all)?;
        Ok(Engine { exe, options, running: None, pending: Vec::new() })
    }

    /// The executable it runs.
    pub fn executable(&self) -> &Executable {
        &self.exe
    }

    /// The loaded runtime engine, once `load` has named a device.
    pub fn runtime(&self) -> Option<&runtime::Engine> {
        self.running.as_ref()
    }

    /// `load(device)`: the image on the device, with the streams connected
    /// so far.
    pub fn load(&mut self, d: &Device) -> Result<()> {
        let target = &self.exe.image.target;
        let want = d.desc.to_target()?;
        // Every replica has its own copy of the image's tiles.
        let replicas = u64::from(target.replicas.max(1));
        let tiles = u64::from(target.ipus) * u64::from(target.tiles_per_ipu) * replicas;
        if d.kind == DeviceKind::Sim && u64::from(want.total_tiles()) != tiles {
            let per = if replicas > 1 {
                format!(" ({replicas} replicas of {})", tiles / replicas)
            } else {
                String::new()
            };
            return Err(ApiError::new(
                Status::PoplarError,
                format!(
                    "the executable was compiled for {tiles} tiles{per} but the device has {}",
                    want.total_tiles()
                ),
            ));
        }
        let loaded = runtime::load_image(self.exe.image.clone())
            .map_err(|err| ApiError::new(Status::LinkError, err.to_string()))?;
        let mut opts = self.options.clone();
        opts.device = d.kind;
        let mut engine =
            crate::job::engine(loaded, &opts).map_err(|e| ApiError::new(Status::PoplarError, e))?;
        if let Some(json) = &self.exe.graph_profile {
            if let Ok(p) = serde_json::from_str(json) {
                engine.set_graph_profile(p);
            }
        }
        if let Some(e) = engine.blocks_error() {
            return Err(invalid_option(e.to_string()));
        }
        for (name, which, end) in self.pending.drain(..) {
            bind(&mut engine, &name, which, end)?;
        }
        self.running = Some(engine);
        Ok(())
    }

    /// `run(prog)`: what the program prints goes to `out`; autoReport's
    /// files are written after it, whether or not it succeeds.
    pub fn run(&mut self, prog: usize, out: &mut dyn std::io::Write) -> Result<()> {
        let auto = self.options.auto_report.clone();
        let engine = self.running()?;
        let n = engine.image().programs.len();
        if prog >= n {
            return Err(ApiError::new(
                Status::IndexError,
                format!("program {prog} does not exist: the engine has {n}"),
            ));
        }
        let result = engine.run_to(prog, out);
        if auto.graph {
            if let Some(g) = engine.graph_profile() {
                let _ = auto.write_graph(&(serde_json::to_string_pretty(&g).unwrap_or_default() + "\n"));
            }
        }
        if auto.execution && engine.device() == DeviceKind::Sim {
            let _ = auto.write_execution(
                &(serde_json::to_string_pretty(&engine.profile_json()).unwrap_or_default() + "\n"),
            );
        }
        result.map_err(|err| ApiError::new(Status::RuntimeError, err.to_string()))
    }

    /// `writeTensor(name, data)`.
    pub fn write_tensor(&mut self, name: &str, data: &[u8]) -> Result<()> {
        self.running()?.write(name, data).map_err(host_error)
    }

    /// `readTensor(name)`: the handle's bytes.
    pub fn read_tensor(&mut self, name: &str) -> Result<Vec<u8>> {
        self.running()?.read(name).map_err(host_error)
    }

    /// `copyToRemoteBuffer(src, name, repeat, replica)`: one slot of one
    /// replica's remote buffer.
    pub fn write_remote(&mut self, name: &str, repeat: u64, replica: u32, data: &[u8]) -> Result<()> {
        self.check_remote(name, repeat, replica)?;
        self.running()?.write_remote_slot(name, repeat, replica, data).map_err(host_error)
    }

    /// `copyFromRemoteBuffer(name, dst, repeat, replica)`.
    pub fn read_remote(&mut self, name: &str, repeat: u64, replica: u32) -> Result<Vec<u8>> {
        self.check_remote(name, repeat, replica)?;
        self.running()?.read_remote_slot(name, repeat, replica).map_err(host_error)
    }

    /// A remote buffer's slot `repeat` of replica `replica` exists, or an
    /// `index_error` (a `symbol_error` for an unknown buffer) says why not.
    fn check_remote(&self, name: &str, repeat: u64, replica: u32) -> Result<()> {
        let image = &self.exe.image;
        let b = image.remote_buffers.iter().find(|b| b.name == name).ok_or_else(|| {
            let known: Vec<&str> = image.remote_buffers.iter().map(|b| b.name.as_str()).collect();
            ApiError::new(
                Status::SymbolError,
                format!("no remote buffer called '{name}' (remote buffers: {})", known.join(", ")),
            )
        })?;
        if repeat >= u64::from(b.repeats) {
            return Err(ApiError::new(
                Status::IndexError,
                format!("remote buffer '{name}' has {} repeats: there is no repeat {repeat}", b.repeats),
            ));
        }
        let replicas = image.target.replicas.max(1);
        if replica >= replicas {
            return Err(ApiError::new(
                Status::IndexError,
                format!("remote buffer '{name}': there is no replica {replica} (the graph has {replicas})"),
            ));
        }
        Ok(())
    }

    /// The bytes a host handle holds (every replica's, in replica order),
    /// a stream moves per transfer, or a remote buffer holds in one repeat.
    pub fn handle_bytes(&self, name: &str) -> Result<usize> {
        let image = &self.exe.image;
        let replicas = image.target.replicas.max(1) as usize;
        Ok(match image.handles.iter().find(|h| h.name == name) {
            Some(h) => {
                (linker::image::element_count(&h.shape) * u64::from(h.elem.size())) as usize * replicas
            }
            None => match image.remote_buffers.iter().find(|b| b.name == name) {
                Some(b) => (linker::image::element_count(&b.shape) * u64::from(b.elem.size())) as usize,
                None => self.block_bytes(name).ok_or_else(|| {
                    ApiError::new(
                        Status::SymbolError,
                        format!("no stream, host handle or remote buffer called '{name}'"),
                    )
                })?,
            },
        })
    }

    /// `connectStream(name, ...)` to any host end; with `replica`,
    /// `connectStream(name, replica, ...)`. A graph of r replicas has one
    /// stream per replica (Poplar's `ReplicatedStreamMode::REPLICATE`),
    /// connected by index, except a stream added as `BROADCAST`, which has
    /// one host end for all, connected without an index (or with index 0).
    /// With one replica, index 0 is the stream itself.
    pub fn connect(&mut self, name: &str, replica: Option<u32>, end: Box<dyn HostStream>) -> Result<()> {
        let image = &self.exe.image;
        if !image.streams.iter().any(|s| s.name == name) {
            let known: Vec<&str> = image.streams.iter().map(|s| s.name.as_str()).collect();
            return Err(ApiError::new(
                Status::SymbolError,
                format!("no stream called '{name}' (streams: {})", known.join(", ")),
            ));
        }
        let replicas = image.target.replicas.max(1);
        let broadcast = replicas > 1 && self.exe.broadcast.iter().any(|b| b == name);
        let which = match replica {
            Some(i) if i >= replicas => {
                let has = match replicas {
                    1 => "the graph has one replica, index 0".to_string(),
                    r => format!("the graph has {r} replicas, indices 0 to {}", r - 1),
                };
                return Err(ApiError::new(
                    Status::IndexError,
                    format!("stream '{name}': there is no replica {i} ({has})"),
                ));
            }
            Some(0) | None if broadcast => StreamEnd::Broadcast,
            Some(i) if broadcast => {
                return Err(ApiError::new(
                    Status::StreamConnectionError,
                    format!(
                        "stream '{name}' is broadcast to every replica (ReplicatedStreamMode::BROADCAST): it has \
                         one host end, connected without a replica index (or with index 0), not with index {i}"
                    ),
                ))
            }
            Some(i) => StreamEnd::Replica(i),
            None if replicas == 1 => StreamEnd::Replica(0),
            None => {
                let to_device = image.streams.iter().any(|s| s.name == name && s.to_device);
                let (mode, or) = match to_device {
                    true => (
                        " (ReplicatedStreamMode::REPLICATE)",
                        ", or add it with ReplicatedStreamMode::BROADCAST to send every replica the same data",
                    ),
                    false => ("", ""),
                };
                return Err(ApiError::new(
                    Status::StreamConnectionError,
                    format!(
                        "stream '{name}' has one stream per replica in this graph of {replicas} replicas{mode}: \
                         connect each replica's with its index, connectStream(handle, replica, ...) or \
                         connectStreamToCallback(handle, replica, ...){or}"
                    ),
                ));
            }
        };
        match &mut self.running {
            Some(e) => bind(e, name, which, end),
            None => {
                self.pending.retain(|(n, w, _)| !(n == name && *w == which));
                self.pending.push((name.to_string(), which, end));
                Ok(())
            }
        }
    }

    fn block_bytes(&self, name: &str) -> Option<usize> {
        let s = self.exe.image.streams.iter().find(|s| s.name == name)?;
        Some((linker::image::element_count(&s.shape) * u64::from(s.elem.size())) as usize)
    }

    fn running(&mut self) -> Result<&mut runtime::Engine> {
        self.running.as_mut().ok_or_else(|| {
            ApiError::new(
                Status::PoplarError,
                "the engine is not loaded on a device: call Engine::load first",
            )
        })
    }
}

/// Connects `end` to the loaded engine's stream `name` for `which` replicas.
fn bind(engine: &mut runtime::Engine, name: &str, which: StreamEnd, end: Box<dyn HostStream>) -> Result<()> {
    match which {
        // Another instance of the job runs that replica and connects it.
        StreamEnd::Replica(i) if i < engine.replicas() && !engine.holds_replica(i) => Ok(()),
        StreamEnd::Replica(i) => engine.connect_stream_outside_replica(name, i, Some(end)),
        StreamEnd::Broadcast => engine.connect_stream_broadcast(name, end),
    }
    .map_err(|e| ApiError::new(Status::StreamConnectionError, e.to_string()))
}

/// Writes text a program printed to the host program's output.
struct Output(OutputFn, *mut c_void);

impl std::io::Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(f) = self.0 {
            f(self.1, buf.as_ptr().cast(), buf.len());
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn prs_compile(
    g: *const Graph,
    progs: *const *const Program,
    n: usize,
    keys: *const *const c_char,
    values: *const *const c_char,
    n_opts: usize,
    progress: ProgressFn,
    progress_ctx: *mut c_void,
    out: *mut *mut Executable,
) -> i32 {
    guard(|| {
        let g = handle(g, "graph")?;
        let pairs = option_pairs(keys, values, n_opts)?;
        let report = |step: i32, total: i32| {
            if let Some(f) = progress {
                f(progress_ctx, step, total)
            }
        };
        if let Ok(path) = std::env::var("POPLAR_RS_DUMP_PIR") {
            let (graph, _) = g.shared().builder.finish(bodies(progs, n)?);
            let _ = std::fs::write(path, ir::print(&graph));
        }
        put_box(out, compile(g, bodies(progs, n)?, pairs, &report)?)
    })
}

#[no_mangle]
pub extern "C" fn prs_executable_free(e: *mut Executable) {
    free(e)
}

#[no_mangle]
pub extern "C" fn prs_executable_serialize(
    e: *const Executable,
    bytes: *mut *mut c_char,
    len: *mut usize,
) -> i32 {
    guard(|| {
        let boxed = handle(e, "executable")?.to_bytes().into_boxed_slice();
        put(len, boxed.len())?;
        put(bytes, Box::into_raw(boxed).cast::<c_char>())
    })
}

#[no_mangle]
pub extern "C" fn prs_bytes_free(bytes: *mut c_char, len: usize) {
    if !bytes.is_null() {
        // SAFETY: from prs_executable_serialize with this length.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(bytes.cast::<u8>(), len)) });
    }
}

#[no_mangle]
pub extern "C" fn prs_executable_deserialize(
    bytes: *const c_char,
    len: usize,
    out: *mut *mut Executable,
) -> i32 {
    guard(|| put_box(out, Executable::from_bytes(slice(bytes.cast::<u8>(), len))?))
}

#[no_mangle]
pub extern "C" fn prs_engine_new(
    exe: *mut Executable,
    keys: *const *const c_char,
    values: *const *const c_char,
    n_opts: usize,
    out: *mut *mut Engine,
) -> i32 {
    if exe.is_null() {
        return guard(|| Err(ApiError::new(Status::PoplarError, "executable is NULL")));
    }
    // SAFETY: the caller hands the executable over (capi.h).
    let exe = *unsafe { Box::from_raw(exe) };
    guard(move || {
        let pairs = option_pairs(keys, values, n_opts)?;
        put_box(out, Engine::new(exe, &pairs)?)
    })
}

#[no_mangle]
pub extern "C" fn prs_engine_free(e: *mut Engine) {
    free(e)
}

#[no_mangle]
pub extern "C" fn prs_engine_load(e: *mut Engine, d: *const Device) -> i32 {
    guard(|| handle_mut(e, "engine")?.load(handle(d, "device")?))
}

#[no_mangle]
pub extern "C" fn prs_engine_run(
    e: *mut Engine,
    prog: u32,
    output: OutputFn,
    output_ctx: *mut c_void,
) -> i32 {
    guard(|| handle_mut(e, "engine")?.run(prog as usize, &mut Output(output, output_ctx)))
}

#[no_mangle]
pub extern "C" fn prs_engine_num_programs(e: *const Engine, out: *mut usize) -> i32 {
    guard(|| put(out, handle(e, "engine")?.exe.image.programs.len()))
}

/// An unknown handle is Poplar's `symbol_error`; wrong data a `poplar_error`.
fn host_error(e: runtime::HostError) -> ApiError {
    let status = match e {
        runtime::HostError::Unknown { .. } => Status::SymbolError,
        runtime::HostError::NoReplica { .. } => Status::IndexError,
        _ => Status::PoplarError,
    };
    ApiError::new(status, e.to_string())
}

#[no_mangle]
pub extern "C" fn prs_engine_write_tensor(
    e: *mut Engine,
    name: *const c_char,
    data: *const c_void,
    bytes: usize,
) -> i32 {
    guard(|| {
        let name = text(name, "handle")?;
        handle_mut(e, "engine")?.write_tensor(name, slice(data.cast::<u8>(), bytes))
    })
}

#[no_mangle]
pub extern "C" fn prs_engine_read_tensor(
    e: *mut Engine,
    name: *const c_char,
    data: *mut c_void,
    bytes: usize,
) -> i32 {
    guard(|| {
        let name = text(name, "handle")?;
        let got = handle_mut(e, "engine")?.read_tensor(name)?;
        if got.len() != bytes {
            return Err(ApiError::new(
                Status::PoplarError,
                format!("readTensor('{name}'): the buffer has {bytes} bytes but the tensor {}", got.len()),
            ));
        }
        // SAFETY: the caller passes `bytes` writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(got.as_ptr(), data.cast::<u8>(), bytes) };
        Ok(())
    })
}

/// `replica` as the C ABI passes it: `PRS_ALL_REPLICAS` (all ones) for
/// the forms without an index.
fn replica_arg(replica: u32) -> Option<u32> {
    (replica != u32::MAX).then_some(replica)
}

#[no_mangle]
pub extern "C" fn prs_engine_copy_to_remote_buffer(
    e: *mut Engine,
    name: *const c_char,
    repeat: u64,
    replica: u32,
    data: *const c_void,
    bytes: usize,
) -> i32 {
    guard(|| {
        let name = text(name, "remote buffer")?;
        handle_mut(e, "engine")?.write_remote(name, repeat, replica, slice(data.cast::<u8>(), bytes))
    })
}

#[no_mangle]
pub extern "C" fn prs_engine_copy_from_remote_buffer(
    e: *mut Engine,
    name: *const c_char,
    repeat: u64,
    replica: u32,
    data: *mut c_void,
    bytes: usize,
) -> i32 {
    guard(|| {
        let name = text(name, "remote buffer")?;
        let got = handle_mut(e, "engine")?.read_remote(name, repeat, replica)?;
        if got.len() != bytes {
            return Err(ApiError::new(
                Status::PoplarError,
                format!(
                    "copyFromRemoteBuffer('{name}'): the buffer has {bytes} bytes but a repeat {}",
                    got.len()
                ),
            ));
        }
        // SAFETY: the caller passes `bytes` writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(got.as_ptr(), data.cast::<u8>(), bytes) };
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn prs_engine_connect_stream(
    e: *mut Engine,
    name: *const c_char,
    begin: *mut c_void,
    bytes: usize,
) -> i32 {
    prs_engine_connect_stream_replica(e, name, u32::MAX, begin, bytes)
}

#[no_mangle]
pub extern "C" fn prs_engine_connect_stream_replica(
    e: *mut Engine,
    name: *const c_char,
    replica: u32,
    begin: *mut c_void,
    bytes: usize,
) -> i32 {
    guard(|| {
        let e = handle_mut(e, "engine")?;
        let name = text(name, "handle")?;
        let block = e.block_bytes(name).unwrap_or(0);
        if begin.is_null() || bytes == 0 || (block > 0 && !bytes.is_multiple_of(block) && bytes < block) {
            return Err(ApiError::new(
                Status::StreamConnectionError,
                format!(
                    "stream '{name}': the buffer of {bytes} bytes cannot hold its transfers of {block} bytes"
                ),
            ));
        }
        e.connect(name, replica_arg(replica), Box::new(UserMemory { base: begin.cast(), len: bytes, pos: 0 }))
    })
}

#[no_mangle]
pub extern "C" fn prs_engine_handle_bytes(e: *const Engine, name: *const c_char, out: *mut usize) -> i32 {
    guard(|| {
        let name = text(name, "handle")?;
        put(out, handle(e, "engine")?.handle_bytes(name)?)
    })
}

#[no_mangle]
pub extern "C" fn prs_engine_connect_stream_callback(
    e: *mut Engine,
    name: *const c_char,
    cb: StreamCallback,
) -> i32 {
    prs_engine_connect_stream_callback_replica(e, name, u32::MAX, cb)
}

#[no_mangle]
pub extern "C" fn prs_engine_connect_stream_callback_replica(
    e: *mut Engine,
    name: *const c_char,
    replica: u32,
    cb: StreamCallback,
) -> i32 {
    guard(move || {
        let e = handle_mut(e, "engine")?;
        let name = text(name, "handle")?;
        e.connect(name, replica_arg(replica), Box::new(cb))
    })
}

#[no_mangle]
pub extern "C" fn prs_engine_profile_summary(
    e: *const Engine,
    keys: *const *const c_char,
    values: *const *const c_char,
    n_opts: usize,
    out: *mut *mut c_char,
) -> i32 {
    guard(|| {
        let e = handle(e, "engine")?;
        for (k, v) in option_pairs(keys, values, n_opts)? {
            if !matches!(
                k.as_str(),
                "showExecutionSteps" | "showVarStorage" | "showOptimizations" | "showPerIpuMemoryUsage"
            ) {
                return Err(invalid_option(format!("unknown printProfileSummary option '{k}' (={v})")));
            }
        }
        let text = match &e.running {
            Some(r) => r.summary_in_every_process(),
            None => {
                return Err(ApiError::new(
                    Status::PoplarError,
                    "printProfileSummary: the engine has not been loaded",
                ))
            }
        };
        put_string(out, text)
    })
}

//! `poplar-run`'s command line, as a library function so that tests drive
//! exactly the binary's code path ([`main`] takes the arguments, the
//! environment and the two output streams).
//!
//! Actions run left to right in command-line order: `--write HANDLE=DATA`,
//! `--stream NAME=DATA`, `--stream-replica R:NAME=DATA`, `--run PROGRAM`,
//! `--read HANDLE[=FILE]`. With no `--run`, program 0 runs once, right
//! after the last `--write` / `--stream` (so after every write and before
//! the reads that follow).
//! Standard output carries only program output, `--read` text and
//! `--summary`; logs and errors go to standard error.

use std::io::Write;
use std::path::{Path, PathBuf};

use linker::image::Image;

use crate::data;
use crate::engine::Engine;
use crate::exec::DeviceKind;
use crate::format;
use crate::options::{EngineOptions, LogLevel};
use report::log::{LogConfig, LogDest};

/// The environment variables the runtime honours, and the `/dev` listing.
#[derive(Clone, Debug, Default)]
pub struct Env {
    pub log_level: Option<String>,
    /// `POPLAR_LOG_DEST`: `stdout`, `stderr` or a file name.
    pub log_dest: Option<String>,
    pub engine_options: Option<String>,
    /// Entry names of `/dev` (for `--list-devices`).
    pub dev_entries: Vec<String>,
    /// Show progress of long runs (standard error is a terminal).
    pub progress: bool,
    /// Set once the command has run its programs and writes its results
    /// (the profile, the trace, the summary): the binary's `--timeout`
    /// watchdog then lets it finish, also after a run the timeout stopped.
    pub runs_over: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// The job this process is one instance of, when `poprun` launched it
    /// over MPI ranks.
    pub job: Option<Job>,
}

/// One process of a job whose replicas are spread over processes.
#[derive(Clone)]
pub struct Job {
    pub transport: std::sync::Arc<dyn crate::replicas::Transport>,
    /// `POPDIST_NUM_TOTAL_REPLICAS`: the replicas the job was launched
    /// with, which the image must have.
    pub replicas: Option<u32>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Job {{ rank: {}, ranks: {}, replicas: {:?} }}",
            self.transport.rank(),
            self.transport.ranks(),
            self.replicas
        )
    }
}

impl Env {
    /// Whether this process writes files and standard output: the only
    /// process, or rank 0 of a job.
    pub fn writes(&self) -> bool {
        self.job.as_ref().is_none_or(|j| j.transport.rank() == 0)
    }
}

impl Env {
    /// Reads the real environment and `/dev`.
    pub fn from_process() -> Env {
        let dev_entries = std::fs::read_dir("/dev")
            .map(|d| d.flatten().filter_map(|e| e.file_name().into_string().ok()).collect())
            .unwrap_or_default();
        Env {
            log_level: std::env::var("POPLAR_LOG_LEVEL").ok(),
            log_dest: std::env::var("POPLAR_LOG_DEST").ok(),
            engine_options: std::env::var("POPLAR_ENGINE_OPTIONS").ok(),
            dev_entries,
            progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
            runs_over: Default::default(),
            job: None,
        }
    }
}

/// Compiles a `.pir` file in memory: the image, the compiler's warnings
/// and, when the flag asks for it, the graph profile (JSON, as
/// `poplar-compile --report` writes it).
pub type Compile<'a> = &'a dyn Fn(&Path, bool) -> Result<(Image, Vec<String>, Option<String>), String>;

#[derive(Clone, Debug, PartialEq)]
enum Action {
    Write(String, String),
    Stream(String, String),
    /// `--stream-replica R:NAME=DATA`: replica R's stream only.
    StreamReplica(u32, String, String),
    Run(String),
    Read(String, Option<PathBuf>),
}

#[derive(Debug, Default)]
struct Args {
    input: Option<PathBuf>,
    device: Option<DeviceKind>,
    threads: Option<usize>,
    max_cycles: Option<u64>,
    timeout: Option<std::time::Duration>,
    profile: Option<PathBuf>,
    trace: Option<PathBuf>,
    graph_profile: Option<PathBuf>,
    summary: bool,
    list_devices: bool,
    help: bool,
    version: bool,
    actions: Vec<Action>,
}

const USAGE: &str = "\
usage: poplar-run <prog.exe | graph.pir> [--device sim|cpu] [actions...]
                  [--profile exec-profile.json] [--trace trace.json]
                  [--summary] [--graph-profile graph.json] [--threads N]
                  [--max-cycles N] [--timeout SECONDS] [--list-devices]

actions, run left to right:
  --write HANDLE=DATA    write a host_write handle (or a remote buffer)
  --stream NAME=DATA     connect a stream to a host buffer, used circularly
                         (every replica's, each with its own copy)
  --stream-replica R:NAME=DATA
                         connect replica R's stream only; under poprun each
                         instance connects the replicas it holds
  --run PROGRAM          run a program by name or index
  --read HANDLE[=FILE]   read a handle, remote buffer or to-host stream;
                         print it, or write FILE (.npy, else raw .bin)
DATA is a list [0,1,2], a splat 0, or a .npy / raw little-endian .bin file.
--max-cycles N stops a run past N modelled cycles on sim (inside a codelet's
loops too), or past N program steps on cpu (which models no cycles).
--timeout SECONDS stops either device after that much wall time, counted
from the start (compiling a .pir included): between program steps, or inside
a codelet at its next loop iteration.
Without --run, program 0 runs once after the writes and before the reads.
--trace writes the sim timeline as a Chrome trace (Perfetto, chrome://tracing).
--summary prints the target, graph, memory and execution figures; for a
prog.exe the graph and memory need --graph-profile, the file that
`poplar-compile --report` wrote for it.

environment: POPLAR_LOG_LEVEL (OFF ERR WARN INFO DEBUG TRACE),
             POPLAR_ENGINE_OPTIONS (a JSON object, e.g. {\"debug.instrument\":\"true\"};
               {\"autoReport.all\":\"true\"} writes the profiles and report.html),
             POPLAR_TARGET_OPTIONS (target keys for a .pir, e.g. {\"tiles_per_ipu\":16})

trust: a prog.exe (like a .gp) holds native machine code that runs in this
process. Loading validates it against corrupt and truncated files, not
against a deliberately crafted one: run only images you would run as a
shared library. To run code you do not trust, give the graph.pir and its
codelet sources: they are compiled here, and compiled codelets reach memory
only through checked tile offsets.
";

fn parse(argv: &[String]) -> Result<Args, String> {
    let mut a = Args::default();
    let mut i = 0;
    while i < argv.len() {
        let arg = &argv[i];
        i += 1;
        let (key, inline) = match arg.split_once('=') {
            Some((k, v))
                if k.starts_with("--")
                    && !matches!(k, "--write" | "--stream" | "--stream-replica" | "--read") =>
            {
                (k.to_string(), Some(v.to_string()))
            }
            _ => (arg.clone(), None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            let v = argv.get(i).cloned().ok_or_else(|| format!("{key} needs {what}"))?;
            i += 1;
            Ok(v)
        };
        match key.as_str() {
            "--device" => {
                a.device = Some(match value("a device (sim or cpu)")?.as_str() {
                    "sim" | "ipu-model" | "IPU_MODEL" => DeviceKind::Sim,
                    "cpu" | "CPU" => DeviceKind::Cpu,
                    "ipu" | "hw" => {
                        return Err(
                            "this runtime cannot drive IPU hardware; use --device sim or --device cpu \
                                    (see --list-devices)"
                                .into(),
                        )
                    }
                    other => return Err(format!("unknown device '{other}' (expected sim or cpu)")),
                })
            }
            "--threads" => {
                let v = value("a thread count")?;
                a.threads = Some(v.parse().map_err(|_| format!("--threads takes a number, not '{v}'"))?);
            }
            "--max-cycles" => {
                let v = value("a cycle count")?;
                a.max_cycles =
                    Some(v.parse().map_err(|_| format!("--max-cycles takes a number, not '{v}'"))?);
            }
            "--timeout" => {
                let v = value("a number of seconds")?;
                let secs: f64 = v.parse().map_err(|_| format!("--timeout takes seconds, not '{v}'"))?;
                a.timeout =
                    Some(std::time::Duration::try_from_secs_f64(secs).map_err(|_| {
                        format!("--timeout takes a non-negative number of seconds, not '{v}'")
                    })?);
            }
            "--profile" => a.profile = Some(PathBuf::from(value("a file name")?)),
            "--trace" => a.trace = Some(PathBuf::from(value("a file name")?)),
            "--graph-profile" => a.graph_profile = Some(PathBuf::from(value("a file name")?)),
            "--summary" => a.summary = true,
            "--list-devices" => a.list_devices = true,
            "-h" | "--help" => a.help = true,
            "-V" | "--version" => a.version = true,
            "--write" | "--stream" => {
                let v = value("NAME=DATA")?;
                let (n, d) = v.split_once('=').ok_or_else(|| format!("{key} takes NAME=DATA, not '{v}'"))?;
                a.actions.push(if key == "--write" {
                    Action::Write(n.to_string(), d.to_string())
                } else {
                    Action::Stream(n.to_string(), d.to_string())
                });
            }
            "--stream-replica" => {
                let v = value("R:NAME=DATA")?;
                let bad = || format!("--stream-replica takes R:NAME=DATA (R a replica index), not '{v}'");
                let (r, rest) = v.split_once(':').ok_or_else(bad)?;
                let r = r.parse().map_err(|_| bad())?;
                let (n, d) = rest.split_once('=').ok_or_else(bad)?;
                a.actions.push(Action::StreamReplica(r, n.to_string(), d.to_string()));
            }
            "--run" => a.actions.push(Action::Run(value("a program name or index")?)),
            "--read" => {
                let v = value("HANDLE[=FILE]")?;
                a.actions.push(match v.split_once('=') {
                    Some((n, f)) => Action::Read(n.to_string(), Some(PathBuf::from(f))),
                    None => Action::Read(v, None),
                });
            }
            s if s.starts_with('-') && s.len() > 1 => return Err(format!("unknown option '{s}'")),
            _ => {
                if a.input.is_some() {
                    return Err(format!("unexpected argument '{arg}' (one program file only)"));
                }
                a.input = Some(PathBuf::from(arg));
            }
        }
    }
    Ok(a)
}

/// `NAME=VALUE` split where the name is one the engine knows: as parsed
/// (at the first `=`) when `name` is known, else at the first later `=`
/// whose prefix is known, else the whole text as a name with no value when
/// that is known; unchanged otherwise (the engine's error then names it).
fn split_at_known(
    known: &dyn Fn(&str) -> bool,
    name: String,
    value: Option<String>,
) -> (String, Option<String>) {
    let Some(v) = value else { return (name, None) };
    if known(&name) {
        return (name, Some(v));
    }
    let whole = format!("{name}={v}");
    for (i, _) in whole.match_indices('=').skip(1) {
        if known(&whole[..i]) {
            return (whole[..i].to_string(), Some(whole[i + 1..].to_string()));
        }
    }
    if known(&whole) {
        return (whole, None);
    }
    (name, Some(v))
}

/// The `--timeout` of a command line, if it has a valid one: the binary
/// uses it to stop the process when a codelet never returns (which the
/// step-boundary check cannot see).
pub fn timeout(argv: &[String]) -> Option<std::time::Duration> {
    parse(argv).ok()?.timeout
}

/// The command's writers: program output (`out`), errors (`err`) and log
/// lines, which go where `POPLAR_LOG_DEST` says (one of the two, or `file`).
struct Log<'a> {
    config: LogConfig,
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    file: Option<Box<dyn Write>>,
}

impl Log<'_> {
    fn enabled(&self, level: LogLevel) -> bool {
        self.config.enabled(level)
    }

    /// Writes `text` as is when `level` is enabled.
    fn write(&mut self, level: LogLevel, text: &str) {
        if !self.enabled(level) {
            return;
        }
        let sink: &mut dyn Write = match (&mut self.file, &self.config.dest) {
            (Some(f), _) => f.as_mut(),
            (None, LogDest::Stdout) => &mut *self.out,
            (None, _) => &mut *self.err,
        };
        let _ = sink.write_all(text.as_bytes());
    }

    /// A log line, `PO:[LEVEL] msg`.
    fn at(&mut self, level: LogLevel, msg: &str) {
        self.write(level, &report::log::line(level, msg));
    }
}

/// `poplar-run` itself. Returns the exit status: 0, 1 for any error
/// (loading, host data, a failing run), 2 for a usage error.
pub fn main(argv: &[String], env: &Env, compile: Compile, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let args = match parse(argv) {
        Ok(a) => a,
        Err(e) => {
            let _ = writeln!(err, "poplar-run: error: {e}\n{USAGE}");
            return 2;
        }
    };
    if args.help {
        let _ = write!(out, "{USAGE}");
        return 0;
    }
    if args.version {
        let _ = writeln!(out, "poplar-run {}", env!("CARGO_PKG_VERSION"));
        return 0;
    }
    let config = LogConfig::from_vars(env.log_level.as_deref(), env.log_dest.as_deref());
    let (config, file) = match config.and_then(|c| c.dest.open().map(|f| (c, f))) {
        Ok(x) => x,
        Err(e) => {
            let _ = writeln!(err, "poplar-run: error: {e}");
            return 1;
        }
    };
    let mut log = Log { config, out, err, file };
    let r = run(&args, env, compile, &mut log);
    if let Some(f) = &mut log.file {
        let _ = f.flush();
    }
    match r {
        Ok(()) => 0,
        Err(e) => {
            let _ = log.out.flush();
            if e.contains("error:") {
                // Already rendered by the compiler, with its own prefix.
                let _ = write!(log.err, "{}{}", e, if e.ends_with('\n') { "" } else { "\n" });
            } else {
                let _ = writeln!(log.err, "poplar-run: error: {e}");
            }
            1
        }
    }
}

/// autoReport's graph profile: the one the engine was given, with the
/// run's cycle estimates once it has them.
fn write_graph_profile(engine: &Engine, opts: &EngineOptions) -> Result<(), String> {
    match engine.graph_profile() {
        Some(g) => {
            opts.auto_report.write_graph(&(serde_json::to_string_pretty(&g).unwrap_or_default() + "\n"))
        }
        None => Ok(()),
    }
}

/// The device list of `--list-devices`.
pub fn list_devices(env: &Env) -> String {
    let mut s = String::from("Devices:\n");
    s += "  sim   IPU Model: runs codelets on the host and models cycles (targets mk1, mk2, bow, cpu)\n";
    s += "  cpu   native execution on the host's cores, no cycle model (any target)\n";
    s += "Targets:\n";
    s += "  mk1   1216 tiles, 262,144 bytes/tile, 1600 MHz, 6 workers\n";
    s += "  mk2   1472 tiles, 638,976 bytes/tile, 1330 MHz, 6 workers\n";
    s += "  bow   1472 tiles, 638,976 bytes/tile, 1850 MHz, 6 workers\n";
    s += "  cpu   1 tile, 1 worker, memory bounded by the host\n";
    let ipus = crate::hardware::scan(env.dev_entries.iter().map(String::as_str));
    s += &crate::hardware::describe(&ipus);
    s
}

fn run(args: &Args, env: &Env, compile: Compile, log: &mut Log) -> Result<(), String> {
    if args.list_devices {
        let _ = write!(log.out, "{}", list_devices(env));
        if args.input.is_none() {
            return Ok(());
        }
    }
    let input = args.input.as_ref().ok_or("no program given (a prog.exe or graph.pir)")?;
    let mut opts = EngineOptions { device: args.device.unwrap_or(DeviceKind::Sim), ..Default::default() };
    if let Some(text) = &env.engine_options {
        for note in opts.apply_json(text)? {
            log.at(LogLevel::Info, &format!("engine option {note}"));
        }
    }
    if let Some(t) = args.threads {
        opts.threads = t;
    }
    if args.max_cycles.is_some() {
        opts.max_cycles = args.max_cycles;
    }
    if args.profile.is_some() || args.summary || opts.auto_report.execution {
        opts.profile = true;
    }
    if args.trace.is_some() {
        if opts.device != DeviceKind::Sim {
            return Err("--trace needs the sim device (cpu models no cycles)".into());
        }
        opts.trace = true;
        opts.profile = true;
    }
    let started = std::time::Instant::now();
    // The graph profile: for the summary's graph sections, and for
    // autoReport, which writes it after the run with the run's cycle
    // estimates.
    let want_graph = args.summary || opts.auto_report.graph;
    let (loaded, mut graph_json) = if input.extension().is_some_and(|e| e == "pir") {
        let (image, warnings, graph) = compile(input, want_graph)?;
        // The compiler's warnings, rendered as poplar-compile writes them.
        for w in warnings {
            log.write(LogLevel::Warn, &format!("{}\n", w.trim_end()));
        }
        (crate::load_image(image).map_err(|e| e.to_string())?, graph)
    } else {
        let bytes = std::fs::read(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
        (crate::load(&bytes).map_err(|e| e.to_string())?, None)
    };
    let mut graph_source = String::from("the compiler's graph profile");
    if let Some(p) = &args.graph_profile {
        let text = std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        graph_json = Some(text);
        graph_source = p.display().to_string();
    }
    let graph =
        match &graph_json {
            Some(text) => Some(serde_json::from_str::<report::schema::GraphProfile>(text).map_err(|e| {
                format!("{graph_source}: not a graph profile as poplar-compile writes it: {e}")
            })?),
            None => None,
        };
    if let Some(g) = &graph {
        let t = &loaded.image.target;
        if g.target.num_tiles as usize != loaded.image.tiles.len() || g.target.name != t.name {
            return Err(format!(
                "{graph_source}: the profile of another graph (target {} with {} tiles; this image: {} with {})",
                g.target.name,
                g.target.num_tiles,
                t.name,
                loaded.image.tiles.len()
            ));
        }
        // A profile given by name must be of this very image (one the
        // compiler just made for a `.pir` is).
        if let (Some(h), Some(_)) = (&g.image_hash, &args.graph_profile) {
            let ours = loaded.image.content_hash();
            if *h != ours {
                return Err(format!(
                    "{graph_source}: the profile of another graph (image hash {h}; this image: {ours})"
                ));
            }
        }
    }
    log.at(
        LogLevel::Info,
        &format!("loaded {} in {:.3} s", input.display(), started.elapsed().as_secs_f64()),
    );
    let mut engine = match &env.job {
        None => Engine::new(loaded, &opts),
        Some(job) => job_engine(job, loaded, &opts)?,
    };
    if let Some(g) = graph {
        engine.set_graph_profile(g);
        // Written now so that a failing run leaves it too; rewritten after
        // the run with its cycle estimates.
        if opts.auto_report.graph {
            write_graph_profile(&engine, &opts)?;
        }
    }
    if let Some(t) = args.timeout {
        engine.set_timeout(t, started);
    }
    log.at(
        LogLevel::Info,
        &format!(
            "device {} on {} thread(s), target {} ({} tiles)",
            opts.device.name(),
            engine.threads(),
            engine.image().target.name,
            engine.image().tiles.len()
        ),
    );
    let mut actions = args.actions.clone();
    if !actions.iter().any(|a| matches!(a, Action::Run(_))) && !engine.image().programs.is_empty() {
        let at = actions
            .iter()
            .rposition(|a| matches!(a, Action::Write(..) | Action::Stream(..) | Action::StreamReplica(..)))
            .map_or(0, |i| i + 1);
        actions.insert(at, Action::Run("0".into()));
    }
    if log.enabled(LogLevel::Trace) {
        let image = engine.image();
        for (i, v) in image.vertex_types.iter().enumerate() {
            log.at(LogLevel::Trace, &format!("vertex type {i}: {} ({:?})", v.name, v.base));
        }
        for (i, cs) in image.compute_sets.iter().enumerate() {
            let vertices: u32 = cs.tiles.iter().map(|w| w.end - w.start).sum();
            log.at(
                LogLevel::Trace,
                &format!("compute set {i}: {} ({vertices} vertices on {} tiles)", cs.name, cs.tiles.len()),
            );
        }
        for (i, p) in image.programs.iter().enumerate() {
            log.at(LogLevel::Trace, &format!("program {i}: {}", p.name));
        }
    }
    // A handle or stream name may hold `=` (PIR allows any character):
    // `NAME=DATA` splits at the first `=` after which nothing is left of a
    // known name, so `--stream 'a=b=[1,2]'` reaches stream `a=b`.
    let known = |n: &str| engine.data_info(n).is_ok();
    let actions: Vec<Action> = actions
        .into_iter()
        .map(|a| match a {
            Action::Write(n, d) => {
                let (n, d) = split_at_known(&known, n, Some(d));
                Action::Write(n, d.unwrap_or_default())
            }
            Action::Stream(n, d) => {
                let (n, d) = split_at_known(&known, n, Some(d));
                Action::Stream(n, d.unwrap_or_default())
            }
            Action::StreamReplica(r, n, d) => {
                let (n, d) = split_at_known(&known, n, Some(d));
                Action::StreamReplica(r, n, d.unwrap_or_default())
            }
            Action::Read(n, f) => {
                let (n, f) = split_at_known(&known, n, f.map(|f| f.to_string_lossy().into_owned()));
                Action::Read(n, f.map(PathBuf::from))
            }
            other => other,
        })
        .collect();
    // A run that stops (`--timeout`, `--max-cycles`, a failing vertex)
    // ends the actions; its profile, trace and summary are still written,
    // marked partial, and then its error is the command's.
    let mut stopped = None;
    for action in &actions {
        match action {
            Action::Write(name, text) => {
                // One replica's data goes to every replica; a replicated
                // graph also takes one copy per replica (`[r, …]`).
                let info = engine.replica_data_info(name).map_err(|e| e.to_string())?;
                let bytes = match host_data(text, &info, name) {
                    Err(e) if engine.replicas() > 1 => {
                        let all = engine.data_info(name).map_err(|e| e.to_string())?;
                        host_data(text, &all, name).map_err(|_| {
                            format!("{e} (or, one copy per replica, shape {})", data::shape_text(&all.shape))
                        })?
                    }
                    other => other?,
                };
                engine.write(name, &bytes).map_err(|e| e.to_string())?;
                log.at(LogLevel::Debug, &format!("wrote {} bytes to '{name}'", bytes.len()));
            }
            Action::Stream(name, text) => {
                let info = engine.data_info(name).map_err(|e| e.to_string())?;
                let elem = info.elem;
                // A stream buffer is any whole number of elements.
                let bytes = stream_data(text, elem, name)?;
                let n = bytes.len();
                engine.connect_stream(name, bytes).map_err(|e| e.to_string())?;
                log.at(LogLevel::Debug, &format!("connected stream '{name}' to a host buffer of {n} bytes"));
            }
            Action::StreamReplica(replica, name, text) => {
                // Each instance of a job connects the replicas it holds.
                if *replica < engine.replicas() && !engine.holds_replica(*replica) {
                    log.at(
                        LogLevel::Debug,
                        &format!("stream '{name}' of replica {replica}: another instance holds it"),
                    );
                    continue;
                }
                let info = engine.data_info(name).map_err(|e| e.to_string())?;
                let bytes = stream_data(text, info.elem, name)?;
                let n = bytes.len();
                engine.connect_stream_replica(name, *replica, bytes).map_err(|e| e.to_string())?;
                log.at(
                    LogLevel::Debug,
                    &format!("connected stream '{name}' of replica {replica} to a host buffer of {n} bytes"),
                );
            }
            Action::Run(p) => {
                let index = engine.program_index(p).map_err(|e| e.to_string())?;
                let t = std::time::Instant::now();
                let progress = match env.progress {
                    true => report::progress::Progress::on_terminal("poplar-run"),
                    false => Default::default(),
                };
                progress.step(format!("program {p} on {}", opts.device.name()));
                let r = engine.run_to(index, &mut *log.out);
                progress.finish();
                if let Err(e) = r {
                    stopped = Some(e.to_string());
                    break;
                }
                log.at(
                    LogLevel::Info,
                    &format!(
                        "ran program {index} in {:.3} s ({} cycles modelled, {} steps)",
                        t.elapsed().as_secs_f64(),
                        engine.totals().cycles,
                        engine.totals().steps
                    ),
                );
                if opts.device == DeviceKind::Sim {
                    let t = engine.totals();
                    log.at(
                        LogLevel::Debug,
                        &format!(
                            "cycles so far: compute {}, exchange {}, host {}, sync {}",
                            t.compute, t.exchange, t.host, t.sync
                        ),
                    );
                }
            }
            Action::Read(name, file) => {
                let info = engine.data_info(name).map_err(|e| e.to_string())?;
                let bytes = engine.read(name).map_err(|e| e.to_string())?;
                log.at(LogLevel::Debug, &format!("read {} bytes from '{name}'", bytes.len()));
                match file {
                    None => {
                        let _ = log
                            .out
                            .write_all(format::print_tensor(name, info.elem, &info.shape, &bytes).as_bytes());
                    }
                    Some(f) => {
                        let content = if f.extension().is_some_and(|e| e == "npy") {
                            data::to_npy(&bytes, info.elem, &info.shape)
                        } else {
                            bytes
                        };
                        if env.writes() {
                            std::fs::write(f, content)
                                .map_err(|e| format!("cannot write {}: {e}", f.display()))?;
                        }
                    }
                }
            }
        }
    }
    env.runs_over.store(true, std::sync::atomic::Ordering::Relaxed);
    let written = match env.writes() {
        true => write_results(args, &engine, &opts, log),
        false => Ok(()),
    };
    match stopped {
        None => written,
        Some(e) => {
            // The run's error is the command's; a result that could not be
            // written is reported before it.
            if let Err(w) = written {
                let _ = writeln!(log.err, "poplar-run: error: {w}");
            }
            Err(e)
        }
    }
}

/// This process's share of a job's replicas, after checking that every
/// process runs the same image with the replica count the job was
/// launched with (each process finds the same answer).
pub fn job_engine(job: &Job, loaded: crate::Loaded, opts: &EngineOptions) -> Result<Engine, String> {
    let have = loaded.image.target.replicas;
    if let Some(want) = job.replicas.filter(|&w| w != have) {
        return Err(format!(
            "the image has a replication factor of {have} but the job was launched with {want} replicas \
             (poprun --num-replicas)"
        ));
    }
    let hash = loaded.image.content_hash();
    let hashes = job.transport.all_gather(hash.clone().into_bytes());
    if let Some(rank) = hashes.iter().position(|h| *h != hashes[0]) {
        return Err(format!("process {rank} of the job runs another image than process 0"));
    }
    Engine::with_transport(loaded, opts, job.transport.clone())
}

/// What the command writes after its actions: the execution profile, the
/// trace, autoReport's files and the summary.
fn write_results(args: &Args, engine: &Engine, opts: &EngineOptions, log: &mut Log) -> Result<(), String> {
    if let Some(p) = &args.profile {
        let json = serde_json::to_string_pretty(&engine.profile_json()).unwrap_or_default();
        std::fs::write(p, json + "\n").map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    if let Some(p) = &args.trace {
        let file = std::fs::File::create(p).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        let mut w = std::io::BufWriter::new(file);
        if let Some(r) = engine.write_trace(&mut w) {
            r.and_then(|()| w.flush()).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        }
    }
    if opts.auto_report.graph {
        write_graph_profile(engine, opts)?;
    }
    if opts.auto_report.execution {
        if opts.device == DeviceKind::Sim {
            let json = serde_json::to_string_pretty(&engine.profile_json()).unwrap_or_default();
            opts.auto_report.write_execution(&(json + "\n"))?;
        } else {
            log.at(LogLevel::Warn, "autoReport: the cpu device models no cycles; no execution profile");
        }
    }
    if args.summary {
        let _ = write!(log.out, "{}", engine.summary());
    }
    Ok(())
}

fn looks_like_file(text: &str) -> bool {
    let t = text.trim();
    t.ends_with(".npy") || t.ends_with(".bin")
}

fn host_data(text: &str, info: &crate::engine::DataInfo, name: &str) -> Result<Vec<u8>, String> {
    if looks_like_file(text) {
        let bytes = std::fs::read(text).map_err(|e| format!("cannot read {text}: {e}"))?;
        if text.ends_with(".npy") {
            data::from_npy(&bytes, info.elem, &info.shape, name)
        } else {
            data::from_bin(&bytes, info.elem, &info.shape, name)
        }
        .map_err(|e| e.to_string())
    } else {
        data::parse_literal(text, info.elem, &info.shape, name).map_err(|e| e.to_string())
    }
}

/// A stream's host buffer: a list or file (a `.npy` of any shape, read in
/// row-major order) of any whole number of elements;
/// a splat fills one block.
fn stream_data(text: &str, elem: linker::gp::ElemType, name: &str) -> Result<Vec<u8>, String> {
    if looks_like_file(text) {
        let bytes = std::fs::read(text).map_err(|e| format!("cannot read {text}: {e}"))?;
        if text.ends_with(".npy") {
            let shape = data::npy_shape(&bytes).map_err(|e| format!("{text}: {e}"))?;
            data::from_npy(&bytes, elem, &shape, name).map_err(|e| e.to_string())
        } else {
            let size = elem.size() as usize;
            if bytes.len() % size != 0 {
                return Err(format!("data for stream '{name}': {text} is not a whole number of elements"));
            }
            Ok(bytes)
        }
    } else if text.trim().starts_with('[') {
        let count = text.split(',').count() as u64;
        data::parse_literal(text, elem, &[count], name).map_err(|e| e.to_string())
    } else {
        data::parse_literal(text, elem, &[1], name).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_keep_their_order() {
        let argv: Vec<String> = [
            "p.exe",
            "--write",
            "a=[1,2]",
            "--run",
            "main",
            "--read",
            "b=out.npy",
            "--device=cpu",
            "--read",
            "c",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let a = parse(&argv).unwrap();
        assert_eq!(a.device, Some(DeviceKind::Cpu));
        assert_eq!(
            a.actions,
            vec![
                Action::Write("a".into(), "[1,2]".into()),
                Action::Run("main".into()),
                Action::Read("b".into(), Some("out.npy".into())),
                Action::Read("c".into(), None),
            ]
        );
        assert!(parse(&["--bogus".to_string()]).is_err());
        let a = parse(&["--stream-replica".to_string(), "3:s=[1,2]".to_string()]).unwrap();
        assert_eq!(a.actions, vec![Action::StreamReplica(3, "s".into(), "[1,2]".into())]);
        let e = parse(&["--stream-replica".to_string(), "s=[1]".to_string()]).unwrap_err();
        assert!(e.contains("--stream-replica takes R:NAME=DATA"), "{e}");
    }

    #[test]
    fn stream_files_may_have_any_shape() {
        use linker::gp::ElemType;
        let dir = std::env::temp_dir().join(format!("poplar-run-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("images.npy");
        let bytes: Vec<u8> = (0..12).collect();
        std::fs::write(&file, data::to_npy(&bytes, ElemType::UChar, &[2, 2, 3])).unwrap();
        let text = file.to_string_lossy();
        assert_eq!(stream_data(&text, ElemType::UChar, "images").unwrap(), bytes);
        // The element type is still checked.
        let e = stream_data(&text, ElemType::Float, "images").unwrap_err();
        assert!(e.contains("'images' needs float"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

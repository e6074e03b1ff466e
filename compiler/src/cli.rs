//! The `poplar-compile` command as a function ([`run_cli`]: arguments in;
//! exit code, stdout and stderr out), which the binary and the golden tests
//! share. It parses the command line, runs [`crate::compile_path`], writes
//! the outputs atomically (a temporary file renamed into place, so a failed
//! compile leaves no output file) and renders every failure with the
//! program's name: the one place the compiler's errors become text for a
//! terminal.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Parser;

use crate::{compile_path, CompileError, DumpStage, Options};

/// The name failures are reported under.
const PROGRAM: &str = "poplar-compile";

/// A failure of the command itself, as it writes it.
fn error(message: impl std::fmt::Display) -> String {
    format!("{PROGRAM}: error: {message}\n")
}

/// `poplar-compile`: compiles a PIR graph and its codelets into `prog.exe`.
#[derive(Parser, Debug)]
#[command(
    name = "poplar-compile",
    version,
    about = "Compile a PIR graph and its codelets into an executable image",
    after_help = "Environment: POPLAR_TARGET_OPTIONS, a JSON object of target keys applied after the \
                  file's target and --target, e.g. {\"tiles_per_ipu\": 16}. POPLAR_ENGINE_OPTIONS: \
                  {\"autoReport.outputGraphProfile\": \"true\"} (or autoReport.all) writes graph.json \
                  into autoReport.directory (default: here). POPLAR_EXPANSION_LIMIT: as \
                  --expansion-limit, when the option is not given."
)]
struct Cli {
    /// The graph (`.pir`).
    input: PathBuf,
    /// Where to write the executable image.
    #[arg(short = 'o', value_name = "prog.exe")]
    output: Option<PathBuf>,
    /// Target preset (mk1, mk2, bow, cpu), replacing the file's preset; its key overrides stay.
    #[arg(long, value_name = "PRESET")]
    target: Option<String>,
    /// Add a folder to search for codelet files.
    #[arg(short = 'I', value_name = "dir")]
    include: Vec<PathBuf>,
    /// Write the graph profile (JSON) here.
    #[arg(long, value_name = "graph-profile.json")]
    report: Option<PathBuf>,
    /// Make unmapped tensor elements an error instead of a warning.
    #[arg(long)]
    strict_mapping: bool,
    /// Report overflowing tiles as a warning and still write the report (no image).
    #[arg(long)]
    allow_out_of_memory: bool,
    /// Only parse and check the graph (no codelets, no output).
    #[arg(long)]
    check: bool,
    /// Print a stage as text to stdout: ops, library, mapping, exchange, memory, program, image.
    #[arg(long, value_name = "STAGE")]
    dump: Vec<String>,
    /// Print the time each pass takes to stderr.
    #[arg(long)]
    time_passes: bool,
    /// The budget of what `for` loops and views that repeat elements may make beyond the text
    /// (default 100000000 units; a loop iteration costs 1, an entity a loop makes 16).
    #[arg(long, value_name = "N")]
    expansion_limit: Option<u64>,
}

/// `--time-passes`: each pass's time, then their total, to `stderr`.
fn write_timings(stderr: &mut String, timings: &[(&str, std::time::Duration)]) {
    let total: f64 = timings.iter().map(|t| t.1.as_secs_f64()).sum();
    for (name, d) in timings {
        let _ = writeln!(stderr, "time: {:>9.3} ms  {name}", d.as_secs_f64() * 1e3);
    }
    let _ = writeln!(stderr, "time: {:>9.3} ms  total", total * 1e3);
}

/// Writes `bytes` to `path` through a temporary file in the same folder,
/// renamed over it. A path that is there and is not a regular file
/// (`/dev/null`, a pipe) is written in place: renaming over it would put a
/// file where the device was (run as root, `-o /dev/null` did).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return std::fs::write(path, bytes)
            .map_err(|e| error(format!("cannot write {}: {e}", path.display())));
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path)).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        error(format!("cannot write {}: {e}", path.display()))
    })
}

/// The whole command: `args` without the program name. Returns (exit code,
/// stdout, stderr).
pub fn run_cli(args: &[String]) -> (i32, String, String) {
    let argv = std::iter::once(PROGRAM.to_string()).chain(args.iter().cloned());
    let cli = match Cli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            let text = e.render().to_string();
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    (0, text, String::new())
                }
                _ => (1, String::new(), text),
            };
        }
    };
    let log = match report::log::LogConfig::from_env() {
        Ok(l) => l,
        Err(e) => return (1, String::new(), error(e)),
    };
    let mut dumps = Vec::new();
    for d in &cli.dump {
        match DumpStage::from_name(d) {
            Some(s) => dumps.push(s),
            None => {
                let stages = "ops, library, mapping, exchange, memory, program or image";
                return (1, String::new(), error(format!("unknown --dump stage `{d}` (expected {stages})")));
            }
        }
    }
    let expansion_limit = match (cli.expansion_limit, std::env::var("POPLAR_EXPANSION_LIMIT")) {
        (Some(n), _) => Some(n),
        (None, Ok(text)) => match crate::options::parse_expansion_limit(&text) {
            Ok(n) => Some(n),
            Err(e) => return (1, String::new(), error(e)),
        },
        (None, Err(_)) => None,
    };
    if cli.check {
        let file_name = cli.input.display().to_string();
        let bytes = match std::fs::read(&cli.input) {
            Err(source) => {
                return (1, String::new(), CompileError::Read { path: file_name, source }.render(PROGRAM))
            }
            Ok(bytes) => bytes,
        };
        let t = std::time::Instant::now();
        let checked = ir::parse_bytes_with(
            &file_name,
            &bytes,
            &Options { expansion_limit, ..Default::default() }.check_options(),
        );
        let mut stderr = String::new();
        if cli.time_passes {
            write_timings(&mut stderr, &[("parse_and_check (ir)", t.elapsed())]);
        }
        return match checked {
            Ok(_) => (0, String::new(), stderr),
            Err(d) => (1, String::new(), d.render() + &stderr),
        };
    }
    // `autoReport.outputGraphProfile` (or `.all`) in POPLAR_ENGINE_OPTIONS
    // writes the graph profile as Poplar's engine compile does.
    let auto = match std::env::var("POPLAR_ENGINE_OPTIONS") {
        Ok(text) => match report::auto::AutoReport::from_engine_options(&text) {
            Ok(a) => a,
            Err(e) => return (1, String::new(), error(e)),
        },
        Err(_) => Default::default(),
    };
    let opts = Options {
        target: cli.target.clone(),
        include_dirs: cli.include.clone(),
        strict_mapping: cli.strict_mapping,
        allow_out_of_memory: cli.allow_out_of_memory,
        dumps,
        report: cli.report.is_some() || auto.graph,
        time_passes: cli.time_passes,
        target_options: std::env::var("POPLAR_TARGET_OPTIONS").ok(),
        progress: report::progress::Progress::on_terminal(PROGRAM),
        expansion_limit,
    };
    opts.progress.step("parsing");
    let c = compile_path(&cli.input, &opts);
    opts.progress.finish();
    let c = match c {
        Ok(c) => c,
        Err(e) => return (1, String::new(), e.render(PROGRAM)),
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    // Warnings and log lines: written where POPLAR_LOG_DEST says, at the end.
    let mut logged =
        if log.enabled(report::log::LogLevel::Warn) { c.render_warnings() } else { String::new() };
    for (stage, text) in &c.dumps {
        if c.dumps.len() > 1 {
            let _ = writeln!(stdout, "== {} ==", stage.name());
        }
        stdout.push_str(text);
    }
    if let (Some(path), Some(json)) = (&cli.report, &c.report) {
        if let Err(e) = write_atomic(path, json.as_bytes()) {
            return (1, stdout, stderr + &e);
        }
    }
    if let Some(json) = &c.report {
        if let Err(e) = auto.write_graph(json) {
            return (1, stdout, stderr + &error(e));
        }
    }
    let mut timings = c.timings.clone();
    match (&cli.output, &c.image) {
        (Some(path), Some(img)) => {
            let t = std::time::Instant::now();
            let bytes = img.to_bytes();
            if let Err(e) = write_atomic(path, &bytes) {
                return (1, stdout, stderr + &e);
            }
            timings.push(("write image", t.elapsed()));
            if log.enabled(report::log::LogLevel::Info) {
                let msg = format!("wrote {} ({} bytes)", path.display(), bytes.len());
                logged.push_str(&report::log::line(report::log::LogLevel::Info, &msg));
            }
        }
        (Some(_), None) if log.enabled(report::log::LogLevel::Warn) => logged
            .push_str(&format!("{PROGRAM}: warning: the graph does not fit in memory; no image written\n")),
        _ => {}
    }
    if opts.time_passes {
        write_timings(&mut stderr, &timings);
    }
    match &log.dest {
        report::log::LogDest::Stderr => stderr.insert_str(0, &logged),
        report::log::LogDest::Stdout => stdout.insert_str(0, &logged),
        dest => {
            let written = dest.open().and_then(|f| match f {
                Some(mut f) => f
                    .write_all(logged.as_bytes())
                    .and_then(|()| f.flush())
                    .map_err(|e| format!("POPLAR_LOG_DEST: {e}")),
                None => Ok(()),
            });
            if let Err(e) = written {
                return (1, stdout, stderr + &error(e));
            }
        }
    }
    (0, stdout, stderr)
}

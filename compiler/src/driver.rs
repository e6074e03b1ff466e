//! The driver: the only part of the compiler that touches the file system.
//!
//! It reads the `.pir` file, finds its codelet files (relative to the
//! `.pir`'s folder, then each `-I` folder), loads `.gp` objects and compiles
//! `.cpp` codelets in-process through `popc`'s library (once per file per
//! run, with the options of the `codelets` item, asking for the vertex type
//! names the graph uses), runs [`crate::compile`], and for the command line
//! writes outputs atomically (a temporary file renamed into place, so a
//! failed compile leaves no output file). [`run_cli`] is the whole command
//! as a function returning (exit code, stdout, stderr), which the binary and
//! the tests share.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Parser;
use linker::gp;

use crate::{Codelets, Compiled, DumpStage, Options};

/// `poplar-compile`: compiles a PIR graph and its codelets into `prog.exe`.
#[derive(Parser, Debug)]
#[command(
    name = "poplar-compile",
    version,
    about = "Compile a PIR graph and its codelets into an executable image",
    after_help = "Environment: POPLAR_TARGET_OPTIONS, a JSON object of target keys applied after the \
                  file's target and --target, e.g. {\"tiles_per_ipu\": 16}. POPLAR_ENGINE_OPTIONS: \
                  {\"autoReport.outputGraphProfile\": \"true\"} (or autoReport.all) writes graph.json \
                  into autoReport.directory (default: here)."
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
    /// Print a stage as text to stdout: ops, mapping, exchange, memory, program, image.
    #[arg(long, value_name = "STAGE")]
    dump: Vec<String>,
    /// Print the time each pass takes to stderr.
    #[arg(long)]
    time_passes: bool,
}

/// Reads files for `popc`'s preprocessor.
struct FsIncludes;

impl popc::IncludeResolver for FsIncludes {
    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

fn find_file(pir_dir: &Path, rel: &str, include_dirs: &[PathBuf]) -> Result<PathBuf, Vec<PathBuf>> {
    let mut tried = Vec::new();
    for dir in std::iter::once(pir_dir).chain(include_dirs.iter().map(|p| p.as_path())) {
        let p = dir.join(rel);
        if p.is_file() {
            return Ok(p);
        }
        tried.push(p);
    }
    Err(tried)
}

/// Loads or compiles every codelet file of the graph.
fn load_codelets(
    file_name: &str,
    source: &str,
    pir_path: &Path,
    module: &ir::Module,
    opts: &Options,
) -> Result<Codelets, String> {
    let graph = &module.graph;
    let dir = pir_path.parent().unwrap_or(Path::new("."));
    let requested: Vec<String> = graph
        .vertices
        .values()
        .map(|v| v.vtype.to_string())
        .collect::<BTreeSet<String>>()
        .into_iter()
        .collect();
    let mut out = Codelets::default();
    let mut text = String::new();
    let mut diags = ir::Diagnostics::new(file_name, source);
    for (id, c) in graph.codelets.iter() {
        let span = *module.spans.codelets.get(id);
        let path = match find_file(dir, &c.path, &opts.include_dirs) {
            Ok(p) => p,
            Err(tried) => {
                let mut d = ir::Diagnostic::error(span, format!("codelet file `{}` not found", c.path));
                for t in tried {
                    d = d.with_note(format!("looked for {}", t.display()));
                }
                diags.push(d);
                continue;
            }
        };
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                diags.push(ir::Diagnostic::error(span, format!("cannot read `{}`: {e}", path.display())));
                continue;
            }
        };
        if c.path.ends_with(".gp") {
            match gp::Object::from_bytes(&bytes) {
                Ok(o) => out.objects.push(o),
                Err(e) => diags.push(ir::Diagnostic::error(
                    span,
                    format!("cannot load codelet object `{}`: {e}", c.path),
                )),
            }
            continue;
        }
        let src = String::from_utf8_lossy(&bytes).into_owned();
        let shown = path.display().to_string();
        opts.progress.step(format!("compiling codelets {}", c.path));
        match compile_cpp(&shown, &src, &c.options, &requested) {
            Ok(o) => out.objects.push(o),
            Err(rendered) => {
                text.push_str(&rendered);
                diags.push(ir::Diagnostic::error(
                    span,
                    format!("codelet file `{}` failed to compile", c.path),
                ));
            }
        }
    }
    if diags.has_errors() {
        text.push_str(&diags.render());
        return Err(text);
    }
    Ok(out)
}

/// Compiles one codelet C++ file with `popc`'s library. Only templated
/// names whose template the file mentions are requested (plain classes are
/// always emitted); a requested name popc cannot instantiate is left out of
/// the object (popc lists it as unresolved), so that the graph compiler
/// reports the unknown vertex type at its PIR position rather than popc at
/// the codelet's.
fn compile_cpp(
    file_name: &str,
    source: &str,
    options: &[String],
    requested: &[String],
) -> Result<gp::Object, String> {
    let popc_opts = popc::Options::from_args(options).map_err(|e| format!("{file_name}: error: {e}\n"))?;
    let wanted: Vec<String> = requested
        .iter()
        .filter(|n| {
            n.split_once('<').is_some_and(|(base, _)| {
                let last = base.rsplit("::").next().unwrap_or(base).trim();
                !last.is_empty() && source.contains(last)
            })
        })
        .cloned()
        .collect();
    popc::compile_lenient(file_name, source, &popc_opts, &FsIncludes, &wanted)
        .map(|out| out.object)
        .map_err(|d| d.render())
}

fn target_override(graph: &mut ir::Graph, preset: &str) -> Result<(), String> {
    let Some(mut t) = ir::Target::from_preset_name(preset) else {
        return Err(format!(
            "poplar-compile: error: unknown target preset `{preset}` (expected mk1, mk2, bow or cpu)\n"
        ));
    };
    for (k, v) in graph.target.overrides() {
        let _ = t.set(k, v);
    }
    graph.target = t;
    Ok(())
}

/// Poplar's own target creation options, with the values the Poplar API
/// documents. They configure the IPU-Links between IPUs and the hardware
/// sync groups, which this toolchain does not model (one exchange joins all
/// tiles of all IPUs, one sync joins them all), so they are checked and
/// then ignored with a warning.
const POPLAR_TARGET_OPTIONS: [(&str, &[&str]); 3] = [
    ("ipuLinkConfiguration", &["fixedWindow", "slidingWindow", "barleyTwist"]),
    ("syncConfiguration", &["intraReplicaAndAll", "ipuAndAll"]),
    ("ipuLinkTopology", &["mesh", "torus", "line"]),
];

/// Applies `POPLAR_TARGET_OPTIONS`, a JSON object of PIR target keys with
/// positive integer values and Poplar's own target options. Returns the
/// warnings for the options that have no effect here.
fn target_options(target: &mut ir::Target, json: &str) -> Result<String, String> {
    let err = |m: String| format!("poplar-compile: error: POPLAR_TARGET_OPTIONS: {m}\n");
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| err(format!("not valid JSON: {e}")))?;
    let serde_json::Value::Object(map) = value else {
        return Err(err("expected a JSON object of target keys, e.g. {\"tiles_per_ipu\": 16}".into()));
    };
    let mut warnings = String::new();
    for (k, v) in &map {
        if let Some((_, values)) = POPLAR_TARGET_OPTIONS.iter().find(|(name, _)| name == k) {
            if !v.as_str().is_some_and(|s| values.contains(&s)) {
                return Err(err(format!("`{k}` must be one of {}, not {v}", values.join(", "))));
            }
            warnings.push_str(&format!(
                "poplar-compile: warning: POPLAR_TARGET_OPTIONS: `{k}` has no effect: this toolchain \
                 does not model IPU-Links or sync groups\n"
            ));
            continue;
        }
        if !ir::target::TARGET_KEYS.contains(&k.as_str()) {
            let poplar: Vec<&str> = POPLAR_TARGET_OPTIONS.iter().map(|(name, _)| *name).collect();
            let hint =
                spelling::did_you_mean(k, ir::target::TARGET_KEYS.into_iter().chain(poplar.iter().copied()))
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
            return Err(err(format!(
                "unknown target key `{k}`{hint} (expected one of: {}; or Poplar's {})",
                ir::target::TARGET_KEYS.join(", "),
                poplar.join(", ")
            )));
        }
        let n = v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| err(format!("`{k}` must be an integer from 1 to {}, not {v}", u32::MAX)))?;
        target.set(k, n).map_err(err)?;
    }
    Ok(warnings)
}

/// The compile function `poplar-run` injects for a `.pir` input (and the
/// golden run harness with it): the image, the compiler's warnings and,
/// when `graph_profile` asks for it, the graph profile (JSON, as `--report`
/// writes it), or the rendered diagnostics. The runtime itself never
/// depends on the compiler; it writes autoReport's `graph.json` itself,
/// after the run, with the run's cycle estimates. Target keys come from
/// `POPLAR_TARGET_OPTIONS`.
pub fn compile_for_run_profiled(
    path: &Path,
    graph_profile: bool,
) -> Result<(linker::image::Image, Vec<String>, Option<String>), String> {
    let opts = Options {
        target_options: std::env::var("POPLAR_TARGET_OPTIONS").ok(),
        report: graph_profile,
        progress: ::report::progress::Progress::on_terminal("poplar-run: compiling"),
        ..Default::default()
    };
    let compiled = compile_path(path, &opts);
    opts.progress.finish();
    let compiled = compiled?;
    let warnings = if compiled.warnings.trim().is_empty() {
        vec![]
    } else {
        vec![compiled.warnings.trim_end().to_string()]
    };
    let image =
        compiled.image.ok_or_else(|| format!("{}: the graph does not fit in tile memory", path.display()))?;
    Ok((image, warnings, compiled.report))
}

/// [`compile_for_run_profiled`] without the graph profile: the image and
/// the compiler's warnings (for the benchmarks and other library callers).
pub fn compile_for_run(path: &Path) -> Result<(linker::image::Image, Vec<String>), String> {
    compile_for_run_profiled(path, false).map(|(image, warnings, _)| (image, warnings))
}

/// Compiles the `.pir` file at `path` (for `poplar-run graph.pir` and the
/// command line). `Err` holds the rendered diagnostics.
pub fn compile_path(path: &Path, opts: &Options) -> Result<Compiled, String> {
    let file_name = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| format!("poplar-compile: error: cannot read {file_name}: {e}\n"))?;
    let t = std::time::Instant::now();
    let mut module = ir::parse_bytes(&file_name, &bytes).map_err(|d| d.render())?;
    let parse_time = t.elapsed();
    let source = String::from_utf8_lossy(&bytes).into_owned();
    let mut warnings = String::new();
    for w in &module.warnings {
        warnings.push_str(&w.render(&file_name, &source));
    }
    let file_target = module.graph.target.clone();
    if let Some(p) = &opts.target {
        target_override(&mut module.graph, p)?;
    }
    if let Some(json) = &opts.target_options {
        warnings.push_str(&target_options(&mut module.graph.target, json)?);
    }
    module.graph.target.check().map_err(|m| format!("poplar-compile: error: {m}\n"))?;
    if module.graph.target != file_target && source.contains("target.") {
        // The file reads target properties (`target.num_tiles`): lower it
        // again for the target it will run on.
        let target = module.graph.target.clone();
        module = ir::parse_bytes_for(&file_name, &bytes, Some(&target)).map_err(|d| d.render())?;
    }
    let t = std::time::Instant::now();
    let codelets = load_codelets(&file_name, &source, path, &module, opts)?;
    let codelet_time = t.elapsed();
    let mut c = crate::compile(&file_name, &source, &module.graph, &module.spans, &codelets, opts)?;
    c.timings.insert(0, ("codelets", codelet_time));
    c.timings.insert(0, ("parse_and_check (ir)", parse_time));
    warnings.push_str(&c.warnings);
    c.warnings = warnings;
    Ok(c)
}

/// Writes `bytes` to `path` through a temporary file in the same folder.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path)).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("poplar-compile: error: cannot write {}: {e}\n", path.display())
    })
}

/// The whole command: `args` without the program name. Returns (exit code,
/// stdout, stderr).
pub fn run_cli(args: &[String]) -> (i32, String, String) {
    let argv = std::iter::once("poplar-compile".to_string()).chain(args.iter().cloned());
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
        Err(e) => return (1, String::new(), format!("poplar-compile: error: {e}\n")),
    };
    let mut dumps = Vec::new();
    for d in &cli.dump {
        match DumpStage::from_name(d) {
            Some(s) => dumps.push(s),
            None => {
                return (
                    1,
                    String::new(),
                    format!(
                        "poplar-compile: error: unknown --dump stage `{d}` (expected ops, mapping, exchange, memory, program or image)\n"
                    ),
                )
            }
        }
    }
    if cli.check {
        let file_name = cli.input.display().to_string();
        return match std::fs::read(&cli.input) {
            Err(e) => (1, String::new(), format!("poplar-compile: error: cannot read {file_name}: {e}\n")),
            Ok(bytes) => match ir::parse_bytes(&file_name, &bytes) {
                Ok(_) => (0, String::new(), String::new()),
                Err(d) => (1, String::new(), d.render()),
            },
        };
    }
    // `autoReport.outputGraphProfile` (or `.all`) in POPLAR_ENGINE_OPTIONS
    // writes the graph profile as Poplar's engine compile does.
    let auto = match std::env::var("POPLAR_ENGINE_OPTIONS") {
        Ok(text) => match report::auto::AutoReport::from_engine_options(&text) {
            Ok(a) => a,
            Err(e) => return (1, String::new(), format!("poplar-compile: error: {e}\n")),
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
        progress: report::progress::Progress::on_terminal("poplar-compile"),
    };
    opts.progress.step("parsing");
    let c = compile_path(&cli.input, &opts);
    opts.progress.finish();
    let c = match c {
        Ok(c) => c,
        Err(e) => return (1, String::new(), e),
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    // Warnings and log lines: written where POPLAR_LOG_DEST says, at the end.
    let mut logged =
        if log.enabled(report::log::LogLevel::Warn) { c.warnings.clone() } else { String::new() };
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
            return (1, stdout, stderr + &format!("poplar-compile: error: {e}\n"));
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
        (Some(_), None) if log.enabled(report::log::LogLevel::Warn) => {
            logged.push_str("poplar-compile: warning: the graph does not fit in memory; no image written\n")
        }
        _ => {}
    }
    if opts.time_passes {
        let total: f64 = timings.iter().map(|t| t.1.as_secs_f64()).sum();
        for (name, d) in &timings {
            let _ = writeln!(stderr, "time: {:>9.3} ms  {name}", d.as_secs_f64() * 1e3);
        }
        let _ = writeln!(stderr, "time: {:>9.3} ms  total", total * 1e3);
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
                return (1, stdout, stderr + &format!("poplar-compile: error: {e}\n"));
            }
        }
    }
    (0, stdout, stderr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_options_take_pir_keys_and_poplars() {
        let mut t = ir::Target::preset(ir::Preset::Mk2);
        let w = target_options(&mut t, r#"{"tiles_per_ipu": 16, "ipuLinkTopology": "line"}"#).unwrap();
        assert_eq!(t.tiles_per_ipu, 16);
        assert!(w.contains("`ipuLinkTopology` has no effect"), "{w}");
        let e = target_options(&mut t, r#"{"syncConfiguration": "everything"}"#).unwrap_err();
        assert!(e.contains("must be one of intraReplicaAndAll, ipuAndAll"), "{e}");
        let e = target_options(&mut t, r#"{"numIPUs": "2"}"#).unwrap_err();
        assert!(e.contains("unknown target key `numIPUs`") && e.contains("ipuLinkConfiguration"), "{e}");
        let e = target_options(&mut t, r#"{"tile_per_ipu": 4}"#).unwrap_err();
        assert!(e.contains("unknown target key `tile_per_ipu`; did you mean `tiles_per_ipu`?"), "{e}");
        let e = target_options(&mut t, r#"{"ipuLinkTopolgy": "line"}"#).unwrap_err();
        assert!(e.contains("did you mean `ipuLinkTopology`?"), "{e}");
        assert!(target_options(&mut t, r#"{"workers": 0}"#).is_err());
        assert!(target_options(&mut t, "[1]").is_err());
    }
}

//! The `popc` command: `popc [options] <input>... -o <output>`.
//!
//! Reads the codelet source and its includes from the file system (the only
//! I/O of the compiler), compiles with the library, and writes the `.gp`
//! object. Errors go to stderr as `file:line:col: error: …` with exit code
//! 1; a failed compile writes no output file. `POPLAR_LOG_LEVEL` and
//! `POPLAR_LOG_DEST` choose the log lines (`INFO`: what was written,
//! `DEBUG`: each vertex type) and where they go, as for the other tools.

#![forbid(unsafe_code)]

use std::process::ExitCode;

/// mimalloc serves the front end's many small allocations faster than the
/// system allocator (as in `poplar-compile`).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

#[derive(Parser, Debug)]
#[command(
    name = "popc",
    version,
    about = "Compile C++ vertex codelets to a .gp object (the Poplar codelet compiler)"
)]
struct Cli {
    /// Codelet source files (several make one object, as one library).
    #[arg(required = true, num_args = 1..)]
    inputs: Vec<String>,
    /// Output object file.
    #[arg(short = 'o', value_name = "OUTPUT")]
    output: Option<String>,
    /// Define a macro: -DNAME or -DNAME=VALUE.
    #[arg(short = 'D', value_name = "MACRO", action = clap::ArgAction::Append)]
    defines: Vec<String>,
    /// Add an include directory.
    #[arg(short = 'I', value_name = "PATH", action = clap::ArgAction::Append)]
    includes: Vec<String>,
    /// Record line tables for trap reports.
    #[arg(short = 'g')]
    debug: bool,
    /// Optimisation level 0..3.
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2")]
    opt: String,
    /// Target triple (default: this machine).
    #[arg(long = "target")]
    target: Option<String>,
    /// Print the Cranelift IR of each vertex to stdout.
    #[arg(short = 'S')]
    emit_ir: bool,
    /// Keep every loop scalar (no SIMD copies of elementwise loops).
    #[arg(long = "no-vectorize")]
    no_vectorize: bool,
    /// Extra vertex types to instantiate, e.g. 'Sum<half,4>'.
    #[arg(long = "instantiate", value_name = "NAME", action = clap::ArgAction::Append)]
    instantiate: Vec<String>,
}

fn main() -> ExitCode {
    // As in poplar-compile and poplar-run: an unusable level is an error
    // before anything else, `--help` included.
    if let Some(m) = linker::isa::env_error() {
        eprintln!("popc: error: {m}");
        return ExitCode::from(1);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let mut args: Vec<String> = cli.defines.iter().map(|d| format!("-D{d}")).collect();
    args.extend(cli.includes.iter().map(|i| format!("-I{i}")));
    args.push(format!("-O{}", cli.opt));
    if cli.debug {
        args.push("-g".into());
    }
    if cli.emit_ir {
        args.push("-S".into());
    }
    if cli.no_vectorize {
        args.push("-fno-vectorize".into());
    }
    if let Some(t) = &cli.target {
        args.push("--target".into());
        args.push(t.clone());
    }
    let log = match report::log::LogConfig::from_env() {
        Ok(l) => l,
        Err(m) => {
            eprintln!("popc: error: {m}");
            return ExitCode::from(1);
        }
    };
    let opts = match popc::Options::from_args(&args) {
        Ok(o) => o,
        Err(m) => {
            eprintln!("popc: error: {m}");
            return ExitCode::from(1);
        }
    };
    let mut sources = Vec::new();
    for input in &cli.inputs {
        match std::fs::read(input) {
            Ok(b) => sources.push((input.clone(), String::from_utf8_lossy(&b).into_owned())),
            Err(e) => {
                eprintln!("popc: error: cannot read '{input}': {e}");
                return ExitCode::from(1);
            }
        }
    }
    let out = match popc::compile_sources(&sources, &opts, &popc::FsIncludes, &cli.instantiate) {
        Ok(o) => o,
        Err(d) => {
            eprint!("{}", d.render());
            return ExitCode::from(1);
        }
    };
    if cli.emit_ir {
        report::log::write_stdout(&out.ir_text);
    }
    let mut logged = String::new();
    if let Some(path) = &cli.output {
        let bytes = out.object.to_bytes();
        if let Err(e) = std::fs::write(path, &bytes) {
            eprintln!("popc: error: cannot write '{path}': {e}");
            return ExitCode::from(1);
        }
        use report::log::{line, LogLevel};
        if log.enabled(LogLevel::Info) {
            let n = out.object.vertex_types.len();
            logged +=
                &line(LogLevel::Info, &format!("wrote {path}: {n} vertex types, {} bytes", bytes.len()));
        }
        if log.enabled(LogLevel::Debug) {
            for v in &out.object.vertex_types {
                let code = v.plain.code.len() + v.counting.code.len();
                let msg =
                    format!("vertex type {}: {} bytes of state, {code} bytes of code", v.name, v.state_size);
                logged += &line(LogLevel::Debug, &msg);
            }
        }
    } else if !cli.emit_ir {
        eprintln!("popc: error: no output file given (-o)");
        return ExitCode::from(1);
    }
    if let Err(e) = write_log(&log.dest, &logged) {
        eprintln!("popc: error: {e}");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// Writes log lines where `POPLAR_LOG_DEST` says.
fn write_log(dest: &report::log::LogDest, text: &str) -> Result<(), String> {
    use std::io::Write;
    if text.is_empty() {
        return Ok(());
    }
    match dest {
        report::log::LogDest::Stdout => report::log::write_stdout(text),
        report::log::LogDest::Stderr => report::log::write_stderr(text),
        file => {
            if let Some(mut f) = file.open()? {
                f.write_all(text.as_bytes())
                    .and_then(|()| f.flush())
                    .map_err(|e| format!("POPLAR_LOG_DEST: {e}"))?;
            }
        }
    }
    Ok(())
}

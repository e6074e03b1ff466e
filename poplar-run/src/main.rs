//! `poplar-run`: runs a `prog.exe` (or compiles and runs a `graph.pir`) on
//! the `sim` or `cpu` device. All logic is in [`runtime::cli`]; this file
//! connects it to the process's arguments, environment and streams, and
//! injects the compiler ([`compiler::compile_for_run_profiled`]) for `.pir` inputs, so
//! that the runtime library itself depends on no compiler. With `--timeout`,
//! a watchdog thread ends the process if a codelet never returns.

#![forbid(unsafe_code)]

/// The allocator `poplar-compile` uses (a `.pir` input is compiled here too).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How long after `--timeout` a codelet that never returns is given before
/// the process stops (the runtime itself stops at the next program step).
const HANG_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if let Some(e) = runtime::linker::isa::env_error() {
        eprintln!("poplar-run: error: {e}");
        std::process::exit(1);
    }
    let env = runtime::cli::Env::from_process();
    if let Some(limit) = runtime::cli::timeout(&argv) {
        watchdog(limit, env.runs_over.clone());
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut err = std::io::stderr();
    let code = runtime::cli::main(&argv, &env, &compiler::compile_for_run_profiled, &mut out, &mut err);
    use std::io::Write;
    let _ = out.flush();
    drop(out);
    std::process::exit(code);
}

/// Ends the process with exit status 1 if it is still running its programs
/// `HANG_GRACE` after `limit`: by then the run is stuck inside codelet code,
/// which cannot be interrupted (the step-boundary check would have stopped
/// it). Once the runs are over (`runs_over`), the command is writing the
/// profile and trace of the run, however it ended, and is left to finish.
fn watchdog(limit: std::time::Duration, runs_over: std::sync::Arc<std::sync::atomic::AtomicBool>) {
    std::thread::spawn(move || {
        std::thread::sleep(limit.saturating_add(HANG_GRACE));
        if runs_over.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        eprintln!(
            "poplar-run: error: the run exceeded --timeout {} s inside codelet code that did not return; \
             stopping the process",
            limit.as_secs_f64()
        );
        std::process::exit(1);
    });
}

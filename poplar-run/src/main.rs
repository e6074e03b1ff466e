//! `poplar-run`: runs a `prog.exe` (or compiles and runs a `graph.pir`) on
//! the `sim` or `cpu` device. All logic is in [`runtime::cli`]; this file
//! connects it to the process's arguments, environment and streams, and
//! injects the compiler ([`compiler::compile_for_run_profiled`]) for `.pir` inputs, so
//! that the runtime library itself depends on no compiler. With `--timeout`,
//! a watchdog thread ends the process if a codelet never returns.
//!
//! Launched by `poprun` (`POPDIST_NUM_INSTANCES` set), the process is one
//! MPI rank of a job and runs its share of the replicas; built without
//! the `mpi` feature it says so and stops.

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
    let mut env = runtime::cli::Env::from_process();
    let service = match join_job(&mut env) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("poplar-run: error: {e}");
            std::process::exit(1);
        }
    };
    if let Some(limit) = runtime::cli::timeout(&argv) {
        watchdog(limit, env.runs_over.clone());
    }
    let code = {
        // Only one process of a job writes what the user sees.
        let stdout = std::io::stdout();
        let (mut out, mut err): (Box<dyn std::io::Write>, Box<dyn std::io::Write>) = match env.writes() {
            true => (Box::new(std::io::BufWriter::new(stdout.lock())), Box::new(std::io::stderr())),
            false => (Box::new(std::io::sink()), Box::new(std::io::sink())),
        };
        let code = runtime::cli::main(&argv, &env, &compiler::compile_for_run_profiled, &mut out, &mut err);
        let _ = out.flush();
        code
    };
    // The last handle on MPI goes with `env`; its thread then finalises it.
    drop(env);
    if let Some(s) = service {
        let _ = s.join();
    }
    std::process::exit(code);
}

/// Joins the MPI job `poprun` launched this process into, if it did.
#[cfg(feature = "mpi")]
fn join_job(env: &mut runtime::cli::Env) -> Result<Option<std::thread::JoinHandle<()>>, String> {
    if instances()?.is_none() {
        return Ok(None);
    }
    let (transport, service) = runtime::mpi::start("poplar-run")?;
    let replicas = match std::env::var("POPDIST_NUM_TOTAL_REPLICAS") {
        Ok(v) => Some(v.parse().map_err(|_| format!("POPDIST_NUM_TOTAL_REPLICAS='{v}' is not a number"))?),
        Err(_) => None,
    };
    env.job = Some(runtime::cli::Job { transport, replicas });
    Ok(Some(service))
}

#[cfg(not(feature = "mpi"))]
fn join_job(_env: &mut runtime::cli::Env) -> Result<Option<std::thread::JoinHandle<()>>, String> {
    match instances()? {
        Some(n) => Err(format!(
            "launched as one of {n} instances of a job (POPDIST_NUM_INSTANCES), but this poplar-run was built \
             without MPI: build it with `cargo build --release -p poplar-run --features mpi`"
        )),
        None => Ok(None),
    }
}

/// `POPDIST_NUM_INSTANCES`, which `poprun` sets for every instance.
fn instances() -> Result<Option<u32>, String> {
    match std::env::var("POPDIST_NUM_INSTANCES") {
        Ok(v) => v.parse().map(Some).map_err(|_| format!("POPDIST_NUM_INSTANCES='{v}' is not a number")),
        Err(_) => Ok(None),
    }
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

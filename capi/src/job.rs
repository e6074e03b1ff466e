//! A host program launched by `poprun` as one instance of a job
//! (`POPDIST_NUM_INSTANCES` set): its engines run this instance's share of
//! the replicas and meet the other instances' over MPI, as `poplar-run`
//! instances do (docs/scale-out.md). Every instance runs the whole host
//! program; host reads and program output cover every replica of the job
//! in each of them, so each prints what one process prints, and `poprun
//! --only-output-from-instance 0` shows it once.
//!
//! MPI comes with the `mpi` feature (`POPLAR_RS_MPI=1 . ./enable.sh`);
//! without it, an instance's engine refuses to load and says how to build
//! one that can.

use runtime::{Engine, EngineOptions, Loaded};

/// `POPDIST_NUM_INSTANCES`, which `poprun` sets for every instance.
fn instances() -> Result<Option<u32>, String> {
    match std::env::var("POPDIST_NUM_INSTANCES") {
        Ok(v) => v.parse().map(Some).map_err(|_| format!("POPDIST_NUM_INSTANCES='{v}' is not a number")),
        Err(_) => Ok(None),
    }
}

/// The engine of `loaded`: all its replicas, or, in an instance of a job,
/// this instance's share of them. `Err` says why it cannot run.
pub fn engine(loaded: Loaded, opts: &EngineOptions) -> Result<Engine, String> {
    match instances()? {
        None => Ok(Engine::new(loaded, opts)),
        Some(n) => instance_engine(n, loaded, opts),
    }
}

#[cfg(not(feature = "mpi"))]
fn instance_engine(n: u32, _loaded: Loaded, _opts: &EngineOptions) -> Result<Engine, String> {
    Err(format!(
        "this program was launched as one of {n} instances of a job (POPDIST_NUM_INSTANCES), but libpoplar was \
         built without MPI: build it with `POPLAR_RS_MPI=1 . ./enable.sh` (cargo's `-p capi --features mpi`)"
    ))
}

#[cfg(feature = "mpi")]
fn instance_engine(_n: u32, loaded: Loaded, opts: &EngineOptions) -> Result<Engine, String> {
    let replicas = match std::env::var("POPDIST_NUM_TOTAL_REPLICAS") {
        Ok(v) => Some(v.parse().map_err(|_| format!("POPDIST_NUM_TOTAL_REPLICAS='{v}' is not a number"))?),
        Err(_) => None,
    };
    let job = runtime::cli::Job { transport: mpi::transport()?, replicas };
    runtime::cli::job_engine(&job, loaded, opts)
}

#[cfg(feature = "mpi")]
mod mpi {
    use std::sync::{Arc, Mutex, OnceLock};
    use std::thread::JoinHandle;

    use runtime::mpi::MpiTransport;

    /// The process's one connection to the job, made by its first engine.
    static JOB: OnceLock<Result<Arc<MpiTransport>, String>> = OnceLock::new();
    /// The MPI service thread, joined when the process exits.
    static SERVICE: Mutex<Option<JoinHandle<()>>> = Mutex::new(None);

    /// The job's transport, started on first use; MPI is finalised when
    /// the process exits ([`finish`]), as every rank must before it ends.
    pub fn transport() -> Result<Arc<dyn runtime::replicas::Transport>, String> {
        let job = JOB.get_or_init(|| {
            let (transport, service) = runtime::mpi::start("poplar")?;
            *SERVICE.lock().unwrap_or_else(|p| p.into_inner()) = Some(service);
            // SAFETY: `finish` is an `extern "C" fn()` with no
            // preconditions; registering it has no other effect.
            #[allow(unsafe_code)]
            let registered = unsafe { libc::atexit(finish) } == 0;
            if !registered {
                transport.finish();
                return Err("cannot register MPI's finalisation at exit".into());
            }
            Ok(transport)
        });
        job.clone().map(|t| t as Arc<dyn runtime::replicas::Transport>)
    }

    /// Finalises MPI at exit: the service thread ends whatever engines
    /// are left, and the process leaves the job cleanly.
    extern "C" fn finish() {
        if let Some(Ok(t)) = JOB.get() {
            t.finish();
        }
        let service = SERVICE.lock().ok().and_then(|mut s| s.take());
        if let Some(s) = service {
            let _ = s.join();
        }
    }
}

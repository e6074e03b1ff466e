//! The runtime's errors, one type per stage: loading an image
//! ([`LoadError`]), host data and handles ([`HostError`]) and running
//! ([`RunError`]). Each renders to one line of text; only the binary prints.

use linker::container::FormatError;

/// Why an image could not be loaded. Nothing has run when this is returned.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error(
        "executable image (prog.exe) relocates against '{0}', which is not an allowed libcall (allowed: {list})",
        list = crate::hostfns::LIBCALLS.join(", ")
    )]
    UnknownSymbol(String),
    #[error("cannot map the code segment: {0}")]
    Map(String),
    #[error(
        "this processor lacks {missing}, which code for the ISA level {isa} uses; \
         run on a machine that has it"
    )]
    Isa { isa: &'static str, missing: String },
    #[error("cannot compile {path}: {message}")]
    Compile { path: String, message: String },
}

/// A host-side mistake: unknown handle, data of the wrong type or size.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HostError {
    #[error("unknown {what} '{name}'{known}")]
    Unknown { what: &'static str, name: String, known: String },
    #[error("{0}")]
    Data(String),
    #[error("'{name}' is a {kind}; it cannot be {action}")]
    Direction { name: String, kind: &'static str, action: &'static str },
    /// A replica index past the replication factor.
    #[error("there is no replica {replica} (the replication factor is {replicas})")]
    NoReplica { replica: u32, replicas: u32 },
}

impl HostError {
    pub(crate) fn unknown<'a>(
        what: &'static str,
        name: &str,
        known: impl Iterator<Item = &'a str>,
    ) -> HostError {
        let known: Vec<&str> = known.collect();
        let known = if known.is_empty() { String::new() } else { format!(" (known: {})", known.join(", ")) };
        HostError::Unknown { what, name: name.to_string(), known }
    }
}

/// Where in the control program a run-time error happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepPath {
    /// `program 'main'` or `function 'f'`.
    pub program: String,
    /// Step indices from the outermost sequence inwards, e.g. `2.0.1`.
    pub indices: Vec<usize>,
    /// What the step is: `execute 'cs'`, `copy 3`, …
    pub what: String,
}

impl std::fmt::Display for StepPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let idx: Vec<String> = self.indices.iter().map(|i| i.to_string()).collect();
        write!(f, "{}, step {} ({})", self.program, idx.join("."), self.what)
    }
}

/// A vertex that failed: what and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub tile: u32,
    pub vertex_type: String,
    pub vertex_id: u32,
    pub compute_set: String,
    pub status: u32,
    pub trap_addr: u64,
    /// Codelet source file and line, when the code carries line info.
    pub source: Option<(String, u32)>,
    /// The worker, for a `MultiVertex`.
    pub worker: Option<u32>,
}

/// A run-time error. The device state is unspecified afterwards.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RunError {
    #[error("{}", render_fault(.fault, .step))]
    Vertex { fault: Box<Fault>, step: StepPath },
    #[error("the run exceeded --max-cycles {limit} at {step} ({what} so far: {used})")]
    MaxCycles { limit: u64, used: u64, what: &'static str, step: StepPath },
    #[error("the run exceeded --timeout {} s at {step}", *.millis as f64 / 1000.0)]
    Timeout { millis: u64, step: StepPath },
    #[error("the run was interrupted at {step}")]
    Interrupted { step: StepPath },
    #[error("stream '{stream}' is not connected to a host buffer (at {step})")]
    Unconnected { stream: String, step: StepPath },
    #[error("stream '{stream}': {message} (at {step})")]
    Stream { stream: String, message: String, step: StepPath },
    #[error("{0}")]
    Program(String),
    /// A meeting of the replicas (`what`: `collective 'LABEL'`, or a sync
    /// of all replicas) that could not complete because another replica
    /// stopped or stands at another step.
    #[error("{what} failed: {message} (at {step})")]
    Meeting { what: String, message: String, step: String },
    /// What stopped replica `replica` of a replicated run.
    #[error("replica {replica}: {error}")]
    Replica { replica: u32, error: Box<RunError> },
    #[error(transparent)]
    Host(#[from] HostError),
}

fn render_fault(f: &Fault, step: &StepPath) -> String {
    let mut s = format!(
        "vertex {} (id {}) on tile {} in compute set '{}' failed: {}",
        f.vertex_type,
        f.vertex_id,
        f.tile,
        f.compute_set,
        linker::abi::describe_status(f.status)
    );
    if let Some(w) = f.worker {
        s += &format!(" (worker {w})");
    }
    if matches!(f.status, linker::abi::STATUS_OUT_OF_BOUNDS | linker::abi::STATUS_MISALIGNED) {
        s += &format!(" at tile address {:#x}", f.trap_addr);
    }
    if f.status == linker::abi::STATUS_INDEX {
        s += &format!(" (index {})", f.trap_addr as u32 as i32);
    }
    if let Some((file, line)) = &f.source {
        s += &format!(", at {file}:{line}");
    }
    s += &format!("; at {step}");
    s
}

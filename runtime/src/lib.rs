//! The runtime: the last stage of the pipeline. It loads a linked image
//! (`prog.exe`, written by `poplar-compile`), puts it on a device and runs
//! its control programs for a host program.
//!
//! - [`loader`] takes an image validated by `linker::valid` (a
//!   [`linker::valid::ValidImage`]) and maps its code segment executable,
//!   resolving an allowlist of libcalls. The runtime depends on no compiler:
//!   `poplar-run` injects one for `.pir` inputs.
//! - [`exec`] is the execution core of both devices: tile memories, the
//!   bulk-synchronous compute / exchange phases on a fixed pool of host
//!   threads, and the interpreter of the control program. `cpu` runs the
//!   plain code; `sim` (the IPU Model) runs the counting code and models
//!   cycles with [`cost`], recording a [`profile`].
//! - [`engine`] is the host API ([`Engine`]): handles, streams, remote
//!   buffers, programs by name; [`data`] and [`format`] convert host data and
//!   print tensors; [`trace`] writes the `sim` timeline as a Chrome trace.
//! - [`cli`] is `poplar-run`'s command line, as a library function so tests
//!   drive the binary's own code path.
//!
//! Only the loader's callers and the binary touch the file system; nothing
//! here writes to stdout or stderr except the binary.

// Unsafe code is confined to the modules that allow it by name.
#![deny(unsafe_code)]

pub mod blocks;
pub mod cli;
pub mod collective;
/// The cost model the `sim` device applies (shared with popc).
pub use linker::cost;
pub mod data;
pub mod engine;
pub mod error;
pub mod exec;
pub mod format;
pub mod hardware;
pub mod hostfns;
pub mod loader;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod options;
pub mod profile;
pub mod replicas;
pub mod totals;
pub mod trace;

/// The image format, for hosts that build or inspect images.
pub use linker;

pub use engine::{DataInfo, Element, Engine, Named};
pub use error::{Fault, HostError, LoadError, RunError, StepPath};
pub use exec::{DeviceKind, HostStream, Interrupter};
pub use loader::{load, load_image, load_valid, Loaded};
pub use options::{EngineOptions, LogLevel};
pub use totals::Totals;

//! The linker: owner of both file formats and of the codelet ABI.
//!
//! Its place in the pipeline is between the compilers and the runtime:
//! `popc` writes codelet objects (`.gp`, [`gp`]), `poplar-compile` hands the
//! per-tile programs it lowered to [`link`], which joins them with the
//! codelet code into one executable image (`prog.exe`, [`image`]), and the
//! runtime's loader reads that image back. Both formats sit behind the same
//! checked header ([`container`]): a reader validates magic, version, target,
//! length and checksum before it decodes anything, and the decoded structures
//! are validated again before use, so a corrupt or foreign file is an error,
//! never a crash.
//!
//! [`abi`] fixes what generated codelet code and the runtime agree on: the
//! tile context passed to every `compute`, the host-function table and the
//! status codes. [`cost`] is the cost model both popc's counting code and
//! the `sim` device use.
//!
//! The linker does no file-system I/O: it takes and returns bytes.

// Unsafe code is confined to the modules that allow it by name.
#![deny(unsafe_code)]

pub mod abi;
pub mod bytes;
pub mod container;
pub mod cost;
pub mod gp;
pub mod host;
pub mod image;
pub mod isa;
pub mod link;
pub mod links;
pub mod printf;
pub mod profile;
pub mod quarter;
pub mod valid;

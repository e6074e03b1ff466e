//! The graph compiler: a checked PIR graph plus codelet objects in, a linked
//! executable image (`prog.exe`) out.
//!
//! Its place in the pipeline is between the front ends (`ir` for PIR, `popc`
//! for codelet C++) and the runtime. The passes run in this order, each
//! taking structs and returning a side table beside the IR (never writing
//! into it):
//!
//! 1. [`resolve::resolve_vertices`]: every vertex against its codelet's
//!    metadata (type name, fields, directions, element types, shapes).
//! 2. [`mapping::map_tiles`]: every tensor element to a tile, as interval
//!    lists, and every vertex to a tile.
//! 3. [`exchange::schedule_exchange`]: per compute set, which edges are
//!    passed by address and which go through a buffer filled by exchange;
//!    conflict checks; tensor copies.
//! 4. [`layout::layout_memory`]: tile addresses of everything, memory per
//!    tile by category, the out-of-memory check.
//! 5. [`lower::lower`] (`lower_tile` per tile, in parallel, then
//!    `lower_programs`): tile images, byte-level exchange descriptors and
//!    the control program.
//! 6. `linker::link::link`: the shared code segment and the final
//!    [`linker::image::Image`].
//!
//! Every stage can be dumped as stable text ([`dump`]) and the whole
//! compilation summarised as Poplar's graph profile ([`report`]). Only
//! [`driver`] (reading the `.pir`, its codelets and compiling `.cpp`
//! codelets through `popc`'s library) and [`cli`] (writing the outputs)
//! touch the file system. Failures come back
//! as a [`CompileError`]; only [`cli`], the command the binary
//! `poplar-compile` is a thin shell around ([`cli::run_cli`]), renders them
//! with the program's name.

#![forbid(unsafe_code)]

pub mod cli;
pub mod driver;
pub mod dump;
pub mod error;
pub mod exchange;
pub mod ids;
pub mod layout;
pub mod lower;
pub mod mapping;
pub mod ops;
pub mod options;
pub mod pipeline;
pub mod report;
pub mod resolve;

pub use cli::run_cli;
pub use driver::{compile_for_run, compile_for_run_profiled, compile_path};
pub use error::{CompileError, Stage, StageError, Warning};
pub use options::{DumpStage, Options};
pub use pipeline::{compile, Codelets, Compiled, Library};

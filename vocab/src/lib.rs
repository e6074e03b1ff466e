//! The words every crate of the toolchain shares, defined once.
//!
//! The graph IR (`ir`), the formats and ABI (`linker`), the codelet
//! compiler (`popc`), the graph compiler and the runtime all speak of the
//! same element types and the same element values: what `half` is called
//! in PIR, in C++ and in a vertex type name, how many bytes an
//! `unsigned short` takes, which integers fit a `char`, and how a value
//! becomes the little-endian bytes of tile memory and back. `ir` and
//! `linker` share no crate but this one and `spelling`, so the vocabulary
//! is a leaf crate of its own below both rather than a module of either: a
//! module of `linker` would make the graph IR depend on the file formats,
//! and one of `ir` would put the PIR front end under the runtime.
//!
//! So are the IPU-Links of a target (`ipuLinkTopology` and its
//! siblings): the IR's target, the image's and the runtime's exchange
//! cost read the same rules.
//!
//! Vertex type names are shared words too: [`VertexName`] parses a name as
//! a user or Poplar writes it and prints Poplar's canonical spelling.
//!
//! It holds data and pure functions only: no I/O, no errors of any tool
//! (each tool words its own messages, from the ranges given here).

#![forbid(unsafe_code)]

mod collective;
mod elem;
mod links;
mod print_style;
mod value;
mod vertex_name;

pub use collective::{CollectiveKind, CollectiveOp, CommGroup, MAX_REPLICAS};
pub use elem::ElemType;
pub use links::{IpuLinks, LinkConfiguration, LinkTopology, SyncConfiguration, FIXED_WINDOW_IPUS};
pub use print_style::PrintStyle;
pub use value::{decode, encode, encode_vec, Value};
pub use vertex_name::{TemplateArg, VertexName};

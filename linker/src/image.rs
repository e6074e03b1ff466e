//! The executable image (`prog.exe`): everything the runtime needs to run a
//! compiled graph, and nothing it must recompute.
//!
//! An image holds the target, one shared code segment (both code variants of
//! every vertex type used, see [`VertexCode`]), one [`TileImage`] per tile
//! (its memory size, initial contents and vertex instances), the compute sets
//! with their exchange descriptors, the control programs, and the host
//! handles, streams and remote buffers with the tile regions they cover.
//!
//! The control program is one tree of [`Step`]s shared by all tiles: the
//! tiles run in lock step (bulk-synchronous), so each step carries the
//! per-tile work it implies (vertex lists, transfers) rather than every tile
//! carrying a copy of the control flow.
//!
//! [`Image::validate`] ([`crate::valid`]) checks every rule the runtime
//! relies on and returns a [`ValidImage`], the only form the loader takes,
//! so the runtime may then index without fallible lookups.

use serde::{Deserialize, Serialize};

use crate::container::{self, FormatError, Kind};
use crate::gp::{ElemType, VertexBase};
use crate::valid::ValidImage;

mod encode;

/// The machine the image was compiled for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// Preset name (`mk1`, `mk2`, `bow`, `cpu`).
    pub name: String,
    pub ipus: u32,
    pub tiles_per_ipu: u32,
    pub bytes_per_tile: u64,
    pub workers: u32,
    pub clock_mhz: f64,
    pub exchange_bytes_per_cycle: u32,
    /// Cycles of one internal sync (0: no sync delay modelled).
    pub sync_cycles: u32,
    /// Copies of the graph the runtime runs side by side (the replication
    /// factor); every other figure, and every tile of the image, is one
    /// replica's.
    pub replicas: u32,
    /// The IPU-Links between one replica's IPUs: which IPUs a transfer may
    /// join (checked by the validator) and their bandwidth (the runtime's
    /// exchange cost).
    pub links: vocab::IpuLinks,
}

impl Target {
    pub fn num_tiles(&self) -> u32 {
        self.ipus * self.tiles_per_ipu
    }
}

/// The whole linked program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Image {
    pub target: Target,
    /// The shared code segment and the relocations the loader resolves.
    #[serde(with = "crate::bytes")]
    pub code: Vec<u8>,
    pub relocs: Vec<CodeReloc>,
    /// Vertex types used by the graph, with their entry points in `code`.
    pub vertex_types: Vec<VertexCode>,
    /// One per tile, indexed by tile number.
    pub tiles: Vec<TileImage>,
    pub compute_sets: Vec<ComputeSet>,
    /// Tensor-to-tensor copies, referenced by [`Step::Copy`].
    pub copies: Vec<Exchange>,
    /// Entry points, in PIR order (program 0 is the default).
    pub programs: Vec<Program>,
    /// Sub-programs, referenced by [`Step::Call`].
    pub functions: Vec<Program>,
    pub handles: Vec<Handle>,
    pub streams: Vec<Stream>,
    pub remote_buffers: Vec<RemoteBuffer>,
    /// Tensors whose every element is its replica's index (Poplar's
    /// `addReplicationIndexConstant`), written when a replica is loaded.
    pub replica_index: Vec<ReplicaIndex>,
    /// The highest ISA level of its code (the objects it was linked
    /// from): written in the header, not the payload, and read back from it.
    #[serde(skip)]
    pub isa: crate::isa::Level,
}

/// A relocation in the shared code segment: the 8 bytes at `offset` become
/// the address of `symbol` plus `addend`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeReloc {
    pub offset: u32,
    pub symbol: String,
    pub addend: i64,
}

/// A vertex type's code in the shared segment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VertexCode {
    pub name: String,
    pub base: VertexBase,
    /// Offset and length of the plain variant in the code segment.
    pub plain: (u32, u32),
    /// Offset and length of the counting variant.
    pub counting: (u32, u32),
    pub returns_bool: bool,
    /// Codelet source file, for error reports.
    pub source: String,
    /// (offset within the plain variant, source line), sorted; empty without `-g`.
    pub plain_lines: Vec<(u32, u32)>,
    /// The same for the counting variant.
    pub counting_lines: Vec<(u32, u32)>,
    /// Host stack bytes one call of either variant needs for its locals
    /// (the `.gp`'s `stack_size`): worker threads are sized from the largest.
    pub stack_size: u32,
    /// Tile address of its object's static storage (`gp::Statics`), the
    /// same on every tile; the runtime passes it in `TileCtx::statics`.
    pub statics: u32,
}

/// One tile's memory and vertices.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TileImage {
    /// Bytes of tile memory the program uses (at most `bytes_per_tile`);
    /// the runtime allocates this many, zeroed, then writes `init`.
    pub mem_size: u32,
    /// Initial contents: constants, initialised variables, vertex states,
    /// vector-list descriptors.
    pub init: Vec<Segment>,
    /// Vertex instances on this tile; compute sets refer to ranges of it.
    pub vertices: Vec<VertexInstance>,
}

/// Bytes to place at a tile offset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    pub offset: u32,
    #[serde(with = "crate::bytes")]
    pub bytes: Vec<u8>,
}

/// One vertex on a tile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VertexInstance {
    /// Index into [`Image::vertex_types`].
    pub vertex_type: u32,
    /// Tile address of the vertex state.
    pub state: u32,
    /// The vertex's number in the graph (PIR order), for error reports.
    pub id: u32,
    /// `cycles N` from the PIR: the simulator uses it instead of counting.
    pub cycles: Option<u64>,
}

/// A compute set: the vertices each tile runs, and the exchange around them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ComputeSet {
    pub name: String,
    /// Tiles with work, ascending, each with a range of its `vertices`.
    pub tiles: Vec<TileWork>,
    /// Before compute: remote and rearranged edge data into receive buffers.
    pub exchange_in: Exchange,
    /// After compute: output buffers back to the tensors they stand for.
    pub exchange_out: Exchange,
    /// `exchange_in` may run tile by tile, each tile's incoming transfers
    /// just before its vertices, while other tiles compute: the compiler's
    /// operation library made the set and its vertices (their code writes
    /// only through their output edges), and no transfer reads bytes an
    /// output edge covers. The validator checks only that every transfer
    /// goes to a tile of `tiles`; the rest is the compiler's word, as the
    /// code bytes are (the trust model).
    pub in_by_tile: bool,
}

/// The vertices one tile runs in a compute set: `tiles[tile].vertices[start..end]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileWork {
    pub tile: u32,
    pub start: u32,
    pub end: u32,
}

/// A set of transfers that happen together in one exchange phase, sorted by
/// destination tile then offset. No destination byte is written twice and no
/// transfer reads bytes another transfer of the same phase writes, so the
/// transfers may run in any order or in parallel.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    pub transfers: Vec<Transfer>,
}

/// Copy `bytes` bytes from one tile's memory to another's (or the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transfer {
    pub src_tile: u32,
    pub src_offset: u32,
    pub dst_tile: u32,
    pub dst_offset: u32,
    pub bytes: u32,
}

/// A contiguous run of elements in one tile's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    pub tile: u32,
    pub offset: u32,
    pub bytes: u32,
}

/// A scalar in tile memory (a branch predicate or switch selector). Its
/// value is broadcast to all tiles before the branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScalarRef {
    pub tile: u32,
    pub offset: u32,
    pub elem: ElemType,
}

/// A named sequence of steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Program {
    pub name: String,
    pub body: Vec<Step>,
}

/// One step of the control program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Step {
    /// Run a compute set (exchange in, compute, exchange out).
    Execute(u32),
    /// A tensor copy: index into [`Image::copies`].
    Copy(u32),
    /// Host to device: the next element block of a stream into these regions
    /// (row-major order of the stream's shape).
    StreamIn {
        stream: u32,
        regions: Vec<Region>,
    },
    /// Device to host.
    StreamOut {
        stream: u32,
        regions: Vec<Region>,
    },
    /// Remote buffer repeat into tile memory.
    RemoteRead {
        buffer: u32,
        repeat: u32,
        regions: Vec<Region>,
    },
    /// Tile memory into a remote buffer repeat.
    RemoteWrite {
        buffer: u32,
        repeat: u32,
        regions: Vec<Region>,
    },
    /// Print a tensor as docs/pir.md specifies (`label: {…}`).
    Print {
        label: String,
        style: vocab::PrintStyle,
        elem: ElemType,
        shape: Vec<u64>,
        regions: Vec<Region>,
    },
    Repeat {
        count: u64,
        body: Vec<Step>,
    },
    /// Run `cond`, then while `pred` is non-zero (with `until`: zero) run
    /// `body` and `cond` again.
    While {
        cond: Vec<Step>,
        pred: ScalarRef,
        until: bool,
        body: Vec<Step>,
    },
    If {
        pred: ScalarRef,
        then: Vec<Step>,
        otherwise: Vec<Step>,
    },
    Switch {
        selector: ScalarRef,
        cases: Vec<(i64, Vec<Step>)>,
        default: Vec<Step>,
    },
    /// Run a function: index into [`Image::functions`].
    Call(u32),
    /// An internal sync.
    Sync,
    /// `program::Block`: `body`, which the lightweight profiler may record
    /// as a block of cycles named `name` (the engine's
    /// `profiler.blocks.filter` chooses which).
    Block {
        name: String,
        body: Vec<Step>,
    },
    /// A cross-replica collective: each replica's `input` (its elements in
    /// row-major order), combined over the replicas of each of `group`'s
    /// groups as `kind` says (reducing with `op`), lands in its `output`.
    Collective(Box<Collective>),
}

/// The operands of [`Step::Collective`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Collective {
    /// The PIR statement's output name and collective (`g.all_reduce`).
    pub label: String,
    pub kind: vocab::CollectiveKind,
    /// The operator of a reducing kind; `None` for the others.
    pub op: Option<vocab::CollectiveOp>,
    pub group: vocab::CommGroup,
    pub elem: ElemType,
    pub input: Vec<Region>,
    pub output: Vec<Region>,
}

impl Collective {
    /// Elements of one replica's input.
    pub fn input_elements(&self) -> u64 {
        self.input.iter().map(|r| u64::from(r.bytes)).sum::<u64>() / u64::from(self.elem.size().max(1))
    }
}

impl Step {
    /// The nested step lists, in execution order of their first run
    /// (`cond` before `body`, `then` before `otherwise`, cases before the
    /// default); empty for a leaf step.
    pub fn bodies(&self) -> Vec<&[Step]> {
        match self {
            Step::Repeat { body, .. } | Step::Block { body, .. } => vec![body],
            Step::While { cond, body, .. } => vec![cond, body],
            Step::If { then, otherwise, .. } => vec![then, otherwise],
            Step::Switch { cases, default, .. } => {
                cases.iter().map(|(_, b)| b.as_slice()).chain([default.as_slice()]).collect()
            }
            _ => Vec::new(),
        }
    }
}

/// A tensor set to the replica's index at load time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplicaIndex {
    pub elem: ElemType,
    pub regions: Vec<Region>,
}

/// A host handle (`host_write` / `host_read`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Handle {
    pub name: String,
    /// True for `host_write` (host to device).
    pub to_device: bool,
    pub elem: ElemType,
    pub shape: Vec<u64>,
    /// The tensor's elements in row-major order.
    pub regions: Vec<Region>,
}

/// A host stream; each copy moves one block of `shape`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stream {
    pub name: String,
    pub to_device: bool,
    pub elem: ElemType,
    pub shape: Vec<u64>,
}

/// A remote buffer: `repeats` blocks of `shape`, held by the host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RemoteBuffer {
    pub name: String,
    pub elem: ElemType,
    pub shape: Vec<u64>,
    pub repeats: u32,
}

/// Number of elements of a shape (1 for rank 0), saturating.
pub fn element_count(shape: &[u64]) -> u64 {
    shape.iter().fold(1u64, |a, &d| a.saturating_mul(d))
}

impl Image {
    /// Serialises the image; the header names its ISA level (`isa`). The
    /// payload is encoded over rayon's threads, with the bytes of one
    /// serial encoding ([`encode`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        container::seal_with(Kind::Image, &self.isa.target(), |out| encode::encode(self, out))
    }

    /// The image's identity in both profiles (`imageHash`): the
    /// [`container::content_hash`] of [`Image::to_bytes`], which are the
    /// bytes of its `prog.exe`, so the graph profile `poplar-compile` writes
    /// and the execution profile of a run of that file carry the same hash.
    pub fn content_hash(&self) -> String {
        container::content_hash(&self.to_bytes())
    }

    /// Reads an image produced for this machine and validates it completely
    /// ([`crate::valid`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<ValidImage, FormatError> {
        let (target, mut image): (String, Image) =
            container::open(Kind::Image, bytes, crate::isa::runs_here)?;
        image.isa = crate::isa::Level::of_target(&target).unwrap_or_default();
        image.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Image {
        Image {
            target: Target {
                name: "mk2".into(),
                ipus: 1,
                tiles_per_ipu: 2,
                bytes_per_tile: 1024,
                workers: 6,
                clock_mhz: 1330.0,
                exchange_bytes_per_cycle: 4,
                sync_cycles: 100,
                replicas: 1,
                links: Default::default(),
            },
            code: vec![0xc3; 16],
            relocs: vec![],
            vertex_types: vec![],
            tiles: vec![TileImage { mem_size: 16, ..Default::default() }, TileImage::default()],
            compute_sets: vec![],
            copies: vec![Exchange {
                transfers: vec![Transfer {
                    src_tile: 0,
                    src_offset: 0,
                    dst_tile: 0,
                    dst_offset: 8,
                    bytes: 8,
                }],
            }],
            programs: vec![Program { name: "main".into(), body: vec![Step::Copy(0)] }],
            functions: vec![],
            handles: vec![],
            streams: vec![],
            remote_buffers: vec![],
            replica_index: vec![],
            isa: Default::default(),
        }
    }

    #[test]
    fn valid_image_round_trips() {
        let img = tiny();
        assert_eq!(Image::from_bytes(&img.to_bytes()).unwrap().into_inner(), img);
    }

    /// `imageHash` is the hash of the `prog.exe` bytes, read back or not,
    /// and another image has another.
    #[test]
    fn content_hash_is_the_files() {
        let img = tiny();
        let bytes = img.to_bytes();
        assert_eq!(img.content_hash(), container::content_hash(&bytes));
        assert_eq!(Image::from_bytes(&bytes).unwrap().content_hash(), img.content_hash());
        let mut other = tiny();
        other.copies[0].transfers[0].dst_offset = 0;
        assert_ne!(other.content_hash(), img.content_hash());
        // FNV-1a's published test vectors.
        assert_eq!(container::content_hash(b""), "cbf29ce484222325");
        assert_eq!(container::content_hash(b"a"), "af63dc4c8601ec8c");
    }

    #[test]
    fn out_of_range_transfer_is_rejected() {
        let mut img = tiny();
        img.copies[0].transfers[0].bytes = 9;
        let err = Image::from_bytes(&img.to_bytes()).unwrap_err();
        assert!(err.to_string().contains("outside tile 0"), "{err}");
        let mut img = tiny();
        img.programs[0].body.push(Step::Execute(3));
        assert!(Image::from_bytes(&img.to_bytes()).is_err());
    }
}

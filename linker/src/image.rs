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
//! [`Image::validate`] checks every index, offset and length against the
//! target and tile sizes; the loader calls it before anything runs, so the
//! runtime may then index without fallible lookups.

use serde::{Deserialize, Serialize};

use crate::container::{self, FormatError, Kind};
use crate::gp::{ElemType, VertexBase};

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
pub struct Scalar {
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
        elem: ElemType,
        shape: Vec<u64>,
        regions: Vec<Region>,
    },
    Repeat {
        count: u64,
        body: Vec<Step>,
    },
    /// Run `cond`, then while `pred` is non-zero run `body` and `cond` again.
    While {
        cond: Vec<Step>,
        pred: Scalar,
        body: Vec<Step>,
    },
    If {
        pred: Scalar,
        then: Vec<Step>,
        otherwise: Vec<Step>,
    },
    Switch {
        selector: Scalar,
        cases: Vec<(i64, Vec<Step>)>,
        default: Vec<Step>,
    },
    /// Run a function: index into [`Image::functions`].
    Call(u32),
    /// An internal sync.
    Sync,
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
    /// The header's target string: the code's ISA, like a `.gp`'s.
    pub fn to_bytes(&self) -> Vec<u8> {
        container::seal(Kind::Image, &crate::gp::host_target(), self)
    }

    /// Reads an image produced for this machine and validates it completely.
    pub fn from_bytes(bytes: &[u8]) -> Result<Image, FormatError> {
        let (_, image): (String, Image) =
            container::open(Kind::Image, bytes, Some(&crate::gp::host_target()))?;
        image.validate()?;
        Ok(image)
    }

    /// Checks every index, offset and length; after this, the runtime may
    /// index without checks.
    pub fn validate(&self) -> Result<(), FormatError> {
        Validator { image: self }
            .run()
            .map_err(|detail| FormatError::Corrupt { what: Kind::Image.describe(), detail })
    }
}

struct Validator<'a> {
    image: &'a Image,
}

impl Validator<'_> {
    fn run(&self) -> Result<(), String> {
        let img = self.image;
        let t = &img.target;
        if t.ipus == 0 || t.tiles_per_ipu == 0 || t.workers == 0 || t.exchange_bytes_per_cycle == 0 {
            return Err("target has zero ipus, tiles, workers or exchange bandwidth".into());
        }
        if !(t.clock_mhz.is_finite() && t.clock_mhz > 0.0) {
            return Err("target clock is not a positive number".into());
        }
        if img.tiles.len() as u64 != u64::from(t.ipus) * u64::from(t.tiles_per_ipu) {
            return Err(format!("{} tile images for a target of {} tiles", img.tiles.len(), t.num_tiles()));
        }
        for r in &img.relocs {
            if r.offset as usize + 8 > img.code.len() {
                return Err(format!("relocation at {} outside the code segment", r.offset));
            }
        }
        for vt in &img.vertex_types {
            for (what, (off, len)) in [("plain", vt.plain), ("counting", vt.counting)] {
                if len == 0 || u64::from(off) + u64::from(len) > img.code.len() as u64 {
                    return Err(format!("{what} code of '{}' lies outside the code segment", vt.name));
                }
            }
        }
        for (n, tile) in img.tiles.iter().enumerate() {
            if u64::from(tile.mem_size) > t.bytes_per_tile {
                return Err(format!(
                    "tile {n} uses {} bytes, more than the target's {}",
                    tile.mem_size, t.bytes_per_tile
                ));
            }
            for s in &tile.init {
                self.range(n as u32, s.offset, s.bytes.len() as u64, "initial contents")?;
            }
            for v in &tile.vertices {
                if v.vertex_type as usize >= img.vertex_types.len() {
                    return Err(format!("vertex {} on tile {n} has unknown type {}", v.id, v.vertex_type));
                }
                self.range(n as u32, v.state, 1, "vertex state")?;
            }
        }
        for cs in &img.compute_sets {
            let mut last = None;
            for w in &cs.tiles {
                let tile = self.tile(w.tile)?;
                if last.is_some_and(|l| l >= w.tile) {
                    return Err(format!("compute set '{}' lists tiles out of order", cs.name));
                }
                last = Some(w.tile);
                if w.start > w.end || w.end as usize > tile.vertices.len() {
                    return Err(format!("compute set '{}' names vertices tile {} lacks", cs.name, w.tile));
                }
            }
            self.exchange(&cs.exchange_in)?;
            self.exchange(&cs.exchange_out)?;
        }
        for x in &img.copies {
            self.exchange(x)?;
        }
        for p in img.programs.iter().chain(&img.functions) {
            self.steps(&p.body)?;
        }
        for h in &img.handles {
            self.regions(&h.regions, h.elem, &h.shape, &h.name)?;
        }
        Ok(())
    }

    fn tile(&self, tile: u32) -> Result<&TileImage, String> {
        self.image.tiles.get(tile as usize).ok_or_else(|| format!("tile {tile} does not exist"))
    }

    fn range(&self, tile: u32, offset: u32, bytes: u64, what: &str) -> Result<(), String> {
        let t = self.tile(tile)?;
        if u64::from(offset) + bytes > u64::from(t.mem_size) {
            return Err(format!("{what} at {offset}+{bytes} outside tile {tile}'s {} bytes", t.mem_size));
        }
        Ok(())
    }

    fn exchange(&self, x: &Exchange) -> Result<(), String> {
        for tr in &x.transfers {
            self.range(tr.src_tile, tr.src_offset, tr.bytes.into(), "transfer source")?;
            self.range(tr.dst_tile, tr.dst_offset, tr.bytes.into(), "transfer destination")?;
        }
        // Destinations sorted and disjoint, so parallel copies never race.
        for w in x.transfers.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if (a.dst_tile, a.dst_offset) > (b.dst_tile, b.dst_offset)
                || (a.dst_tile == b.dst_tile
                    && u64::from(a.dst_offset) + u64::from(a.bytes) > u64::from(b.dst_offset))
            {
                return Err("exchange destinations are unsorted or overlap".into());
            }
        }
        Ok(())
    }

    fn regions(&self, regions: &[Region], elem: ElemType, shape: &[u64], what: &str) -> Result<(), String> {
        let mut total = 0u64;
        for r in regions {
            self.range(r.tile, r.offset, r.bytes.into(), what)?;
            total += u64::from(r.bytes);
        }
        let want = element_count(shape).saturating_mul(elem.size().into());
        if total != want {
            return Err(format!("'{what}' covers {total} bytes, its shape needs {want}"));
        }
        Ok(())
    }

    fn scalar(&self, s: &Scalar) -> Result<(), String> {
        self.range(s.tile, s.offset, s.elem.size().into(), "predicate")
    }

    fn steps(&self, steps: &[Step]) -> Result<(), String> {
        let img = self.image;
        for step in steps {
            match step {
                Step::Execute(cs) if *cs as usize >= img.compute_sets.len() => {
                    return Err(format!("unknown compute set {cs}"))
                }
                Step::Copy(c) if *c as usize >= img.copies.len() => return Err(format!("unknown copy {c}")),
                Step::Call(f) if *f as usize >= img.functions.len() => {
                    return Err(format!("unknown function {f}"))
                }
                Step::StreamIn { stream, regions } | Step::StreamOut { stream, regions } => {
                    let s = img.streams.get(*stream as usize).ok_or(format!("unknown stream {stream}"))?;
                    if matches!(step, Step::StreamIn { .. }) != s.to_device {
                        return Err(format!("stream '{}' used in the wrong direction", s.name));
                    }
                    self.regions(regions, s.elem, &s.shape, &s.name)?;
                }
                Step::RemoteRead { buffer, repeat, regions }
                | Step::RemoteWrite { buffer, repeat, regions } => {
                    let b = img
                        .remote_buffers
                        .get(*buffer as usize)
                        .ok_or(format!("unknown remote buffer {buffer}"))?;
                    if *repeat >= b.repeats {
                        return Err(format!("remote buffer '{}' has no repeat {repeat}", b.name));
                    }
                    self.regions(regions, b.elem, &b.shape, &b.name)?;
                }
                Step::Print { label, elem, shape, regions } => self.regions(regions, *elem, shape, label)?,
                Step::Repeat { body, .. } => self.steps(body)?,
                Step::While { cond, pred, body } => {
                    self.steps(cond)?;
                    self.scalar(pred)?;
                    self.steps(body)?;
                }
                Step::If { pred, then, otherwise } => {
                    self.scalar(pred)?;
                    self.steps(then)?;
                    self.steps(otherwise)?;
                }
                Step::Switch { selector, cases, default } => {
                    self.scalar(selector)?;
                    for (_, body) in cases {
                        self.steps(body)?;
                    }
                    self.steps(default)?;
                }
                Step::Execute(_) | Step::Copy(_) | Step::Call(_) | Step::Sync => {}
            }
        }
        Ok(())
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
        }
    }

    #[test]
    fn valid_image_round_trips() {
        let img = tiny();
        assert_eq!(Image::from_bytes(&img.to_bytes()).unwrap(), img);
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

//! libpva's reports (`sdk/include/pva/pva.hpp`): `pva::openReport` over
//! the graph profile autoReport wrote, and `Engine::getReport()` over a
//! loaded engine: its graph profile and the lightweight profiler's block
//! records ([`runtime::blocks`]), taken as a snapshot (`prs_report`).

use std::collections::BTreeMap;
use std::ffi::{c_char, CString};

use linker::profile::{NodeKind, ProgramTree};
use runtime::blocks::{BlockKind, BlockRecord, FLUSH_NAME};
use runtime::DeviceKind;

use crate::engine::Engine;
use crate::status::{guard, ApiError, Result, Status};
use crate::{free, handle, put, put_box, text};

/// `prs_report_info`: what libpva's `Report` answers about the compilation
/// (docs/host-api.md).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ReportInfo {
    pub num_compute_sets: u64,
    pub num_vertices: u64,
    pub num_tiles: u32,
    pub num_ipus: u32,
    pub version: [c_char; 64],
}

impl ReportInfo {
    fn of(g: &report::schema::GraphProfile) -> ReportInfo {
        let mut version = [0 as c_char; 64];
        let text = concat!("poplar-rs ", env!("CARGO_PKG_VERSION"));
        for (d, s) in version.iter_mut().zip(text.bytes()) {
            *d = s as c_char;
        }
        ReportInfo {
            num_compute_sets: g.graph.num_compute_sets,
            num_vertices: g.graph.num_vertices,
            num_tiles: g.target.num_tiles,
            num_ipus: g.target.num_ipus,
            version,
        }
    }
}

/// `pva::Program::Type`, in the header's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ProgramType {
    Empty = 0,
    OnTileExecute,
    Repeat,
    Sequence,
    Switch,
    Copy,
    Call,
    DoExchange,
    GlobalExchange,
    StreamCopyBegin,
    StreamCopyMid,
    StreamCopyEnd,
    Sync,
    Other,
    Block,
}

impl ProgramType {
    /// Every type, in the header's order (`ALL[t as usize] == t`).
    const ALL: [ProgramType; 15] = [
        ProgramType::Empty,
        ProgramType::OnTileExecute,
        ProgramType::Repeat,
        ProgramType::Sequence,
        ProgramType::Switch,
        ProgramType::Copy,
        ProgramType::Call,
        ProgramType::DoExchange,
        ProgramType::GlobalExchange,
        ProgramType::StreamCopyBegin,
        ProgramType::StreamCopyMid,
        ProgramType::StreamCopyEnd,
        ProgramType::Sync,
        ProgramType::Other,
        ProgramType::Block,
    ];

    /// The enumerator's name in `pva::Program::Type`.
    pub fn name(self) -> &'static str {
        match self {
            ProgramType::Empty => "Empty",
            ProgramType::OnTileExecute => "OnTileExecute",
            ProgramType::Repeat => "Repeat",
            ProgramType::Sequence => "Sequence",
            ProgramType::Switch => "Switch",
            ProgramType::Copy => "Copy",
            ProgramType::Call => "Call",
            ProgramType::DoExchange => "DoExchange",
            ProgramType::GlobalExchange => "GlobalExchange",
            ProgramType::StreamCopyBegin => "StreamCopyBegin",
            ProgramType::StreamCopyMid => "StreamCopyMid",
            ProgramType::StreamCopyEnd => "StreamCopyEnd",
            ProgramType::Sync => "Sync",
            ProgramType::Other => "Other",
            ProgramType::Block => "Block",
        }
    }
}

/// `prs_block`: one block, its program's name and type, and what kind of
/// block it is (`PRS_BLOCK_*`: [`BLOCK_COMMON`] and the rest). `name` lives as long as the
/// report.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Block {
    pub cycles_from: u64,
    pub cycles_to: u64,
    pub tile: u32,
    pub kind: u32,
    pub program_type: u32,
    pub name: *const c_char,
}

/// `PRS_BLOCK_COMMON`: a `Block` program or a program the filter matched.
pub const BLOCK_COMMON: u32 = 0;
/// `PRS_BLOCK_STREAM_COPY`: a phase of a host transfer.
pub const BLOCK_STREAM_COPY: u32 = 1;
/// `PRS_BLOCK_FLUSH`: a phase of a flush of the block buffers.
pub const BLOCK_FLUSH: u32 = 2;
/// `PRS_BLOCK_OVERFLOW`: the span whose blocks a full buffer dropped.
pub const BLOCK_OVERFLOW: u32 = 3;

fn block_kind(k: BlockKind) -> u32 {
    match k {
        BlockKind::Common => BLOCK_COMMON,
        BlockKind::StreamCopyBegin | BlockKind::StreamCopyMid | BlockKind::StreamCopyEnd => BLOCK_STREAM_COPY,
        BlockKind::FlushBegin | BlockKind::FlushMid | BlockKind::FlushEnd => BLOCK_FLUSH,
        BlockKind::Overflow => BLOCK_OVERFLOW,
    }
}

impl Block {
    /// The name of the block's program (a stream's for a transfer).
    pub fn name(&self) -> &str {
        // SAFETY: `name` points into a NUL-terminated string the report
        // owns (`Report::_names`), which outlives the borrow of `self`
        // the caller took from that report.
        unsafe { std::ffi::CStr::from_ptr(self.name) }.to_str().unwrap_or_default()
    }

    /// `pva::Program::Type` of the block's program, by its header name.
    pub fn program_type_name(&self) -> &'static str {
        ProgramType::ALL.get(self.program_type as usize).map_or("Other", |t| t.name())
    }
}

/// The type of a common block's program.
fn node_type(kind: &NodeKind) -> ProgramType {
    match kind {
        NodeKind::Sequence => ProgramType::Sequence,
        NodeKind::DoExchange(_) => ProgramType::DoExchange,
        NodeKind::OnTileExecute(_) => ProgramType::OnTileExecute,
        NodeKind::StreamCopy(_) => ProgramType::Copy,
        NodeKind::Repeat(_) | NodeKind::RepeatWhile { .. } => ProgramType::Repeat,
        NodeKind::IfElse => ProgramType::Other,
        NodeKind::Switch => ProgramType::Switch,
        NodeKind::Call(_) => ProgramType::Call,
        NodeKind::Sync => ProgramType::Sync,
        NodeKind::GlobalExchange => ProgramType::GlobalExchange,
        NodeKind::Block => ProgramType::Block,
    }
}

/// A report (`prs_report`): what `Engine::getReport()` saw.
pub struct Report {
    info: ReportInfo,
    tiles: u32,
    /// Per tile, its blocks in order; `Err`: why there are none to read.
    blocks: std::result::Result<BTreeMap<u32, Vec<Block>>, String>,
    /// The names the blocks point to.
    _names: Vec<CString>,
}

// SAFETY: the only pointers a report holds are its blocks' names, which
// point into the heap buffers of `_names`: the report owns them, never
// changes them, and moving the report does not move them.
unsafe impl Send for Report {}
unsafe impl Sync for Report {}

impl ReportInfo {
    /// `poplarVersion().string()`.
    pub fn version(&self) -> String {
        let bytes: Vec<u8> = self.version.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Report {
    /// What the report says of the compilation.
    pub fn info(&self) -> &ReportInfo {
        &self.info
    }

    /// The target's tiles.
    pub fn num_tiles(&self) -> u32 {
        self.tiles
    }

    /// A snapshot of a loaded engine's report.
    pub fn of_engine(e: &Engine) -> Result<Report> {
        let r = e.runtime().ok_or_else(|| {
            ApiError::new(Status::PoplarError, "Engine::getReport: the engine is not loaded on a device")
        })?;
        let image = r.image();
        let graph = r.graph_profile().ok_or_else(|| {
            ApiError::new(Status::PoplarError, "Engine::getReport: the executable has no graph profile")
        })?;
        let tiles = image.tiles.len() as u32;
        let mut names = Vec::new();
        let blocks = match r.device() {
            DeviceKind::Cpu => {
                Err("the cpu device models no cycles, so it records no blocks: the lightweight \
                                    profiler's blocks are recorded on the IPU model (sim)"
                    .to_string())
            }
            DeviceKind::Sim => {
                let tree = r.program_tree();
                let mut by_tile: BTreeMap<u32, Vec<Block>> = BTreeMap::new();
                for b in r.blocks().unwrap_or_default() {
                    by_tile.entry(b.tile).or_default().push(block(tree, &b, &mut names));
                }
                Ok(by_tile)
            }
        };
        Ok(Report { info: ReportInfo::of(&graph), tiles, blocks, _names: names })
    }

    /// Tile `tile`'s blocks.
    pub fn blocks(&self, tile: u32) -> Result<&[Block]> {
        let by_tile = self.blocks.as_ref().map_err(|e| {
            ApiError::new(Status::PoplarError, format!("pva::Report::execution: {e} (see docs/host-api.md)"))
        })?;
        if tile >= self.tiles {
            return Err(ApiError::new(
                Status::IndexError,
                format!("pva::Execution::blocks: tile {tile} is outside the target's {} tiles", self.tiles),
            ));
        }
        Ok(by_tile.get(&tile).map_or(&[], Vec::as_slice))
    }
}

/// A record as the C ABI gives it; its name goes into `names`.
fn block(tree: &ProgramTree, b: &BlockRecord, names: &mut Vec<CString>) -> Block {
    let node = b.program.map(|p| &tree.nodes[p as usize]);
    let phase = |begin, mid, end| match b.kind {
        BlockKind::StreamCopyBegin | BlockKind::FlushBegin => begin,
        BlockKind::StreamCopyMid | BlockKind::FlushMid => mid,
        _ => end,
    };
    let (ty, name) = match b.kind {
        BlockKind::Common => (
            node.map_or(ProgramType::Other, |n| node_type(&n.kind)),
            node.and_then(|n| n.name.clone()).unwrap_or_default(),
        ),
        BlockKind::Overflow => (ProgramType::Other, "Overflow".to_string()),
        BlockKind::FlushBegin | BlockKind::FlushMid | BlockKind::FlushEnd => (
            phase(ProgramType::StreamCopyBegin, ProgramType::StreamCopyMid, ProgramType::StreamCopyEnd),
            FLUSH_NAME.to_string(),
        ),
        _ => (
            phase(ProgramType::StreamCopyBegin, ProgramType::StreamCopyMid, ProgramType::StreamCopyEnd),
            node.and_then(|n| n.name.clone()).unwrap_or_default(),
        ),
    };
    // Names never hold NUL: they are compute set, stream and C string names.
    let name = CString::new(name.replace('\0', "")).unwrap_or_default();
    let p = name.as_ptr();
    names.push(name);
    Block {
        cycles_from: b.from,
        cycles_to: b.to,
        tile: b.tile,
        kind: block_kind(b.kind),
        program_type: ty as u32,
        name: p,
    }
}

/// The graph profile a `pva::openReport` path names: `graph.json` itself,
/// or the `graph.json` autoReport wrote in the folder of `profile.pop`.
fn report_path(path: &str) -> std::path::PathBuf {
    let p = std::path::Path::new(path);
    if p.extension().is_some_and(|e| e == "json") {
        return p.to_path_buf();
    }
    p.parent().unwrap_or(std::path::Path::new(".")).join("graph.json")
}

#[no_mangle]
pub extern "C" fn prs_report_open(path: *const c_char, out: *mut ReportInfo) -> i32 {
    guard(|| {
        let path = text(path, "report path")?;
        let file = report_path(path);
        let json = std::fs::read_to_string(&file).map_err(|e| {
            ApiError::new(
                Status::PoplarError,
                format!(
                    "cannot open the report '{path}': {} ({e}); run the program with the engine option \
                     autoReport.all to write it",
                    file.display()
                ),
            )
        })?;
        let g: report::schema::GraphProfile = serde_json::from_str(&json).map_err(|e| {
            ApiError::new(Status::PoplarError, format!("'{}' is not a graph profile: {e}", file.display()))
        })?;
        put(out, ReportInfo::of(&g))
    })
}

#[no_mangle]
pub extern "C" fn prs_engine_report(e: *const Engine, out: *mut *mut Report) -> i32 {
    guard(|| put_box(out, Report::of_engine(handle(e, "engine")?)?))
}

#[no_mangle]
pub extern "C" fn prs_report_free(r: *mut Report) {
    free(r)
}

#[no_mangle]
pub extern "C" fn prs_report_graph(r: *const Report, out: *mut ReportInfo) -> i32 {
    guard(|| put(out, handle(r, "report")?.info))
}

#[no_mangle]
pub extern "C" fn prs_report_num_blocks(r: *const Report, tile: u32, out: *mut usize) -> i32 {
    guard(|| put(out, handle(r, "report")?.blocks(tile)?.len()))
}

#[no_mangle]
pub extern "C" fn prs_report_block(r: *const Report, tile: u32, index: usize, out: *mut Block) -> i32 {
    guard(|| {
        let blocks = handle(r, "report")?.blocks(tile)?;
        let b = blocks.get(index).ok_or_else(|| {
            ApiError::new(
                Status::IndexError,
                format!("block {index} of tile {tile}: the tile has {} blocks", blocks.len()),
            )
        })?;
        put(out, *b)
    })
}

//! Poplar's lightweight profiler on `sim`: block records, each a span of
//! cycles one tile spent in a program, kept per execution.
//!
//! What is recorded follows the engine options ([`BlockOptions`]):
//! - a `Block` program (`Step::Block`) whose name `profiler.blocks.filter`
//!   matches, and any other program of the graph profile's list whose name
//!   `profiler.programs.filter` matches (an implicit block): a *common*
//!   block on one tile of each IPU its programs use
//!   (`profiler.blocks.tile` of that IPU, 0 by default), or of every IPU
//!   when they use no tile;
//! - with `debug.instrumentExternalExchange`, every host transfer: three
//!   blocks (`StreamCopyBegin`, `Mid`, `End`: the sync before it, the
//!   bytes moving, the link's latency) on every tile it reads or writes.
//!
//! Each tile with records has a buffer of `profiler.blocks.bufferSize`
//! bytes, [`RECORD_BYTES`] per block: a block ending when its tile's buffer
//! is full is dropped, and the dropped span becomes one *overflow* block.
//! With `profiler.blocks.implicitFlush` (the default), each iteration of a
//! loop whose body records blocks (outside loops of its own) ends with a
//! flush: a host transfer of every buffer, charged like any other, whose
//! own three blocks are *block flush* blocks. The host reads the buffers
//! at the end of every run as well, without a transfer.
//!
//! The simulator runs every tile in lock step, so a block's cycles are the
//! machine's clock (cycles since the engine was created) when its program
//! starts (before its sync) and when it ends, the same on every tile that
//! records it. Pure: the interpreter calls in with cycles; nothing here
//! charges any.

use std::collections::BTreeSet;

use linker::image::Image;
use linker::profile::{ExchangeSource, NodeKind, ProgramTree};

/// Bytes a block takes in its tile's buffer: its begin and end, each a
/// 64-bit cycle count and a 32-bit program id.
pub const RECORD_BYTES: u32 = 24;

/// The name of a flush's blocks and of its step in the execution profile.
pub const FLUSH_NAME: &str = "BlockFlush";

/// Poplar's default `profiler.blocks.bufferSize`.
pub const DEFAULT_BUFFER_BYTES: u32 = 1000;

/// The engine options of the lightweight profiler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockOptions {
    /// `profiler.blocks.filter`: the `Block` programs to record (a regular
    /// expression matching a whole name).
    pub blocks_filter: Option<String>,
    /// `profiler.programs.filter`: the other programs to record.
    pub programs_filter: Option<String>,
    /// `debug.instrumentExternalExchange`: record host transfers.
    pub external: bool,
    /// `profiler.blocks.implicitFlush`.
    pub implicit_flush: bool,
    /// `profiler.blocks.tile`: the tile of each IPU that records blocks.
    pub tile: u32,
    /// `profiler.blocks.bufferSize`: bytes of each tile's buffer.
    pub buffer_bytes: u32,
}

impl Default for BlockOptions {
    fn default() -> BlockOptions {
        BlockOptions {
            blocks_filter: None,
            programs_filter: None,
            external: false,
            implicit_flush: true,
            tile: 0,
            buffer_bytes: DEFAULT_BUFFER_BYTES,
        }
    }
}

impl BlockOptions {
    /// Whether anything is recorded at all.
    pub fn any(&self) -> bool {
        self.blocks_filter.is_some() || self.programs_filter.is_some() || self.external
    }
}

/// A filter as the profiler applies it: the whole name must match.
pub fn filter(pattern: &str) -> Result<regex::Regex, regex::Error> {
    regex::Regex::new(&format!("^(?:{pattern})$"))
}

/// What a block measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// A `Block` program or an implicit block around a program.
    Common,
    /// A host transfer's three phases.
    StreamCopyBegin,
    StreamCopyMid,
    StreamCopyEnd,
    /// The three phases of a flush of the buffers.
    FlushBegin,
    FlushMid,
    FlushEnd,
    /// Blocks dropped because the tile's buffer was full.
    Overflow,
}

impl BlockKind {
    /// The name the execution profile gives it.
    pub fn name(self) -> &'static str {
        match self {
            BlockKind::Common => "Common",
            BlockKind::StreamCopyBegin => "StreamCopyBegin",
            BlockKind::StreamCopyMid => "StreamCopyMid",
            BlockKind::StreamCopyEnd => "StreamCopyEnd",
            BlockKind::FlushBegin => "BlockFlushBegin",
            BlockKind::FlushMid => "BlockFlushMid",
            BlockKind::FlushEnd => "BlockFlushEnd",
            BlockKind::Overflow => "Overflow",
        }
    }
}

/// One block: `program` is its node in the graph profile's program list
/// (none for flushes and overflows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRecord {
    pub tile: u32,
    pub kind: BlockKind,
    pub program: Option<u32>,
    pub from: u64,
    pub to: u64,
}

/// A tile's buffer: the blocks it holds, and the span of those it dropped
/// (with the place the first of them began in: [`Blocks::begin`]).
#[derive(Clone, Debug, Default)]
struct Buffer {
    held: Vec<(u64, BlockRecord)>,
    dropped: Option<(u64, u64, u64)>,
}

/// The profiler's plan for an image and its records so far.
#[derive(Debug)]
pub struct Blocks {
    /// Per node: the tiles that record a common block of it (empty: none).
    common: Vec<Vec<u32>>,
    /// Per node: the tiles that record its host transfer's phases.
    stream: Vec<Vec<u32>>,
    /// Per node: whether each iteration of this loop ends with a flush.
    flush: Vec<bool>,
    /// Tiles with a buffer, ascending, and their buffers.
    tiles: Vec<u32>,
    buffers: Vec<Buffer>,
    capacity: usize,
    buffer_bytes: u32,
    external: bool,
    /// Blocks begun so far: a block's number orders it before the blocks
    /// within it and after those before it, even when their cycles tie.
    begun: u64,
    /// The records the host has read, each with its number.
    records: Vec<(u64, BlockRecord)>,
}

impl Blocks {
    /// The plan for `image` under `opts`; `None` when nothing is recorded.
    pub fn new(image: &Image, tree: &ProgramTree, opts: &BlockOptions) -> Result<Option<Blocks>, String> {
        if !opts.any() {
            return Ok(None);
        }
        let t = &image.target;
        let per_ipu = t.tiles_per_ipu.max(1);
        if opts.tile >= per_ipu {
            return Err(format!(
                "engine option 'profiler.blocks.tile' is {}, but an IPU of the target has {per_ipu} tiles",
                opts.tile
            ));
        }
        let compile = |key: &str, p: &Option<String>| {
            p.as_deref()
                .map(filter)
                .transpose()
                .map_err(|e| format!("engine option '{key}' is not a regular expression: {e}"))
        };
        let blocks_filter = compile("profiler.blocks.filter", &opts.blocks_filter)?;
        let programs_filter = compile("profiler.programs.filter", &opts.programs_filter)?;
        let ipus = ipus_by_node(image, tree);
        let all_ipus: Vec<u32> = (0..t.ipus.max(1)).collect();
        let n = tree.nodes.len();
        let mut common = vec![Vec::new(); n];
        let mut stream = vec![Vec::new(); n];
        for (i, node) in tree.nodes.iter().enumerate() {
            let Some(name) = &node.name else { continue };
            let chosen = match node.kind {
                NodeKind::Block => blocks_filter.as_ref().is_some_and(|f| f.is_match(name)),
                _ => programs_filter.as_ref().is_some_and(|f| f.is_match(name)),
            };
            if chosen {
                let on = if ipus[i].is_empty() { &all_ipus } else { &ipus[i] };
                common[i] = on.iter().map(|ipu| ipu * per_ipu + opts.tile).collect();
            }
            if let (true, NodeKind::StreamCopy(x)) = (opts.external, &node.kind) {
                let tiles: BTreeSet<u32> =
                    tree.host_exchanges[*x as usize].regions.iter().map(|r| r.tile).collect();
                stream[i] = tiles.into_iter().collect();
            }
        }
        let mut flush = vec![false; n];
        if opts.implicit_flush {
            let mut memo = vec![None; n];
            for (i, node) in tree.nodes.iter().enumerate() {
                if matches!(node.kind, NodeKind::Repeat(_) | NodeKind::RepeatWhile { .. }) {
                    flush[i] = node.children.iter().any(|&c| records(tree, &common, &stream, c, &mut memo));
                }
            }
        }
        let mut tiles = BTreeSet::new();
        tiles.extend(common.iter().flatten().copied());
        tiles.extend(stream.iter().flatten().copied());
        let tiles: Vec<u32> = tiles.into_iter().collect();
        Ok(Some(Blocks {
            common,
            stream,
            flush,
            buffers: vec![Buffer::default(); tiles.len()],
            tiles,
            capacity: (opts.buffer_bytes / RECORD_BYTES) as usize,
            buffer_bytes: opts.buffer_bytes,
            external: opts.external,
            begun: 0,
            records: Vec::new(),
        }))
    }

    /// Whether node `node` is recorded as a common block.
    pub fn records_block(&self, node: u32) -> bool {
        !self.common[node as usize].is_empty()
    }

    /// Whether each iteration of loop `node` ends with a flush.
    pub fn flushes(&self, node: u32) -> bool {
        self.flush[node as usize]
    }

    /// Whether host transfer `node` records its phases.
    pub fn records_transfer(&self, node: u32) -> bool {
        !self.stream[node as usize].is_empty()
    }

    /// A block begins: its number ([`Blocks::block`] takes it).
    pub fn begin(&mut self) -> u64 {
        self.begun += 1;
        self.begun
    }

    /// Node `node`, begun as number `begun`, ran from cycle `from` to `to`.
    pub fn block(&mut self, node: u32, begun: u64, from: u64, to: u64) {
        for i in 0..self.common[node as usize].len() {
            let tile = self.common[node as usize][i];
            self.put(begun, BlockRecord { tile, kind: BlockKind::Common, program: Some(node), from, to });
        }
    }

    /// Host transfer `node`: its sync from `at[0]` to `at[1]`, its bytes
    /// to `at[2]`, its latency to `at[3]`.
    pub fn transfer(&mut self, node: u32, at: [u64; 4]) {
        let begun = self.begin();
        self.begun += 2;
        for i in 0..self.stream[node as usize].len() {
            let tile = self.stream[node as usize][i];
            let kinds = [BlockKind::StreamCopyBegin, BlockKind::StreamCopyMid, BlockKind::StreamCopyEnd];
            self.phases(begun, tile, Some(node), kinds, at);
        }
    }

    /// The bytes a flush moves: every buffer, whole.
    pub fn flush_bytes(&self) -> u64 {
        u64::from(self.buffer_bytes) * self.tiles.len() as u64
    }

    /// A flush that ran with the phases `at` (as [`Blocks::transfer`]):
    /// the host takes every buffer, then each tile records the flush.
    pub fn flush(&mut self, at: [u64; 4]) {
        self.read_buffers();
        if self.external {
            let begun = self.begin();
            self.begun += 2;
            for i in 0..self.tiles.len() {
                let tile = self.tiles[i];
                let kinds = [BlockKind::FlushBegin, BlockKind::FlushMid, BlockKind::FlushEnd];
                self.phases(begun, tile, None, kinds, at);
            }
        }
    }

    /// The host reads every buffer (at the end of a run).
    pub fn read_buffers(&mut self) {
        for (tile, b) in self.tiles.iter().zip(&mut self.buffers) {
            self.records.append(&mut b.held);
            if let Some((begun, from, to)) = b.dropped.take() {
                let r = BlockRecord { tile: *tile, kind: BlockKind::Overflow, program: None, from, to };
                self.records.push((begun, r));
            }
        }
    }

    /// Every block the host has read, by tile, then in the order they
    /// began (an enclosing block before the blocks within it).
    pub fn by_tile(&self) -> Vec<BlockRecord> {
        let mut v = self.records.clone();
        v.sort_by_key(|&(begun, r)| (r.tile, begun));
        v.into_iter().map(|(_, r)| r).collect()
    }

    /// The blocks as the execution profile lists them ([`Blocks::by_tile`]).
    pub fn to_profile(&self) -> Vec<report::schema::ExecBlock> {
        self.by_tile()
            .into_iter()
            .map(|r| report::schema::ExecBlock {
                tile: r.tile,
                kind: r.kind.name().to_string(),
                program: r.program,
                cycles_from: r.from,
                cycles_to: r.to,
            })
            .collect()
    }

    /// A transfer's three phases on `tile`, numbered `begun` onwards.
    fn phases(&mut self, begun: u64, tile: u32, program: Option<u32>, kinds: [BlockKind; 3], at: [u64; 4]) {
        for (k, kind) in kinds.into_iter().enumerate() {
            self.put(begun + k as u64, BlockRecord { tile, kind, program, from: at[k], to: at[k + 1] });
        }
    }

    fn put(&mut self, begun: u64, r: BlockRecord) {
        let Ok(i) = self.tiles.binary_search(&r.tile) else { return };
        let b = &mut self.buffers[i];
        if b.held.len() < self.capacity && b.dropped.is_none() {
            b.held.push((begun, r));
        } else {
            let (n, f, t) = b.dropped.unwrap_or((begun, r.from, r.to));
            b.dropped = Some((n.min(begun), f.min(r.from), t.max(r.to)));
        }
    }
}

/// Whether running node `n` puts blocks in buffers outside the loops
/// within it (those flush their own).
fn records(
    tree: &ProgramTree,
    common: &[Vec<u32>],
    stream: &[Vec<u32>],
    n: u32,
    memo: &mut Vec<Option<bool>>,
) -> bool {
    let i = n as usize;
    if let Some(r) = memo[i] {
        return r;
    }
    memo[i] = Some(false);
    let node = &tree.nodes[i];
    let mut r = !common[i].is_empty() || !stream[i].is_empty();
    match node.kind {
        NodeKind::Repeat(_) | NodeKind::RepeatWhile { .. } => {}
        NodeKind::Call(f) => r = r || records(tree, common, stream, tree.functions[f as usize], memo),
        _ => {
            for &c in &node.children {
                r = records(tree, common, stream, c, memo) || r;
            }
        }
    }
    memo[i] = Some(r);
    r
}

/// Per node, the IPUs its programs use (tiles that compute, exchange or
/// take part in a host transfer), ascending.
fn ipus_by_node(image: &Image, tree: &ProgramTree) -> Vec<Vec<u32>> {
    let per_ipu = image.target.tiles_per_ipu.max(1);
    let mut memo: Vec<Option<BTreeSet<u32>>> = vec![None; tree.nodes.len()];
    for n in 0..tree.nodes.len() {
        ipus_of(image, tree, per_ipu, n as u32, &mut memo);
    }
    memo.into_iter().map(|s| s.unwrap_or_default().into_iter().collect()).collect()
}

fn ipus_of(
    image: &Image,
    tree: &ProgramTree,
    per_ipu: u32,
    n: u32,
    memo: &mut Vec<Option<BTreeSet<u32>>>,
) -> BTreeSet<u32> {
    if let Some(s) = &memo[n as usize] {
        return s.clone();
    }
    // A function cannot call itself (the validator checks), so this only
    // guards the walk.
    memo[n as usize] = Some(BTreeSet::new());
    let node = &tree.nodes[n as usize];
    let ipu = |t: u32| t / per_ipu;
    let transfers = |x: &linker::image::Exchange| -> BTreeSet<u32> {
        x.transfers.iter().flat_map(|t| [ipu(t.src_tile), ipu(t.dst_tile)]).collect()
    };
    let mut s: BTreeSet<u32> = match &node.kind {
        NodeKind::OnTileExecute(c) => {
            image.compute_sets[*c as usize].tiles.iter().map(|w| ipu(w.tile)).collect()
        }
        NodeKind::DoExchange(x) => match tree.exchanges[*x as usize].1 {
            ExchangeSource::Pre(c) => transfers(&image.compute_sets[c as usize].exchange_in),
            ExchangeSource::Post(c) => transfers(&image.compute_sets[c as usize].exchange_out),
            ExchangeSource::Copy(c) => transfers(&image.copies[c as usize]),
        },
        NodeKind::StreamCopy(x) => {
            tree.host_exchanges[*x as usize].regions.iter().map(|r| ipu(r.tile)).collect()
        }
        NodeKind::Call(f) => ipus_of(image, tree, per_ipu, tree.functions[*f as usize], memo),
        _ => BTreeSet::new(),
    };
    for &c in &node.children {
        s.extend(ipus_of(image, tree, per_ipu, c, memo));
    }
    memo[n as usize] = Some(s.clone());
    s
}

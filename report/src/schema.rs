//! The two profiles' shapes, defined once: the graph profile `poplar-compile
//! --report` writes and the execution profile `poplar-run --profile` writes
//! are these structs serialised (the compiler's `report` module and the
//! runtime's `profile` module build them), and every reader parses them
//! back into the same structs. Field names are the JSON keys (Poplar's,
//! camelCase, with the meanings of the Poplar user guide's "Graph profile"
//! and "Execution profile"). Keys added after the first version default to
//! empty, so older profiles still load; unknown keys are ignored.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The graph profile: the compiled graph, its memory and exchanges.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphProfile {
    /// The content hash of the image compiled from this graph (the
    /// `prog.exe`'s bytes, `linker::container::content_hash`); absent when
    /// the graph does not fit, so no image was made. An execution profile
    /// belongs with this one when it carries the same hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_hash: Option<String>,
    pub target: GraphTarget,
    pub graph: GraphCounts,
    pub vertex_types: VertexTypes,
    pub compute_sets: ComputeSets,
    pub exchanges: Exchanges,
    /// IPU-to-IPU exchanges (the simulator models none: every exchange of
    /// a multi-IPU target is internal).
    #[serde(default)]
    pub external_exchanges: OtherExchanges,
    /// Exchanges with the host: one per `StreamCopy` program.
    #[serde(default)]
    pub host_exchanges: OtherExchanges,
    /// The program tree, flattened; `children` index this list.
    pub programs: Vec<ProgramNode>,
    /// Roots of the user's control programs in `programs`.
    pub control_programs: Vec<u32>,
    #[serde(default)]
    pub function_programs: Vec<u32>,
    pub memory: Memory,
    #[serde(default)]
    pub variables: Vec<Variable>,
    #[serde(default)]
    pub optimization_info: BTreeMap<String, f64>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphTarget {
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    pub bytes_per_tile: u64,
    /// Hz.
    pub clock_frequency: f64,
    #[serde(rename = "numIPUs")]
    pub num_ipus: u32,
    #[serde(rename = "tilesPerIPU")]
    pub tiles_per_ipu: u32,
    pub num_tiles: u32,
    pub num_worker_contexts: u32,
    pub total_memory: u64,
    #[serde(default, rename = "bytesPerIPU")]
    pub bytes_per_ipu: u64,
    /// Per tile of one IPU: its sync delay minus [`Self::min_sync_delay`].
    #[serde(default)]
    pub relative_sync_delay_by_tile: Vec<u64>,
    /// Cycles for the tile nearest the sync controller.
    #[serde(default)]
    pub min_sync_delay: u64,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphCounts {
    pub num_compute_sets: u64,
    pub num_edges: u64,
    pub num_vars: u64,
    pub num_vertices: u64,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VertexTypes {
    pub names: Vec<String>,
    /// Bytes of one vertex's state.
    pub sizes: Vec<u64>,
    /// Bytes of each type's code (in the shared segment).
    #[serde(default)]
    pub code_sizes: Vec<u64>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ComputeSets {
    pub names: Vec<String>,
    /// Per compute set, parallel to `vertex_types`: instances of each type.
    pub vertex_counts: Vec<Vec<u64>>,
    /// Per compute set: indices into [`VertexTypes::names`].
    pub vertex_types: Vec<Vec<u32>>,
    /// The IPU Model's figures for one execution of each compute set
    /// (present when the graph was run on `sim`: `poplar-compile` alone
    /// cannot know a counted codelet's cycles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle_estimates: Option<CycleEstimates>,
}

/// `computeSets.cycleEstimates`: every vertex's cycles, scheduled on the
/// tile's workers as the hardware runs them, for the first execution of
/// each compute set. A compute set the run never executed has empty rows.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CycleEstimates {
    /// `[compute_set][tile]`: cycles in which one of the tile's workers
    /// ran a vertex (a worker issues once every `numWorkerContexts` cycles).
    pub active_cycles_by_tile: Vec<Vec<u64>>,
    /// `[compute_set][vertex_type]` (an index into `vertexTypes`): the
    /// active cycles of that type's vertices, summed over tiles.
    pub active_cycles_by_vertex_type: Vec<Vec<u64>>,
    /// `[compute_set][tile]`: the tile's cycles in the compute set, idle
    /// worker slots included.
    pub cycles_by_tile: Vec<Vec<u64>>,
}

/// IPU-to-IPU or host exchanges; each array is per exchange, then per tile.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OtherExchanges {
    pub names: Vec<String>,
    pub bytes_sent_by_tile: Vec<Vec<u64>>,
    pub bytes_received_by_tile: Vec<Vec<u64>>,
    pub estimated_cycles_by_tile: Vec<Vec<u64>>,
}

/// Internal exchanges; each array is per exchange, then per tile.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Exchanges {
    pub names: Vec<String>,
    pub bytes_sent_by_tile: Vec<Vec<u64>>,
    pub bytes_received_by_tile: Vec<Vec<u64>>,
    pub cycles_by_tile: Vec<Vec<u64>>,
}

/// One node of the program tree.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgramNode {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `DoExchange`: index into [`Exchanges`]; `StreamCopy`: into
    /// `hostExchanges`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<u32>,
    /// `OnTileExecute`: index into [`ComputeSets`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_set: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat_count: Option<u64>,
    /// `Call`: index of the function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Memory {
    pub by_tile: MemoryByTile,
    /// Category name to its bytes: per tile, or one figure for memory
    /// outside the tiles (code).
    pub by_category: BTreeMap<String, Category>,
    #[serde(default)]
    pub by_compute_set: VertexMemory,
    #[serde(default)]
    pub by_vertex_type: VertexMemory,
}

/// Vertex memory by compute set or by vertex type, then by tile.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VertexMemory {
    /// Code in tile memory (none here: vertex code is in the shared segment).
    pub code_bytes: Vec<Vec<u64>>,
    pub copy_ptr_bytes: Vec<Vec<u64>>,
    /// Vector-list descriptors.
    pub descriptor_bytes: Vec<Vec<u64>>,
    /// Edge pointers in the vertex states.
    pub edge_ptr_bytes: Vec<Vec<u64>>,
    /// Alignment padding before the vertices' states and descriptors.
    pub padding_bytes: Vec<Vec<u64>>,
    /// Vertex states other than edge pointers.
    pub vertex_data_bytes: Vec<Vec<u64>>,
    pub total_bytes: Vec<Vec<u64>>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryByTile {
    /// Bytes used, excluding alignment gaps.
    pub total: Vec<u64>,
    pub total_including_gaps: Vec<u64>,
    /// Bytes past `bytesPerTile` (0 when the tile fits).
    pub overflowed: Vec<u64>,
    #[serde(default)]
    pub overflowed_including_gaps: Vec<u64>,
    /// The simulator models no interleaved region: zeros.
    #[serde(default)]
    pub interleaved: Vec<u64>,
    #[serde(default)]
    pub interleaved_including_gaps: Vec<u64>,
    /// Bytes below `bytesPerTile`.
    #[serde(default)]
    pub non_interleaved: Vec<u64>,
    #[serde(default)]
    pub non_interleaved_including_gaps: Vec<u64>,
    #[serde(default)]
    pub vertices: Vec<u64>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Category {
    pub total: CategoryTotal,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// A tile category's bytes by memory region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interleaved: Option<Overlap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub non_interleaved: Option<Overlap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overflowed: Option<Overlap>,
}

/// Bytes by tile of memory some variables share with others that are
/// never live at the same time (`overlapped`), and of the rest.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Overlap {
    pub non_overlapped: Vec<u64>,
    pub overlapped: Vec<u64>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(untagged)]
pub enum CategoryTotal {
    ByTile(Vec<u64>),
    Outside(u64),
}

/// One tensor and the tiles holding it.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Variable {
    pub name: String,
    /// `variable` or `constant`.
    pub kind: String,
    pub bytes: u64,
    /// `[tile, bytes]` pairs, by tile.
    pub tiles: Vec<[u64; 2]>,
    /// Indices into `programs` of the programs during which the variable
    /// is live; absent: always live (every tensor here is: tile memory is
    /// allocated once for the whole run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_in: Option<Vec<u32>>,
}

/// The execution profile of a `sim` run.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionProfile {
    /// The content hash of the image that ran, as in [`GraphProfile::image_hash`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_hash: Option<String>,
    /// The run stopped before its end (`--timeout`, `--max-cycles`, a
    /// failing vertex): every figure covers it up to the last step that
    /// finished.
    #[serde(default)]
    pub partial: bool,
    /// Why a partial run stopped: the run's error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    pub profiler_mode: String,
    pub target: ExecTarget,
    /// Roots of the programs run, in order: indices into the graph
    /// profile's `programs` (its `controlPrograms`).
    pub program_trace: Vec<u32>,
    /// The user programs' names, by index of `controlPrograms`.
    pub programs: Vec<String>,
    pub compute_sets: Vec<String>,
    pub vertex_types: Vec<String>,
    /// Per compute set, per tile: cycles summed over its runs.
    pub compute_set_cycles_by_tile: Vec<Vec<u64>>,
    pub compute_set_cycles: Vec<u64>,
    pub compute_set_runs: Vec<u64>,
    pub cycles_by_vertex_type: Vec<u64>,
    pub instances_by_vertex_type: Vec<u64>,
    /// By vertex id: the cycles of its last run (0: never ran).
    #[serde(default)]
    pub vertex_cycles: Vec<u64>,
    /// Per host exchange (the graph profile's `hostExchanges`), per tile:
    /// cycles summed over its runs.
    #[serde(default)]
    pub host_exchange_cycles: Vec<Vec<u64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<ExecMemory>,
    pub simulation: Simulation,
    /// The lightweight profiler's blocks (when a `profiler.*` option asked
    /// for them), by tile, then in the order they began.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<ExecBlock>,
}

/// One block of the lightweight profiler.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ExecBlock {
    pub tile: u32,
    /// `Common`, `StreamCopyBegin`, `StreamCopyMid`, `StreamCopyEnd`,
    /// `BlockFlushBegin`, `BlockFlushMid`, `BlockFlushEnd` or `Overflow`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Index into the graph profile's `programs` (absent for flushes and
    /// overflows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<u32>,
    pub cycles_from: u64,
    pub cycles_to: u64,
}

/// The image's tile memory as loaded.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecMemory {
    pub bytes_by_tile: Vec<u64>,
    pub total: u64,
    pub max_tile: u64,
    pub bytes_per_tile: u64,
}

/// What a run on a device without a cycle model records.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepsOnlyProfile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_hash: Option<String>,
    /// As in [`ExecutionProfile::partial`].
    #[serde(default)]
    pub partial: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    /// `CPU`, or `NONE` when profiling was off.
    pub profiler_mode: String,
    pub steps_executed: u64,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecTarget {
    pub name: String,
    pub num_tiles: u32,
    pub bytes_per_tile: u64,
    #[serde(rename = "clockMHz")]
    pub clock_mhz: f64,
    pub num_worker_contexts: u32,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Simulation {
    pub cycles: u64,
    pub tile_cycles: TileCycles,
    pub steps: Vec<ExecStep>,
    #[serde(default)]
    pub steps_not_recorded: u64,
    /// Cycles of the tiles' own loop counters and calls, in no step: with
    /// the steps' cycles they add up to `cycles`.
    #[serde(default)]
    pub control_cycles: u64,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TileCycles {
    pub active_compute: u64,
    pub compute: u64,
    pub do_exchange: u64,
    pub stream_copy: u64,
    pub sync: u64,
    #[serde(default)]
    pub global_exchange: u64,
    #[serde(default)]
    pub copy_shared_structure: u64,
}

/// One step of the run: `OnTileExecute`, `DoExchange`, `StreamCopy` or `Sync`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecStep {
    #[serde(rename = "type")]
    pub kind: String,
    /// `Sync`: `Internal` or `External`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_type: Option<String>,
    /// Index into the graph profile's `programs` (absent for `Sync`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default)]
    pub cycles: u64,
    #[serde(default)]
    pub cycles_from: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles_to: Option<u64>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub active_tiles: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile_balance: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_tile_balance: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_set: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_balance: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_data: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_balance: Option<f64>,
    /// `DoExchange`: index into the graph profile's `exchanges` (absent for
    /// a branch's predicate broadcast, which has no exchange program).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<u32>,
    /// `StreamCopy`: index into the graph profile's `hostExchanges`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_exchange: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles_overlapped: Option<u64>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Parses a graph profile; the error names what is wrong and where.
pub fn parse_graph(text: &str) -> Result<GraphProfile, serde_json::Error> {
    serde_json::from_str(text)
}

/// Parses an execution profile.
pub fn parse_execution(text: &str) -> Result<ExecutionProfile, serde_json::Error> {
    serde_json::from_str(text)
}

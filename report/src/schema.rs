//! Typed views of the two profiles: the graph profile `poplar-compile
//! --report` writes and the execution profile `poplar-run --profile` writes.
//! Field names are the JSON keys (Poplar's, camelCase). Keys added after the
//! first version default to empty, so older profiles still load; unknown
//! keys are ignored.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The graph profile: the compiled graph, its memory and exchanges.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphProfile {
    pub target: GraphTarget,
    pub graph: GraphCounts,
    pub vertex_types: VertexTypes,
    pub compute_sets: ComputeSets,
    pub exchanges: Exchanges,
    /// The program tree, flattened; `children` index this list.
    pub programs: Vec<ProgramNode>,
    /// Roots of the user's control programs in `programs`.
    pub control_programs: Vec<u32>,
    #[serde(default)]
    pub function_programs: Vec<u32>,
    pub memory: Memory,
    #[serde(default)]
    pub variables: Vec<Variable>,
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
    /// `DoExchange`: index into [`Exchanges`].
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
    pub vertices: Vec<u64>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Category {
    pub total: CategoryTotal,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
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
}

/// The execution profile of a `sim` run.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionProfile {
    pub profiler_mode: String,
    pub target: ExecTarget,
    pub program_trace: Vec<u32>,
    pub programs: Vec<String>,
    pub compute_sets: Vec<String>,
    pub vertex_types: Vec<String>,
    /// Per compute set, per tile: cycles summed over its runs.
    pub compute_set_cycles_by_tile: Vec<Vec<u64>>,
    pub compute_set_cycles: Vec<u64>,
    pub compute_set_runs: Vec<u64>,
    pub cycles_by_vertex_type: Vec<u64>,
    pub instances_by_vertex_type: Vec<u64>,
    pub simulation: Simulation,
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
}

/// One step of the run: `OnTileExecute`, `DoExchange`, `StreamCopy` or `Sync`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecStep {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub program: Option<u32>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub cycles: u64,
    #[serde(default)]
    pub cycles_from: Option<u64>,
    #[serde(default)]
    pub active_tiles: u32,
    #[serde(default)]
    pub tile_balance: f64,
    #[serde(default)]
    pub compute_set: Option<u32>,
    #[serde(default)]
    pub thread_balance: Option<f64>,
    #[serde(default)]
    pub total_data: Option<u64>,
}

/// Parses a graph profile; the error names what is wrong and where.
pub fn parse_graph(text: &str) -> Result<GraphProfile, serde_json::Error> {
    serde_json::from_str(text)
}

/// Parses an execution profile.
pub fn parse_execution(text: &str) -> Result<ExecutionProfile, serde_json::Error> {
    serde_json::from_str(text)
}

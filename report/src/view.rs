//! The data the page draws, derived from the profiles: per-tile arrays for
//! the memory and exchange charts, per-step rows for the timeline, tables by
//! compute set and vertex type. It is embedded in the page as compact JSON,
//! so it keeps only what the page shows, and drops the largest per-tile
//! matrices (per exchange or compute set, then per tile) past
//! [`MAX_MATRIX_CELLS`] rather than making the page slow to open.

use serde::Serialize;

use crate::schema::{CategoryTotal, ExecutionProfile, GraphProfile};

/// Most cells (rows times tiles) of one per-tile matrix kept for drill-down.
pub const MAX_MATRIX_CELLS: usize = 1_000_000;

/// Most variables listed (largest first); the rest are summed.
pub const MAX_VARIABLES: usize = 20_000;

#[derive(Serialize)]
pub struct View {
    pub title: String,
    pub target: Target,
    pub counts: Counts,
    /// Tile-memory categories, in the profile's order.
    pub categories: Vec<String>,
    /// Per category, per tile.
    pub mem_by_cat: Vec<Vec<u64>>,
    /// Memory outside the tiles (shared code): name, bytes, note.
    pub outside: Vec<(String, u64, String)>,
    /// Per tile, including gaps.
    pub total: Vec<u64>,
    pub overflow: Vec<u64>,
    pub vertices: Vec<u64>,
    pub variables: Vec<Var>,
    pub variables_left_out: usize,
    pub vertex_types: Vec<(String, u64, u64)>,
    /// Name and (type, count) pairs.
    pub compute_sets: Vec<(String, Vec<(u32, u64)>)>,
    pub exchange_names: Vec<String>,
    /// Per tile, summed over exchanges.
    pub sent: Vec<u64>,
    pub received: Vec<u64>,
    /// Per exchange, per tile (empty when too large).
    pub sent_by_exchange: Vec<Vec<u64>>,
    pub received_by_exchange: Vec<Vec<u64>>,
    pub exec: Option<Exec>,
}

#[derive(Serialize)]
pub struct Target {
    pub name: String,
    pub kind: String,
    pub tiles: u32,
    pub ipus: u32,
    pub bytes_per_tile: u64,
    pub clock_mhz: f64,
    pub workers: u32,
}

#[derive(Serialize)]
pub struct Counts {
    pub vertices: u64,
    pub edges: u64,
    pub variables: u64,
    pub compute_sets: u64,
    pub programs: usize,
}

#[derive(Serialize)]
pub struct Var {
    pub name: String,
    pub constant: bool,
    pub bytes: u64,
    /// Flattened `tile, bytes` pairs.
    pub tiles: Vec<u64>,
}

#[derive(Serialize)]
pub struct Exec {
    /// The run stopped before its end: the figures cover it up to there.
    pub partial: bool,
    /// Why it stopped (the run's error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    pub cycles: u64,
    /// Name and cycles summed over tiles, as the profile's `tileCycles`
    /// (compute, exchange, host and sync add up to `cycles` x tiles).
    pub tile_cycles: Vec<(String, u64)>,
    /// Step rows: kind (0 compute, 1 exchange, 2 sync, 3 host), first
    /// cycle, cycles, active tiles, tile balance (per mille), name index.
    pub steps: Vec<[u64; 6]>,
    pub step_names: Vec<String>,
    pub steps_not_recorded: u64,
    /// Compute sets that ran: name, runs, cycles.
    pub compute_sets: Vec<(String, u64, u64)>,
    /// Vertex types that ran: name, instances, cycles.
    pub vertex_types: Vec<(String, u64, u64)>,
    /// Per tile, compute cycles summed over compute sets.
    pub compute_by_tile: Vec<u64>,
    /// Per compute set (index of `compute_sets` in the profile), per tile
    /// (empty when too large).
    pub cs_by_tile: Vec<Vec<u64>>,
    pub cs_names: Vec<String>,
}

fn sum_rows(rows: &[Vec<u64>], tiles: usize) -> Vec<u64> {
    let mut out = vec![0u64; tiles];
    for r in rows {
        for (o, v) in out.iter_mut().zip(r) {
            *o = o.saturating_add(*v);
        }
    }
    out
}

fn small(rows: &[Vec<u64>], tiles: usize) -> Vec<Vec<u64>> {
    if rows.len().saturating_mul(tiles) <= MAX_MATRIX_CELLS {
        rows.to_vec()
    } else {
        Vec::new()
    }
}

impl View {
    pub fn new(title: &str, g: &GraphProfile, e: Option<&ExecutionProfile>) -> View {
        let tiles = g.target.num_tiles as usize;
        let mut categories = Vec::new();
        let mut mem_by_cat = Vec::new();
        let mut outside = Vec::new();
        for (name, c) in &g.memory.by_category {
            match &c.total {
                CategoryTotal::ByTile(v) => {
                    categories.push(name.clone());
                    mem_by_cat.push(v.clone());
                }
                CategoryTotal::Outside(b) => {
                    outside.push((name.clone(), *b, c.note.clone().unwrap_or_default()))
                }
            }
        }
        let mut vars: Vec<&crate::schema::Variable> = g.variables.iter().collect();
        vars.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.name.cmp(&b.name)));
        let left_out = vars.len().saturating_sub(MAX_VARIABLES);
        vars.truncate(MAX_VARIABLES);
        let variables = vars
            .into_iter()
            .map(|v| Var {
                name: v.name.clone(),
                constant: v.kind == "constant",
                bytes: v.bytes,
                tiles: v.tiles.iter().flat_map(|p| p.iter().copied()).collect(),
            })
            .collect();
        let x = &g.exchanges;
        View {
            title: title.to_string(),
            target: Target {
                name: g.target.name.clone(),
                kind: g.target.kind.clone(),
                tiles: g.target.num_tiles,
                ipus: g.target.num_ipus,
                bytes_per_tile: g.target.bytes_per_tile,
                clock_mhz: g.target.clock_frequency / 1e6,
                workers: g.target.num_worker_contexts,
            },
            counts: Counts {
                vertices: g.graph.num_vertices,
                edges: g.graph.num_edges,
                variables: g.graph.num_vars,
                compute_sets: g.graph.num_compute_sets,
                programs: g.control_programs.len(),
            },
            categories,
            mem_by_cat,
            outside,
            total: g.memory.by_tile.total_including_gaps.clone(),
            // Bytes past the tile's end, gaps included (older profiles
            // have only `overflowed`, which counted them).
            overflow: if g.memory.by_tile.overflowed_including_gaps.is_empty() {
                g.memory.by_tile.overflowed.clone()
            } else {
                g.memory.by_tile.overflowed_including_gaps.clone()
            },
            vertices: g.memory.by_tile.vertices.clone(),
            variables,
            variables_left_out: left_out,
            vertex_types: (0..g.vertex_types.names.len())
                .map(|i| {
                    let vt = &g.vertex_types;
                    (
                        vt.names[i].clone(),
                        vt.sizes.get(i).copied().unwrap_or(0),
                        vt.code_sizes.get(i).copied().unwrap_or(0),
                    )
                })
                .collect(),
            compute_sets: (0..g.compute_sets.names.len())
                .map(|i| {
                    let c = &g.compute_sets;
                    let types = c.vertex_types.get(i).cloned().unwrap_or_default();
                    let counts = c.vertex_counts.get(i).cloned().unwrap_or_default();
                    (c.names[i].clone(), types.into_iter().zip(counts).collect())
                })
                .collect(),
            exchange_names: x.names.clone(),
            sent: sum_rows(&x.bytes_sent_by_tile, tiles),
            received: sum_rows(&x.bytes_received_by_tile, tiles),
            sent_by_exchange: small(&x.bytes_sent_by_tile, tiles),
            received_by_exchange: small(&x.bytes_received_by_tile, tiles),
            exec: e.map(|e| Exec::new(e, tiles)),
        }
    }
}

impl Exec {
    fn new(e: &ExecutionProfile, tiles: usize) -> Exec {
        let s = &e.simulation;
        let mut step_names: Vec<String> = Vec::new();
        let mut steps = Vec::with_capacity(s.steps.len());
        for st in &s.steps {
            let kind = match st.kind.as_str() {
                "OnTileExecute" => 0,
                "DoExchange" => 1,
                "Sync" => 2,
                _ => 3,
            };
            // Profiles before sync steps carried cycles have no position for them.
            let Some(from) = st.cycles_from else { continue };
            let name = st.name.clone().unwrap_or_else(|| st.kind.clone());
            let index = match step_names.iter().rposition(|n| *n == name) {
                Some(i) => i,
                None => {
                    step_names.push(name);
                    step_names.len() - 1
                }
            };
            let balance = (st.tile_balance.unwrap_or(0.0) * 1000.0).round().clamp(0.0, 1000.0) as u64;
            steps.push([kind, from, st.cycles, u64::from(st.active_tiles), balance, index as u64]);
        }
        let tc = &s.tile_cycles;
        let mut compute_sets: Vec<(String, u64, u64)> = (0..e.compute_sets.len())
            .filter(|&i| e.compute_set_runs.get(i).copied().unwrap_or(0) > 0)
            .map(|i| (e.compute_sets[i].clone(), e.compute_set_runs[i], e.compute_set_cycles[i]))
            .collect();
        compute_sets.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
        let mut vertex_types: Vec<(String, u64, u64)> = (0..e.vertex_types.len())
            .filter(|&i| e.instances_by_vertex_type.get(i).copied().unwrap_or(0) > 0)
            .map(|i| (e.vertex_types[i].clone(), e.instances_by_vertex_type[i], e.cycles_by_vertex_type[i]))
            .collect();
        vertex_types.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
        Exec {
            partial: e.partial,
            stopped_by: e.stopped_by.clone(),
            cycles: s.cycles,
            tile_cycles: vec![
                ("compute (including idle threads)".into(), tc.compute),
                ("compute (excluding idle threads)".into(), tc.active_compute),
                ("internal exchange".into(), tc.do_exchange),
                ("global exchange".into(), tc.global_exchange),
                ("host exchange".into(), tc.stream_copy),
                ("sync".into(), tc.sync),
            ],
            steps,
            step_names,
            steps_not_recorded: s.steps_not_recorded,
            compute_sets,
            vertex_types,
            compute_by_tile: sum_rows(&e.compute_set_cycles_by_tile, tiles),
            cs_by_tile: small(&e.compute_set_cycles_by_tile, tiles),
            cs_names: e.compute_sets.clone(),
        }
    }
}

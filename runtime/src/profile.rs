//! The execution profile of the `sim` device, shaped like Poplar's
//! (`profilerMode`, `programTrace`, `simulation.{cycles, tileCycles,
//! steps}`, `computeSetCyclesByTile`, cycles by vertex type and by vertex,
//! host exchange cycles), and the text summary in the style of
//! `printProfileSummary`. The profile is `report::schema::ExecutionProfile`,
//! the struct the readers parse; its program and exchange indices are those
//! of the graph profile (both number them with `linker::profile`). The
//! recorder also keeps each compute set's first execution, tile by tile
//! and vertex type by type: the graph profile's `computeSets.cycleEstimates`
//! ([`Recorder::cycle_estimates`]), which only a run can give.
//!
//! Pure: the recorder collects numbers, [`Recorder::to_profile`] and
//! [`summary`] turn them into the profile and text.

use linker::image::{Exchange, Image};
use linker::profile::{NodeKind, ProgramTree};
use report::schema::{
    CycleEstimates, ExecMemory, ExecStep, ExecTarget, ExecutionProfile, GraphProfile, GraphTarget,
    Simulation, TileCycles,
};

use crate::exec::ExchangeInfo;
use crate::totals::Totals;

/// Most steps kept in the profile; later ones are counted, not listed.
pub const MAX_RECORDED_STEPS: usize = 20_000;

/// One step of the simulation.
#[derive(Clone, Debug)]
struct StepRec {
    kind: &'static str,
    /// The step's node in the programs list (none for a sync).
    program: Option<u32>,
    from: u64,
    cycles: u64,
    active_tiles: u32,
    /// Sum over tiles of their cycles (for the tile balance).
    tile_cycles: u64,
    active: u64,
    total_data: u64,
    /// Exchanges: the tiles' bytes sent plus received, summed, and the
    /// largest of one tile (for the data balance).
    tile_data: u64,
    max_tile_data: u64,
    compute_set: Option<u32>,
    /// The name of a step with no program node (a flush of the
    /// lightweight profiler's buffers).
    label: Option<&'static str>,
}

/// A compute set's first execution: each tile's cycles and active
/// cycles, and each vertex type's cycles.
#[derive(Clone, Debug)]
struct FirstRun {
    cycles_by_tile: Vec<u64>,
    active_by_tile: Vec<u64>,
    active_by_type: Vec<u64>,
}

/// Collects what the simulator did.
#[derive(Debug)]
pub struct Recorder {
    pub(crate) program_trace: Vec<u32>,
    steps: Vec<StepRec>,
    dropped_steps: u64,
    num_tiles: usize,
    /// Per compute set: cycles by tile, summed over runs (allocated on first run).
    cs_by_tile: Vec<Vec<u64>>,
    cs_runs: Vec<u64>,
    cs_cycles: Vec<u64>,
    /// Per compute set: its first execution, once it ran.
    cs_first: Vec<Option<FirstRun>>,
    /// Per vertex type: (cycles, instances executed).
    by_type: Vec<(u64, u64)>,
    /// Per vertex id: cycles of its last run.
    by_vertex: Vec<u64>,
    /// Per host exchange, per tile (allocated on first run).
    host_by_tile: Vec<Vec<u64>>,
    /// Cycles of loop counters and calls, in no step.
    pub(crate) control_cycles: u64,
    /// The timeline for `--trace`, when asked for.
    pub(crate) trace: Option<crate::trace::TraceRec>,
}

impl Recorder {
    pub fn new(image: &Image) -> Recorder {
        Recorder {
            program_trace: Vec::new(),
            steps: Vec::new(),
            dropped_steps: 0,
            num_tiles: image.tiles.len(),
            cs_by_tile: vec![Vec::new(); image.compute_sets.len()],
            cs_runs: vec![0; image.compute_sets.len()],
            cs_cycles: vec![0; image.compute_sets.len()],
            cs_first: vec![None; image.compute_sets.len()],
            by_type: vec![(0, 0); image.vertex_types.len()],
            by_vertex: vec![0; image.tiles.iter().map(|t| t.vertices.len()).sum()],
            host_by_tile: Vec::new(),
            control_cycles: 0,
            trace: None,
        }
    }

    fn push(&mut self, s: StepRec) {
        if self.steps.len() < MAX_RECORDED_STEPS {
            self.steps.push(s);
        } else {
            self.dropped_steps += 1;
        }
    }

    pub(crate) fn sync(&mut self, from: u64, cycles: u64) {
        if let Some(t) = &mut self.trace {
            t.sync(from, cycles);
        }
        self.push(StepRec {
            kind: "Sync",
            program: None,
            from,
            cycles,
            active_tiles: self.num_tiles as u32,
            tile_cycles: 0,
            active: 0,
            total_data: 0,
            tile_data: 0,
            max_tile_data: 0,
            compute_set: None,
            label: None,
        });
    }

    /// A host transfer: `node` is its `StreamCopy`; every tile waits for it,
    /// `tiles` take part.
    pub(crate) fn stream_copy(
        &mut self,
        tree: &ProgramTree,
        node: u32,
        from: u64,
        cycles: u64,
        tiles: u32,
        bytes: u64,
    ) {
        let NodeKind::StreamCopy(x) = tree.nodes[node as usize].kind else {
            unreachable!("a host transfer's node is a StreamCopy")
        };
        let host = &tree.host_exchanges[x as usize];
        if let Some(t) = &mut self.trace {
            t.host(&host.name, from, cycles, bytes);
        }
        let by_tile = host.bytes_by_tile();
        if self.host_by_tile.len() < tree.host_exchanges.len() {
            self.host_by_tile.resize(tree.host_exchanges.len(), Vec::new());
        }
        let row = &mut self.host_by_tile[x as usize];
        if row.is_empty() {
            *row = vec![0; self.num_tiles];
        }
        for &(t, _) in &by_tile {
            row[t as usize] = row[t as usize].saturating_add(cycles);
        }
        self.push(StepRec {
            kind: "StreamCopy",
            program: Some(node),
            from,
            cycles,
            active_tiles: tiles,
            tile_cycles: cycles.saturating_mul(u64::from(tiles)),
            active: 0,
            total_data: bytes,
            tile_data: bytes,
            max_tile_data: by_tile.iter().map(|p| p.1).max().unwrap_or(0),
            compute_set: None,
            label: None,
        });
    }

    /// A flush of the lightweight profiler's buffers: a host transfer of
    /// `bytes` from `tiles` tiles, in no program of the list.
    pub(crate) fn block_flush(&mut self, from: u64, cycles: u64, tiles: u32, bytes: u64) {
        if let Some(t) = &mut self.trace {
            t.host(crate::blocks::FLUSH_NAME, from, cycles, bytes);
        }
        self.push(StepRec {
            kind: "StreamCopy",
            program: None,
            from,
            cycles,
            active_tiles: tiles,
            tile_cycles: cycles.saturating_mul(u64::from(tiles)),
            active: 0,
            total_data: bytes,
            tile_data: bytes,
            max_tile_data: bytes / u64::from(tiles.max(1)),
            compute_set: None,
            label: Some(crate::blocks::FLUSH_NAME),
        });
    }

    /// An exchange phase: `node` is its `DoExchange`.
    pub(crate) fn exchange(
        &mut self,
        tree: &ProgramTree,
        node: u32,
        from: u64,
        info: &ExchangeInfo,
        x: &Exchange,
    ) {
        let name = tree.nodes[node as usize].name.as_deref().unwrap_or_default();
        if let Some(t) = &mut self.trace {
            t.exchange(name, from, info.cycles, info.bytes, x);
        }
        self.push(StepRec {
            kind: "DoExchange",
            program: Some(node),
            from,
            cycles: info.cycles,
            active_tiles: info.active_tiles,
            tile_cycles: info.tile_cycles,
            active: 0,
            total_data: info.bytes,
            tile_data: info.tile_data,
            max_tile_data: info.max_tile_data,
            compute_set: None,
            label: None,
        });
    }

    /// A cross-replica collective's link traffic: node `node` (its
    /// `GlobalExchange`), `bytes` sent by each replica over IPU-Links.
    pub(crate) fn global_exchange(&mut self, node: u32, from: u64, cycles: u64, bytes: u64) {
        self.push(StepRec {
            kind: "GlobalExchange",
            program: Some(node),
            from,
            cycles,
            active_tiles: self.num_tiles as u32,
            tile_cycles: cycles.saturating_mul(self.num_tiles as u64),
            active: 0,
            total_data: bytes,
            tile_data: 0,
            max_tile_data: 0,
            compute_set: None,
            label: None,
        });
    }

    /// A branch's or loop test's predicate broadcast (one word to every
    /// tile): an exchange step of the branch's node `node`.
    pub(crate) fn broadcast(&mut self, node: u32, from: u64, cycles: u64, tiles: u32) {
        self.push(StepRec {
            kind: "DoExchange",
            program: Some(node),
            from,
            cycles,
            active_tiles: tiles,
            tile_cycles: cycles.saturating_mul(u64::from(tiles)),
            active: 0,
            total_data: 4 * u64::from(tiles),
            tile_data: 8 * u64::from(tiles),
            max_tile_data: 8,
            compute_set: None,
            label: None,
        });
    }

    /// A compute phase: `node` is its `OnTileExecute`; `vertex_cycles` has
    /// each vertex's (id, type, cycles).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn compute(
        &mut self,
        node: u32,
        cs: u32,
        name: &str,
        from: u64,
        cycles: u64,
        per_tile: &[(u32, u64, u64)],
        vertex_cycles: &[(u32, u32, u64)],
    ) {
        if let Some(t) = &mut self.trace {
            t.compute(name, from, cycles, per_tile);
        }
        let c = cs as usize;
        if self.cs_by_tile[c].is_empty() {
            self.cs_by_tile[c] = vec![0; self.num_tiles];
        }
        let mut tile_cycles = 0;
        let mut active = 0;
        for &(t, cyc, act) in per_tile {
            let at = &mut self.cs_by_tile[c][t as usize];
            *at = at.saturating_add(cyc);
            tile_cycles = cyc.saturating_add(tile_cycles);
            active = act.saturating_add(active);
        }
        if self.cs_first[c].is_none() {
            let mut first = FirstRun {
                cycles_by_tile: vec![0; self.num_tiles],
                active_by_tile: vec![0; self.num_tiles],
                active_by_type: vec![0; self.by_type.len()],
            };
            for &(t, cyc, act) in per_tile {
                first.cycles_by_tile[t as usize] = cyc;
                first.active_by_tile[t as usize] = act;
            }
            for &(_, vt, n) in vertex_cycles {
                let e = &mut first.active_by_type[vt as usize];
                *e = e.saturating_add(n);
            }
            self.cs_first[c] = Some(first);
        }
        self.cs_runs[c] += 1;
        self.cs_cycles[c] = self.cs_cycles[c].saturating_add(cycles);
        for &(id, vt, n) in vertex_cycles {
            let e = &mut self.by_type[vt as usize];
            e.0 = e.0.saturating_add(n);
            e.1 += 1;
            if let Some(v) = self.by_vertex.get_mut(id as usize) {
                *v = n;
            }
        }
        self.push(StepRec {
            kind: "OnTileExecute",
            program: Some(node),
            from,
            cycles,
            active_tiles: per_tile.len() as u32,
            tile_cycles,
            active,
            total_data: 0,
            tile_data: 0,
            max_tile_data: 0,
            compute_set: Some(cs),
            label: None,
        });
    }

    /// The graph profile's `computeSets.cycleEstimates`: each compute
    /// set's first execution (empty rows for one that never ran); none
    /// before a compute set ran.
    pub fn cycle_estimates(&self) -> Option<CycleEstimates> {
        self.cs_first.iter().any(Option::is_some).then(|| self.all_cycle_estimates())
    }

    fn all_cycle_estimates(&self) -> CycleEstimates {
        let mut c = CycleEstimates::default();
        for first in &self.cs_first {
            let (cycles, active, by_type) = match first {
                Some(f) => (f.cycles_by_tile.clone(), f.active_by_tile.clone(), f.active_by_type.clone()),
                None => Default::default(),
            };
            c.cycles_by_tile.push(cycles);
            c.active_cycles_by_tile.push(active);
            c.active_cycles_by_vertex_type.push(by_type);
        }
        c
    }

    /// The execution profile.
    pub fn to_profile(&self, image: &Image, tree: &ProgramTree, totals: &Totals) -> ExecutionProfile {
        let tiles = self.num_tiles as u64;
        let steps = self
            .steps
            .iter()
            .map(|s| {
                let to = Some(s.from.saturating_add(s.cycles));
                if s.kind == "Sync" {
                    return ExecStep {
                        kind: "Sync".into(),
                        sync_type: Some("Internal".into()),
                        cycles: s.cycles,
                        cycles_from: Some(s.from),
                        cycles_to: to,
                        ..Default::default()
                    };
                }
                let node = s.program.map(|p| &tree.nodes[p as usize]);
                let mut step = ExecStep {
                    kind: s.kind.into(),
                    program: s.program,
                    name: node.and_then(|n| n.name.clone()).or(s.label.map(str::to_string)),
                    cycles: s.cycles,
                    cycles_from: Some(s.from),
                    cycles_to: to,
                    active_tiles: s.active_tiles,
                    tile_balance: Some(ratio(s.tile_cycles, s.cycles.saturating_mul(tiles))),
                    active_tile_balance: Some(ratio(
                        s.tile_cycles,
                        s.cycles.saturating_mul(u64::from(s.active_tiles)),
                    )),
                    ..Default::default()
                };
                match node.map(|n| &n.kind) {
                    Some(NodeKind::DoExchange(x)) => step.exchange = Some(*x),
                    Some(NodeKind::StreamCopy(x)) => step.host_exchange = Some(*x),
                    _ => {}
                }
                if let Some(cs) = s.compute_set {
                    step.compute_set = Some(cs);
                    step.thread_balance = Some(ratio(s.active, s.tile_cycles));
                } else {
                    step.total_data = Some(s.total_data);
                    step.data_balance = Some(ratio(s.tile_data, s.max_tile_data.saturating_mul(tiles)));
                }
                if s.kind != "StreamCopy" {
                    // Phases follow each other: nothing overlaps.
                    step.cycles_overlapped = Some(0);
                }
                step
            })
            .collect();
        let by_tile = self
            .cs_by_tile
            .iter()
            .map(|v| if v.is_empty() { vec![0u64; self.num_tiles] } else { v.clone() })
            .collect();
        let host_exchange_cycles = (0..tree.host_exchanges.len())
            .map(|x| match self.host_by_tile.get(x) {
                Some(v) if !v.is_empty() => v.clone(),
                _ => vec![0u64; self.num_tiles],
            })
            .collect();
        ExecutionProfile {
            // The engine fills in these three.
            image_hash: None,
            partial: false,
            stopped_by: None,
            profiler_mode: "IPU_MODEL".into(),
            target: ExecTarget {
                name: image.target.name.clone(),
                num_tiles: image.tiles.len() as u32,
                bytes_per_tile: image.target.bytes_per_tile,
                clock_mhz: image.target.clock_mhz,
                num_worker_contexts: image.target.workers,
            },
            program_trace: self.program_trace.clone(),
            programs: image.programs.iter().map(|p| p.name.clone()).collect(),
            compute_sets: image.compute_sets.iter().map(|c| c.name.clone()).collect(),
            vertex_types: image.vertex_types.iter().map(|v| v.name.clone()).collect(),
            compute_set_cycles_by_tile: by_tile,
            compute_set_cycles: self.cs_cycles.clone(),
            compute_set_runs: self.cs_runs.clone(),
            cycles_by_vertex_type: self.by_type.iter().map(|e| e.0).collect(),
            instances_by_vertex_type: self.by_type.iter().map(|e| e.1).collect(),
            vertex_cycles: self.by_vertex.clone(),
            host_exchange_cycles,
            memory: Some(exec_memory(image)),
            simulation: Simulation {
                cycles: totals.cycles,
                // Summed over tiles, as the user guide defines them: they
                // add up to `cycles` times the number of tiles.
                tile_cycles: TileCycles {
                    active_compute: totals.compute_active,
                    compute: totals.compute_tile,
                    do_exchange: totals.exchange_tile,
                    stream_copy: totals.host.saturating_mul(tiles),
                    sync: totals.sync_tile(tiles),
                    global_exchange: totals.external.saturating_mul(tiles),
                    copy_shared_structure: 0,
                },
                steps,
                steps_not_recorded: self.dropped_steps,
                control_cycles: self.control_cycles,
            },
            // The engine fills these in.
            blocks: Vec::new(),
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn exec_memory(image: &Image) -> ExecMemory {
    let used: Vec<u64> = image.tiles.iter().map(|t| u64::from(t.mem_size)).collect();
    ExecMemory {
        total: used.iter().sum::<u64>(),
        max_tile: used.iter().copied().max().unwrap_or(0),
        bytes_by_tile: used,
        bytes_per_tile: image.target.bytes_per_tile,
    }
}

pub use report::summary::{decimal, thousands};

/// The graph profile's target, from an image (for a summary without the
/// graph profile: a `prog.exe` holds the target but not the graph).
pub fn graph_target(image: &Image) -> GraphTarget {
    let t = &image.target;
    let tiles = image.tiles.len() as u64;
    GraphTarget {
        kind: if t.name == "cpu" { "CPU" } else { "IPU_MODEL" }.into(),
        name: t.name.clone(),
        bytes_per_tile: t.bytes_per_tile,
        clock_frequency: t.clock_mhz * 1e6,
        num_ipus: t.ipus,
        tiles_per_ipu: t.tiles_per_ipu,
        num_tiles: tiles as u32,
        num_worker_contexts: t.workers,
        total_memory: t.bytes_per_tile.saturating_mul(tiles),
        bytes_per_ipu: t.bytes_per_tile.saturating_mul(u64::from(t.tiles_per_ipu)),
        relative_sync_delay_by_tile: vec![0; t.tiles_per_ipu as usize],
        min_sync_delay: u64::from(t.sync_cycles),
    }
}

/// A text summary in the style of `printProfileSummary`: the Target, Graph
/// and Memory sections of the graph profile as `poplar-report --summary`
/// prints them (only the Target without one), then (on `sim`) the
/// execution totals, cycles by vertex type and by compute set. When a run
/// stopped before its end (`stopped`: its error), the execution section
/// says first that its figures cover the run only up to there.
pub fn summary(
    image: &Image,
    tree: &ProgramTree,
    totals: &Totals,
    rec: Option<&Recorder>,
    device: &str,
    graph: Option<&GraphProfile>,
    stopped: Option<&str>,
) -> String {
    use std::fmt::Write;
    let t = &image.target;
    let ntiles = image.tiles.len() as u64;
    let mut s = match graph {
        Some(g) => report::summary::graph_summary(g) + "\n",
        None => {
            let mut s = report::summary::target_summary(&graph_target(image));
            let _ = writeln!(s, "Graph and Memory Usage: no graph profile (a prog.exe holds none; pass");
            let _ = writeln!(s, "  --graph-profile with the file `poplar-compile --report` wrote)");
            let _ = writeln!(s);
            s
        }
    };
    let _ = writeln!(s, "Execution:");
    if let Some(e) = stopped {
        let _ = writeln!(s, "  Partial: the run stopped before its end; these figures cover it up to there.");
        let _ = writeln!(s, "  Stopped by: {e}");
    }
    let Some(rec) = rec else {
        let _ = writeln!(s, "  Steps executed:          {}", thousands(totals.steps));
        let _ = writeln!(s, "  (the {device} device does not model cycles; use --device sim)");
        return s;
    };
    let mut executed: Vec<&str> = Vec::new();
    for &p in &rec.program_trace {
        let program = tree.control.iter().position(|&root| root == p);
        let name = program.and_then(|i| image.programs.get(i)).map_or("<unknown>", |p| p.name.as_str());
        if !executed.contains(&name) {
            executed.push(name);
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "Programs executed:");
    let _ = writeln!(s);
    let _ = writeln!(s, "{}.", executed.join(", "));
    let _ = writeln!(s);
    execution_block(&mut s, totals, ntiles, t.clock_mhz);
    // Each program's own figures, when more than one ran.
    let ran = totals.by_program.iter().filter(|pt| pt.cycles > 0).count();
    for (i, p) in image.programs.iter().enumerate().filter(|_| ran > 1) {
        if let Some(pt) = totals.by_program.get(i).filter(|pt| pt.cycles > 0) {
            let _ = writeln!(s);
            let _ = writeln!(s, "  Program {}:", p.name);
            execution_block(&mut s, pt, ntiles, t.clock_mhz);
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "  Cycles by vertex type:");
    let mut types: Vec<(usize, &(u64, u64))> =
        rec.by_type.iter().enumerate().filter(|(_, e)| e.1 > 0).collect();
    types.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(&b.0)));
    for (i, (cyc, n)) in types {
        let _ = writeln!(
            s,
            "    {:<40} ({} instances): {:>12}",
            image.vertex_types[i].name,
            thousands(*n),
            thousands(*cyc)
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "  Cycles by compute set:");
    for (i, cs) in image.compute_sets.iter().enumerate() {
        if rec.cs_runs[i] > 0 {
            let _ = writeln!(
                s,
                "    {:<40} ({} runs): {:>12}",
                cs.name,
                thousands(rec.cs_runs[i]),
                thousands(rec.cs_cycles[i])
            );
        }
    }
    s
}

/// The totals as Poplar's `printProfileSummary` prints them: the total,
/// then each category as a tile average with its share of the total.
fn execution_block(s: &mut String, totals: &Totals, tiles: u64, clock_mhz: f64) {
    use std::fmt::Write;
    let tiles = tiles.max(1);
    let total = totals.cycles;
    let _ = writeln!(
        s,
        "  Total cycles:                                         {} (approx {} microseconds)",
        thousands(total),
        decimal(total as f64 / clock_mhz)
    );
    let rows = [
        ("compute cycles (including idle threads)", totals.compute_tile),
        ("compute cycles (excluding idle threads)", totals.compute_active),
        ("IPU exchange cycles", totals.exchange_tile),
        ("global exchange cycles", totals.external.saturating_mul(tiles)),
        ("host exchange cycles", totals.host.saturating_mul(tiles)),
        ("sync cycles", totals.sync_tile(tiles)),
    ];
    for (what, tile_sum) in rows {
        let average = tile_sum as f64 / tiles as f64;
        let share = if total == 0 { 0.0 } else { 100.0 * average / total as f64 };
        let label = format!("Tile average {what}:");
        let _ = writeln!(s, "  {label:<54}{} ({share:.1}% of total)", decimal(average));
    }
}

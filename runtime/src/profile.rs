//! The execution profile of the `sim` device, shaped like Poplar's
//! (`profilerMode`, `programTrace`, `simulation.{cycles, tileCycles,
//! steps}`, `computeSetCyclesByTile`, cycles by vertex type), and the text
//! summary in the style of `printProfileSummary`.
//!
//! Pure: the recorder collects numbers, [`Recorder::to_json`] and
//! [`summary`] turn them into values and text.

use linker::image::{Exchange, Image};
use serde_json::{json, Value};

use crate::exec::ExchangeInfo;
use crate::totals::Totals;

/// Most steps kept in the profile; later ones are counted, not listed.
pub const MAX_RECORDED_STEPS: usize = 20_000;

/// One step of the simulation.
#[derive(Clone, Debug)]
struct StepRec {
    kind: &'static str,
    program: u32,
    name: String,
    from: u64,
    cycles: u64,
    active_tiles: u32,
    /// Sum over tiles of their cycles (for the tile balance).
    tile_cycles: u64,
    active: u64,
    total_data: u64,
    compute_set: Option<u32>,
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
    /// Per vertex type: (cycles, instances executed).
    by_type: Vec<(u64, u64)>,
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
            by_type: vec![(0, 0); image.vertex_types.len()],
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
            program: 0,
            name: String::new(),
            from,
            cycles,
            active_tiles: self.num_tiles as u32,
            tile_cycles: 0,
            active: 0,
            total_data: 0,
            compute_set: None,
        });
    }

    pub(crate) fn stream_copy(
        &mut self,
        program: u32,
        name: &str,
        from: u64,
        cycles: u64,
        tiles: u32,
        bytes: u64,
    ) {
        if let Some(t) = &mut self.trace {
            t.host(name, from, cycles, bytes);
        }
        self.push(StepRec {
            kind: "StreamCopy",
            program,
            name: name.to_string(),
            from,
            cycles,
            active_tiles: tiles,
            tile_cycles: cycles.saturating_mul(u64::from(tiles)),
            active: 0,
            total_data: bytes,
            compute_set: None,
        });
    }

    pub(crate) fn exchange(
        &mut self,
        program: u32,
        name: &str,
        from: u64,
        info: &ExchangeInfo,
        x: &Exchange,
    ) {
        if let Some(t) = &mut self.trace {
            t.exchange(name, from, info.cycles, info.bytes, x);
        }
        self.push(StepRec {
            kind: "DoExchange",
            program,
            name: name.to_string(),
            from,
            cycles: info.cycles,
            active_tiles: info.active_tiles,
            tile_cycles: info.tile_cycles,
            active: 0,
            total_data: info.bytes,
            compute_set: None,
        });
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn compute(
        &mut self,
        program: u32,
        cs: u32,
        name: &str,
        from: u64,
        cycles: u64,
        per_tile: &[(u32, u64, u64)],
        vertex_counts: &[(u32, u64)],
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
        self.cs_runs[c] += 1;
        self.cs_cycles[c] = self.cs_cycles[c].saturating_add(cycles);
        for &(vt, n) in vertex_counts {
            let e = &mut self.by_type[vt as usize];
            e.0 = e.0.saturating_add(n);
            e.1 += 1;
        }
        self.push(StepRec {
            kind: "OnTileExecute",
            program,
            name: name.to_string(),
            from,
            cycles,
            active_tiles: per_tile.len() as u32,
            tile_cycles,
            active,
            total_data: 0,
            compute_set: Some(cs),
        });
    }

    /// The execution profile as JSON.
    pub fn to_json(&self, image: &Image, totals: &Totals) -> Value {
        let steps: Vec<Value> = self
            .steps
            .iter()
            .map(|s| {
                if s.kind == "Sync" {
                    return json!({
                        "type": "Sync",
                        "syncType": "Internal",
                        "cycles": s.cycles,
                        "cyclesFrom": s.from,
                        "cyclesTo": s.from.saturating_add(s.cycles),
                    });
                }
                let balance = ratio(s.tile_cycles, s.cycles.saturating_mul(self.num_tiles as u64));
                let active_balance = ratio(s.tile_cycles, s.cycles.saturating_mul(u64::from(s.active_tiles)));
                let mut v = json!({
                    "type": s.kind,
                    "program": s.program,
                    "name": s.name,
                    "cycles": s.cycles,
                    "cyclesFrom": s.from,
                    "cyclesTo": s.from.saturating_add(s.cycles),
                    "activeTiles": s.active_tiles,
                    "tileBalance": balance,
                    "activeTileBalance": active_balance,
                });
                if let Some(cs) = s.compute_set {
                    v["computeSet"] = json!(cs);
                    v["threadBalance"] = json!(ratio(s.active, s.tile_cycles));
                    v["cyclesOverlapped"] = json!(0);
                } else {
                    v["totalData"] = json!(s.total_data);
                }
                v
            })
            .collect();
        let by_tile: Vec<Value> = self
            .cs_by_tile
            .iter()
            .map(|v| if v.is_empty() { json!(vec![0u64; self.num_tiles]) } else { json!(v) })
            .collect();
        json!({
            "profilerMode": "IPU_MODEL",
            "target": {
                "name": image.target.name,
                "numTiles": image.tiles.len(),
                "bytesPerTile": image.target.bytes_per_tile,
                "clockMHz": image.target.clock_mhz,
                "numWorkerContexts": image.target.workers,
            },
            "programTrace": self.program_trace,
            "programs": image.programs.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
            "computeSets": image.compute_sets.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
            "vertexTypes": image.vertex_types.iter().map(|v| v.name.clone()).collect::<Vec<_>>(),
            "computeSetCyclesByTile": by_tile,
            "computeSetCycles": self.cs_cycles,
            "computeSetRuns": self.cs_runs,
            "cyclesByVertexType": self.by_type.iter().map(|e| e.0).collect::<Vec<_>>(),
            "instancesByVertexType": self.by_type.iter().map(|e| e.1).collect::<Vec<_>>(),
            "memory": memory_json(image),
            "simulation": {
                "cycles": totals.cycles,
                // Summed over tiles, as the user guide defines them: they
                // add up to `cycles` times the number of tiles.
                "tileCycles": {
                    "activeCompute": totals.compute_active,
                    "compute": totals.compute_tile,
                    "doExchange": totals.exchange_tile,
                    "streamCopy": totals.host.saturating_mul(image.tiles.len() as u64),
                    "sync": totals.sync_tile(image.tiles.len() as u64),
                    "globalExchange": 0,
                    "copySharedStructure": 0,
                },
                "steps": steps,
                "stepsNotRecorded": self.dropped_steps,
            }
        })
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn memory_json(image: &Image) -> Value {
    let used: Vec<u64> = image.tiles.iter().map(|t| u64::from(t.mem_size)).collect();
    json!({
        "bytesByTile": used,
        "total": used.iter().sum::<u64>(),
        "maxTile": used.iter().copied().max().unwrap_or(0),
        "bytesPerTile": image.target.bytes_per_tile,
    })
}

/// Digits with thousands separators, as the Poplar summary prints them.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A text summary in the style of `printProfileSummary`: target, memory,
/// then (on `sim`) the execution totals, cycles by vertex type and by
/// compute set.
pub fn summary(image: &Image, totals: &Totals, rec: Option<&Recorder>, device: &str) -> String {
    use std::fmt::Write;
    let t = &image.target;
    let mut s = String::new();
    let ntiles = image.tiles.len() as u64;
    let _ = writeln!(s, "Target:");
    let _ = writeln!(s, "  Device:                  {device}");
    let _ = writeln!(s, "  Preset:                  {}", t.name);
    let _ = writeln!(s, "  Number of IPUs:          {}", t.ipus);
    let _ = writeln!(s, "  Tiles per IPU:           {}", thousands(u64::from(t.tiles_per_ipu)));
    let _ = writeln!(s, "  Total Tiles:             {}", thousands(ntiles));
    let _ = writeln!(s, "  Memory Per-Tile:         {}", kib(t.bytes_per_tile));
    let _ = writeln!(s, "  Clock:                   {} MHz", t.clock_mhz);
    let _ = writeln!(s);
    let used: Vec<u64> = image.tiles.iter().map(|x| u64::from(x.mem_size)).collect();
    let total: u64 = used.iter().sum();
    let max = used.iter().copied().max().unwrap_or(0);
    let max_tile = used.iter().position(|&u| u == max).unwrap_or(0);
    let vertices: usize = image.tiles.iter().map(|x| x.vertices.len()).sum();
    let _ = writeln!(s, "Graph:");
    let _ = writeln!(s, "  Number of vertices:      {}", thousands(vertices as u64));
    let _ = writeln!(s, "  Number of compute sets:  {}", thousands(image.compute_sets.len() as u64));
    let _ = writeln!(s, "  Number of programs:      {}", image.programs.len());
    let _ = writeln!(s);
    let _ = writeln!(s, "Memory Usage:");
    let _ = writeln!(
        s,
        "  Total:                   {} ({:.1}% of {})",
        bytes(total),
        100.0 * total as f64 / (t.bytes_per_tile.saturating_mul(ntiles)).max(1) as f64,
        bytes(t.bytes_per_tile.saturating_mul(ntiles))
    );
    let _ = writeln!(
        s,
        "  Max tile:                {} on tile {max_tile} ({:.1}% of {})",
        bytes(max),
        100.0 * max as f64 / t.bytes_per_tile.max(1) as f64,
        bytes(t.bytes_per_tile)
    );
    let used_tiles = used.iter().filter(|&&u| u > 0).count();
    let _ =
        writeln!(s, "  Tiles used:              {} / {}", thousands(used_tiles as u64), thousands(ntiles));
    let _ = writeln!(s);
    let _ = writeln!(s, "Execution:");
    let Some(rec) = rec else {
        let _ = writeln!(s, "  Steps executed:          {}", thousands(totals.steps));
        let _ = writeln!(s, "  (the {device} device does not model cycles; use --device sim)");
        return s;
    };
    let mut executed: Vec<&str> = Vec::new();
    for &p in &rec.program_trace {
        let name = image.programs.get(p as usize).map_or("<unknown>", |p| p.name.as_str());
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
        ("global exchange cycles", 0),
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

/// `x` with one decimal and thousands separators: `3,801.8`.
fn decimal(x: f64) -> String {
    // In u128: a tile average can come near 2^64 cycles.
    let tenths = (x * 10.0).round() as u128;
    let whole = u64::try_from(tenths / 10).unwrap_or(u64::MAX);
    format!("{}.{}", thousands(whole), tenths % 10)
}

fn kib(b: u64) -> String {
    format!("{} KiB", thousands(b / 1024))
}

fn bytes(b: u64) -> String {
    format!("{} bytes", thousands(b))
}

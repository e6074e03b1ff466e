//! The report, the trace and `autoReport` on the real pipeline: every
//! `testdata/run` case is compiled with its graph profile and run on `sim`
//! (through `poplar-run`'s own code path with `--profile`, `--trace` and
//! `--summary`; a case that fails at run time through the engine, whose
//! profile then covers the run up to the failure), and then
//! - both profiles must parse into the typed schema and agree with each
//!   other and with the summary ([`cross_check`]: indices resolve, names
//!   match, step cycles add up to the total, per-tile bytes fit the tile);
//! - the page must embed the data, reach nothing outside itself, and carry
//!   its script and styles inline;
//! - the trace must satisfy the trace-event format (see [`check_trace`]).
//!
//! `tut3`'s page data is a golden file (`testdata/report/tut3.view.json`).

use std::path::{Path, PathBuf};

use report::schema::{CategoryTotal, ExecutionProfile, GraphProfile};
use runtime::linker::gp::VertexBase;
use runtime::linker::image::Image;
use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(testdata::root().join("run"))
        .expect("testdata/run")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("graph.pir").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("poplar-report-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Compiles a case with its graph profile.
fn compile(dir: &Path) -> (Image, String) {
    let opts = compiler::Options { report: true, ..Default::default() };
    let c = compiler::compile_path(&dir.join("graph.pir"), &opts).expect("case compiles");
    (c.image.expect("image"), c.report.expect("graph profile"))
}

/// Runs a case on sim with extra arguments; returns (status, stderr).
fn run(dir: &Path, image: &Image, extra: &[String], env: &runtime::cli::Env) -> (i32, String) {
    let (code, _, err) = run_out(dir, image, None, extra, env);
    (code, err)
}

/// Runs a case on sim with extra arguments, the compile hook giving
/// `graph` as the graph profile when asked; returns (status, stdout, stderr).
fn run_out(
    dir: &Path,
    image: &Image,
    graph: Option<&str>,
    extra: &[String],
    env: &runtime::cli::Env,
) -> (i32, String, String) {
    let cmd = std::fs::read_to_string(dir.join("cmd")).unwrap_or_default();
    let mut argv = vec![dir.join("graph.pir").to_string_lossy().into_owned()];
    argv.extend(cmd.split_whitespace().map(|a| a.replace("$DIR", &dir.to_string_lossy())));
    argv.retain(|a| a != "--summary");
    if !argv.iter().any(|a| a.starts_with("--device")) {
        argv.extend(["--device".into(), "sim".into()]);
    }
    argv.extend(extra.iter().cloned());
    let compile =
        |_: &Path, want: bool| Ok((image.clone(), Vec::new(), graph.filter(|_| want).map(str::to_string)));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = runtime::cli::main(&argv, env, &compile, &mut out, &mut err);
    (code, String::from_utf8_lossy(&out).into_owned(), String::from_utf8_lossy(&err).into_owned())
}

/// Runs a case's first program on a sim engine with profiling: its
/// execution profile, summary and graph profile with the run's cycle
/// estimates, also when the run fails.
fn run_engine(image: &Image, graph: &str) -> (String, String, String) {
    let loaded = runtime::load_image(image.clone()).expect("image loads");
    // A bound for the cases that would run for ever without their
    // `--max-cycles`.
    let opts = runtime::EngineOptions {
        device: runtime::DeviceKind::Sim,
        profile: true,
        max_cycles: Some(1_000_000),
        ..Default::default()
    };
    let mut e = runtime::Engine::new(loaded, &opts);
    e.set_graph_profile(report::schema::parse_graph(graph).expect("graph profile"));
    let _ = e.run(0);
    let g = serde_json::to_string(&e.graph_profile().expect("given")).unwrap();
    (serde_json::to_string(&e.profile_json()).unwrap(), e.summary(), g)
}

/// The number after `label` on the summary's line that has it.
fn summary_figure(name: &str, summary: &str, label: &str) -> u64 {
    let line = summary.lines().find(|l| l.trim_start().starts_with(label));
    let line = line.unwrap_or_else(|| panic!("{name}: no '{label}' in the summary:\n{summary}"));
    let digits: String = line[line.find(label).unwrap() + label.len()..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(|c| *c != ',')
        .collect();
    digits.parse().unwrap_or_else(|_| panic!("{name}: no figure in '{line}'"))
}

fn cross_check(name: &str, g: &GraphProfile, e: &ExecutionProfile, summary: &str) {
    let tiles = g.target.num_tiles as usize;
    assert_eq!(e.target.num_tiles as usize, tiles, "{name}: tiles");
    // The case ran, so every tile fits.
    for (t, &b) in g.memory.by_tile.total_including_gaps.iter().enumerate() {
        assert!(b <= g.target.bytes_per_tile, "{name}: tile {t} uses {b} bytes");
    }
    assert_eq!(e.compute_sets, g.compute_sets.names, "{name}: compute set names");
    assert_eq!(e.vertex_types, g.vertex_types.names, "{name}: vertex type names");
    for (what, v) in [
        ("total", &g.memory.by_tile.total),
        ("totalIncludingGaps", &g.memory.by_tile.total_including_gaps),
        ("overflowed", &g.memory.by_tile.overflowed),
        ("vertices", &g.memory.by_tile.vertices),
    ] {
        assert_eq!(v.len(), tiles, "{name}: memory.byTile.{what}");
    }
    for (cat, c) in &g.memory.by_category {
        if let CategoryTotal::ByTile(v) = &c.total {
            assert_eq!(v.len(), tiles, "{name}: memory.byCategory.{cat}");
        }
    }
    for row in g.exchanges.bytes_sent_by_tile.iter().chain(&g.exchanges.bytes_received_by_tile) {
        assert_eq!(row.len(), tiles, "{name}: exchanges by tile");
    }
    for row in &e.compute_set_cycles_by_tile {
        assert_eq!(row.len(), tiles, "{name}: computeSetCyclesByTile");
    }
    let vertices: u64 = g.memory.by_tile.vertices.iter().sum();
    assert_eq!(vertices, g.graph.num_vertices, "{name}: vertices by tile");
    for v in &g.variables {
        let on_tiles: u64 = v.tiles.iter().map(|p| p[1]).sum();
        assert_eq!(on_tiles, v.bytes, "{name}: variable {} by tile", v.name);
    }
    check_programs(name, g);
    check_memory(name, g);
    check_steps(name, g, e);
    // The summary prints the same figures.
    assert_eq!(summary_figure(name, summary, "Total cycles:"), e.simulation.cycles, "{name}: summary cycles");
    assert_eq!(
        summary_figure(name, summary, "Number of vertices:"),
        g.graph.num_vertices,
        "{name}: summary vertices"
    );
    let with_gaps: u64 = g.memory.by_tile.total_including_gaps.iter().sum();
    assert_eq!(summary_figure(name, summary, "Including Gaps:"), with_gaps, "{name}: summary memory");
    // The graph profile's own summary.
    let gs = report::summary::graph_summary(g);
    assert_eq!(summary_figure(name, &gs, "Including Gaps:"), with_gaps, "{name}: graph summary memory");
    let without: u64 = g.memory.by_tile.total.iter().sum();
    let region_total =
        gs.lines().skip_while(|l| !l.contains("By Memory Region:")).collect::<Vec<_>>().join("\n");
    assert_eq!(
        summary_figure(name, &region_total, "Total:"),
        without,
        "{name}: graph summary excluding gaps"
    );
    assert_eq!(summary_figure(name, &gs, "Number of edges:"), g.graph.num_edges, "{name}: edges");
    assert_eq!(summary_figure(name, &gs, "Number of variables:"), g.graph.num_vars, "{name}: variables");
    // Every recorded step lies within the run and they follow each other.
    let mut end = 0;
    for s in &e.simulation.steps {
        let from = s.cycles_from.unwrap_or_else(|| panic!("{name}: a {} step has no cyclesFrom", s.kind));
        assert!(from >= end, "{name}: steps overlap at cycle {from}");
        end = from.saturating_add(s.cycles);
    }
    assert!(end <= e.simulation.cycles, "{name}: steps end past the total");
    // Every tile spends the whole run in compute, exchange, host transfer,
    // global exchange or sync: the tile sums add up to the total times the
    // tiles.
    let tc = &e.simulation.tile_cycles;
    if let Some(all) = e.simulation.cycles.checked_mul(tiles as u64) {
        let parts = [tc.compute, tc.do_exchange, tc.stream_copy, tc.global_exchange, tc.sync];
        if let Some(sum) = parts.iter().try_fold(0u64, |a, &b| a.checked_add(b)) {
            assert_eq!(sum, all, "{name}: tileCycles add up to cycles x tiles");
        }
    }
}

/// `computeSets.cycleEstimates` hold each compute set's first execution as
/// the execution profile saw it: rows of the right lengths, a tile's active
/// cycles within its cycles, whole rounds of the workers, the first run
/// within the runs' sum (equal to it for a compute set run once), the
/// vertex types' cycles adding up to the tiles' active cycles, and, when
/// no compute set ran twice, the sums equal to `simulation.tileCycles`.
fn check_cycle_estimates(name: &str, g: &GraphProfile, e: &ExecutionProfile, image: &Image) {
    let Some(c) = &g.compute_sets.cycle_estimates else {
        assert!(e.compute_set_runs.iter().all(|&r| r == 0), "{name}: a compute set ran, no cycle estimates");
        return;
    };
    let sets = g.compute_sets.names.len();
    let tiles = g.target.num_tiles as usize;
    let workers = u64::from(g.target.num_worker_contexts);
    for rows in [&c.cycles_by_tile, &c.active_cycles_by_tile, &c.active_cycles_by_vertex_type] {
        assert_eq!(rows.len(), sets, "{name}: cycleEstimates rows");
    }
    let supervisors = image.vertex_types.iter().any(|v| v.base == VertexBase::Supervisor);
    let (mut cycles_sum, mut active_sum) = (0u64, 0u64);
    for cs in 0..sets {
        let (cycles, active, by_type) =
            (&c.cycles_by_tile[cs], &c.active_cycles_by_tile[cs], &c.active_cycles_by_vertex_type[cs]);
        let runs = e.compute_set_runs[cs];
        if runs == 0 {
            assert!(
                cycles.is_empty() && active.is_empty() && by_type.is_empty(),
                "{name}: cs {cs} never ran"
            );
            continue;
        }
        assert_eq!((cycles.len(), active.len()), (tiles, tiles), "{name}: cs {cs} rows by tile");
        assert_eq!(by_type.len(), g.vertex_types.names.len(), "{name}: cs {cs} row by vertex type");
        let measured = &e.compute_set_cycles_by_tile[cs];
        for t in 0..tiles {
            assert!(active[t] <= cycles[t], "{name}: cs {cs} tile {t} more active cycles than cycles");
            let whole = cycles[t] % workers == 0 || cycles[t] == u64::MAX; // saturated
            assert!(whole, "{name}: cs {cs} tile {t} is not whole worker rounds");
            assert!(cycles[t] <= measured[t], "{name}: cs {cs} tile {t} first run past all runs");
        }
        if runs == 1 {
            assert_eq!(cycles, measured, "{name}: cs {cs} ran once: its estimate is its run");
        }
        let types: u64 = by_type.iter().sum();
        let on_tiles: u64 = active.iter().sum();
        if supervisors {
            assert!(types <= on_tiles, "{name}: cs {cs} vertex types past the tiles' active cycles");
        } else {
            assert_eq!(types, on_tiles, "{name}: cs {cs} vertex types against tiles");
        }
        for (vt, &n) in by_type.iter().enumerate() {
            let listed = g.compute_sets.vertex_types[cs].contains(&(vt as u32));
            assert!(n == 0 || listed, "{name}: cs {cs} has cycles of vertex type {vt}, not one of its own");
        }
        cycles_sum = cycles_sum.saturating_add(cycles.iter().sum());
        active_sum = active_sum.saturating_add(on_tiles);
    }
    if e.compute_set_runs.iter().all(|&r| r <= 1) {
        let tc = &e.simulation.tile_cycles;
        assert_eq!(cycles_sum, tc.compute, "{name}: cyclesByTile against tileCycles.compute");
        assert_eq!(
            active_sum, tc.active_compute,
            "{name}: activeCyclesByTile against tileCycles.activeCompute"
        );
    }
}

/// Every index of the program list resolves, and names are the names of
/// what they index.
fn check_programs(name: &str, g: &GraphProfile) {
    let n = g.programs.len();
    for &root in g.control_programs.iter().chain(&g.function_programs) {
        assert!((root as usize) < n, "{name}: root {root}");
    }
    for (i, p) in g.programs.iter().enumerate() {
        for &c in &p.children {
            assert!((c as usize) < n && c as usize > i, "{name}: program {i}'s child {c}");
        }
        match p.kind.as_str() {
            "DoExchange" => {
                let x = p.exchange.unwrap_or_else(|| panic!("{name}: DoExchange {i} without exchange"));
                assert_eq!(p.name.as_ref(), g.exchanges.names.get(x as usize), "{name}: exchange {x}'s name");
            }
            "StreamCopy" => {
                let x = p.exchange.unwrap_or_else(|| panic!("{name}: StreamCopy {i} without exchange"));
                assert_eq!(
                    p.name.as_ref(),
                    g.host_exchanges.names.get(x as usize),
                    "{name}: host exchange {x}"
                );
            }
            "OnTileExecute" => {
                let c =
                    p.compute_set.unwrap_or_else(|| panic!("{name}: OnTileExecute {i} without compute set"));
                assert_eq!(p.name.as_ref(), g.compute_sets.names.get(c as usize), "{name}: compute set {c}");
            }
            "Call" => {
                let f = p.target.unwrap_or_else(|| panic!("{name}: Call {i} without target"));
                assert!((f as usize) < g.function_programs.len(), "{name}: call target {f}");
            }
            _ => {}
        }
    }
    // Exchanges: one row per exchange, one entry per tile, and no tile
    // sends or receives more than its memory holds.
    let tiles = g.target.num_tiles as usize;
    let x = &g.exchanges;
    let h = &g.host_exchanges;
    for (rows, count) in [
        (&x.bytes_sent_by_tile, x.names.len()),
        (&x.bytes_received_by_tile, x.names.len()),
        (&x.cycles_by_tile, x.names.len()),
        (&h.bytes_sent_by_tile, h.names.len()),
        (&h.bytes_received_by_tile, h.names.len()),
        (&h.estimated_cycles_by_tile, h.names.len()),
    ] {
        assert_eq!(rows.len(), count, "{name}: exchange rows");
        assert!(rows.iter().all(|r| r.len() == tiles), "{name}: exchange row length");
    }
    for (xi, row) in x.bytes_sent_by_tile.iter().chain(&x.bytes_received_by_tile).enumerate() {
        for (t, &b) in row.iter().enumerate() {
            assert!(b <= g.target.bytes_per_tile, "{name}: tile {t} moves {b} bytes in exchange row {xi}");
        }
    }
    assert_eq!(
        g.target.relative_sync_delay_by_tile.len(),
        g.target.tiles_per_ipu as usize,
        "{name}: sync delays"
    );
}

/// Memory by tile, by category and by vertex: the parts add up.
fn check_memory(name: &str, g: &GraphProfile) {
    let tiles = g.target.num_tiles as usize;
    let limit = g.target.bytes_per_tile;
    let b = &g.memory.by_tile;
    for t in 0..tiles {
        assert_eq!(
            b.total[t],
            b.interleaved[t] + b.non_interleaved[t] + b.overflowed[t],
            "{name}: tile {t} total"
        );
        assert_eq!(
            b.total_including_gaps[t],
            b.interleaved_including_gaps[t]
                + b.non_interleaved_including_gaps[t]
                + b.overflowed_including_gaps[t],
            "{name}: tile {t} total including gaps"
        );
        assert!(b.total[t] <= b.total_including_gaps[t], "{name}: tile {t} gaps");
        assert!(b.non_interleaved_including_gaps[t] <= limit, "{name}: tile {t} region");
        let mut by_cat = 0;
        for (cat, c) in &g.memory.by_category {
            if let CategoryTotal::ByTile(v) = &c.total {
                let regions = [&c.interleaved, &c.non_interleaved, &c.overflowed];
                let split: u64 = regions
                    .iter()
                    .map(|r| r.as_ref().map_or(0, |r| r.overlapped[t] + r.non_overlapped[t]))
                    .sum();
                assert_eq!(split, v[t], "{name}: tile {t}: {cat} by region");
                by_cat += v[t];
            }
        }
        assert_eq!(by_cat, b.total_including_gaps[t], "{name}: tile {t}: categories add up");
    }
    // Vertex memory: states and descriptors, by vertex type.
    let cat = |c: &str| match &g.memory.by_category[c].total {
        CategoryTotal::ByTile(v) => v.clone(),
        CategoryTotal::Outside(_) => panic!("{name}: {c} outside the tiles"),
    };
    let (states, descriptors) = (cat("vertexInstanceState"), cat("vectorListDescriptor"));
    let vt = &g.memory.by_vertex_type;
    let cs = &g.memory.by_compute_set;
    assert_eq!(vt.total_bytes.len(), g.vertex_types.names.len(), "{name}: byVertexType rows");
    assert_eq!(cs.total_bytes.len(), g.compute_sets.names.len(), "{name}: byComputeSet rows");
    for t in 0..tiles {
        let sum = |rows: &[Vec<u64>]| rows.iter().map(|r| r[t]).sum::<u64>();
        assert_eq!(
            sum(&vt.edge_ptr_bytes) + sum(&vt.vertex_data_bytes),
            states[t],
            "{name}: tile {t} states"
        );
        assert_eq!(sum(&vt.descriptor_bytes), descriptors[t], "{name}: tile {t} descriptors");
    }
}

/// The execution profile's steps against the graph profile's programs.
fn check_steps(name: &str, g: &GraphProfile, e: &ExecutionProfile) {
    let tiles = g.target.num_tiles as usize;
    for &p in &e.program_trace {
        assert!(g.control_programs.contains(&p), "{name}: programTrace {p} is no control program");
    }
    assert_eq!(e.vertex_cycles.len() as u64, g.graph.num_vertices, "{name}: vertexCycles");
    assert_eq!(e.host_exchange_cycles.len(), g.host_exchanges.names.len(), "{name}: hostExchangeCycles");
    let mut sum = e.simulation.control_cycles;
    for (i, s) in e.simulation.steps.iter().enumerate() {
        sum = sum.saturating_add(s.cycles);
        if s.kind == "Sync" {
            assert!(s.program.is_none() && s.sync_type.is_some(), "{name}: sync step {i}");
            continue;
        }
        let p = s.program.unwrap_or_else(|| panic!("{name}: step {i} has no program"));
        let node = g.programs.get(p as usize).unwrap_or_else(|| panic!("{name}: step {i}'s program {p}"));
        assert_eq!(s.name, node.name, "{name}: step {i}'s name");
        match s.kind.as_str() {
            "OnTileExecute" => {
                assert_eq!(node.kind, "OnTileExecute", "{name}: step {i}");
                assert_eq!(s.compute_set, node.compute_set, "{name}: step {i}'s compute set");
            }
            "StreamCopy" => {
                assert_eq!(node.kind, "StreamCopy", "{name}: step {i}");
                let x = s.host_exchange.unwrap_or_else(|| panic!("{name}: step {i} has no hostExchange"));
                assert_eq!(Some(x), node.exchange, "{name}: step {i}'s host exchange");
                let est = &g.host_exchanges.estimated_cycles_by_tile[x as usize];
                assert_eq!(est.iter().copied().max(), Some(s.cycles), "{name}: step {i}'s cycles");
            }
            "DoExchange" => match s.exchange {
                Some(x) => {
                    assert_eq!(node.kind, "DoExchange", "{name}: step {i}");
                    assert_eq!(Some(x), node.exchange, "{name}: step {i}'s exchange");
                    let c = &g.exchanges.cycles_by_tile[x as usize];
                    assert_eq!(c.iter().copied().max(), Some(s.cycles), "{name}: step {i}'s cycles");
                    let active = c.iter().filter(|&&c| c > 0).count();
                    assert_eq!(active, s.active_tiles as usize, "{name}: step {i}'s active tiles");
                }
                // A branch's predicate broadcast.
                None => assert!(
                    ["IfElse", "Switch", "RepeatWhileTrue", "RepeatWhileFalse"].contains(&node.kind.as_str()),
                    "{name}: step {i} is an exchange of a {}",
                    node.kind
                ),
            },
            // A collective's traffic between replicas, or the IPU-Link
            // part of an exchange between IPUs.
            "GlobalExchange" => assert!(
                ["GlobalExchange", "DoExchange"].contains(&node.kind.as_str()),
                "{name}: step {i} is the global exchange of a {}",
                node.kind
            ),
            other => panic!("{name}: step {i} has type {other}"),
        }
    }
    if e.simulation.steps_not_recorded == 0 && e.simulation.cycles != u64::MAX {
        assert_eq!(sum, e.simulation.cycles, "{name}: steps and control cycles add up to the total");
    }
    for row in &e.host_exchange_cycles {
        assert_eq!(row.len(), tiles, "{name}: hostExchangeCycles row");
    }
}

fn check_page(name: &str, html: &str, g: &GraphProfile) {
    for bad in ["http://", "https://", "<link", " src=", "@import", "url("] {
        assert!(!html.contains(bad), "{name}: the page refers outside itself ({bad})");
    }
    assert!(html.contains("<style>") && html.contains("\"use strict\""), "{name}: inline style and script");
    let start = html.find("<script id=\"profile-data\" type=\"application/json\">").expect("data element");
    let rest = &html[start..];
    let data = &rest[rest.find('>').unwrap() + 1..rest.find("</script>").unwrap()];
    let v: Value = serde_json::from_str(data).expect("embedded data is JSON");
    assert_eq!(v["target"]["tiles"], g.target.num_tiles, "{name}: embedded tiles");
    assert_eq!(v["total"].as_array().map(Vec::len), Some(g.target.num_tiles as usize), "{name}");
    for cs in &g.compute_sets.names {
        assert!(data.contains(&format!("\"{cs}\"")), "{name}: compute set {cs} missing from the page");
    }
}

/// The trace-event format (the JSON object form): `traceEvents` is a list
/// of objects with a string `name` and `ph`, integer `pid` and `tid`, a
/// numeric `ts`; complete events (`X`) have a non-negative `dur`;
/// metadata events (`M`) name a process or thread in `args`. Beyond the
/// format: every track with events is named, events of one track never
/// overlap, and the last one ends at the run's total time.
fn check_trace(name: &str, text: &str, total_cycles: u64, clock_mhz: f64) {
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: trace is not JSON: {e}"));
    let events = v["traceEvents"].as_array().unwrap_or_else(|| panic!("{name}: no traceEvents list"));
    assert!(matches!(v["displayTimeUnit"].as_str(), Some("ms" | "ns")), "{name}: displayTimeUnit");
    let mut named = std::collections::BTreeSet::new();
    let mut tracks: std::collections::BTreeMap<u64, Vec<(f64, f64)>> = Default::default();
    for e in events {
        let o = e.as_object().unwrap_or_else(|| panic!("{name}: event {e} is not an object"));
        for key in ["name", "ph"] {
            assert!(o.get(key).is_some_and(Value::is_string), "{name}: {key} in {e}");
        }
        for key in ["pid", "tid"] {
            assert!(o.get(key).is_some_and(Value::is_u64), "{name}: {key} in {e}");
        }
        let ts = o.get("ts").and_then(Value::as_f64).unwrap_or_else(|| panic!("{name}: ts in {e}"));
        assert!(ts >= 0.0, "{name}: negative ts in {e}");
        if let Some(a) = o.get("args") {
            assert!(a.is_object(), "{name}: args in {e}");
        }
        let tid = o["tid"].as_u64().unwrap();
        match o["ph"].as_str().unwrap() {
            "X" => {
                let dur =
                    o.get("dur").and_then(Value::as_f64).unwrap_or_else(|| panic!("{name}: dur in {e}"));
                assert!(dur >= 0.0, "{name}: negative dur in {e}");
                assert!(o.get("cat").is_none_or(Value::is_string), "{name}: cat in {e}");
                tracks.entry(tid).or_default().push((ts, ts + dur));
            }
            "M" => match o["name"].as_str().unwrap() {
                "process_name" | "thread_name" => {
                    assert!(e["args"]["name"].is_string(), "{name}: metadata without a name: {e}");
                    if o["name"] == "thread_name" {
                        named.insert(tid);
                    }
                }
                "thread_sort_index" | "process_sort_index" => {
                    assert!(e["args"]["sort_index"].is_i64(), "{name}: sort index in {e}")
                }
                other => panic!("{name}: unknown metadata event {other}"),
            },
            other => panic!("{name}: unexpected phase {other}"),
        }
    }
    if total_cycles == u64::MAX {
        // The run's cycle count saturated: its times stop advancing, so the
        // tracks cannot be in order; the events were checked above.
        return;
    }
    let eps = 1e-6f64;
    let mut last = 0.0f64;
    for (tid, spans) in &tracks {
        assert!(named.contains(tid), "{name}: track {tid} has no thread_name");
        for w in spans.windows(2) {
            // Times are f64 microseconds: allow rounding relative to their size.
            let slack = eps.max(w[1].0.abs() * 1e-12);
            assert!(w[0].1 <= w[1].0 + slack, "{name}: track {tid} overlaps at {} us", w[1].0);
        }
        last = last.max(spans.last().unwrap().1);
    }
    let total_us = total_cycles as f64 / clock_mhz;
    assert!(
        last <= total_us + eps.max(total_us * 1e-12),
        "{name}: trace ends at {last} us, past the run's {total_us} us"
    );
}

/// Every test here compiles at the baseline ISA level: code sizes in the
/// expectations are that level's, and the level is process-wide, so each
/// test pins it before it compiles anything.
fn pin_baseline_isa() {
    runtime::linker::isa::limit_to(runtime::linker::isa::Level::Baseline);
}

#[test]
fn every_run_case_reports_and_traces() {
    pin_baseline_isa();
    let mut checked = 0;
    for dir in cases() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let tmp = scratch(&name);
        let (image, graph_text) = compile(&dir);
        let (exec, trace) = (tmp.join("exec.json"), tmp.join("trace.json"));
        let extra = [
            "--profile".to_string(),
            exec.to_string_lossy().into_owned(),
            "--trace".to_string(),
            trace.to_string_lossy().into_owned(),
            "--summary".to_string(),
        ];
        // autoReport writes the graph profile with the run's cycle estimates.
        let options = format!(
            r#"{{"autoReport.outputGraphProfile":"true","autoReport.directory":{}}}"#,
            serde_json::to_string(&tmp.to_string_lossy()).unwrap()
        );
        let env = runtime::cli::Env { engine_options: Some(options), ..Default::default() };
        let (code, out, err) = run_out(&dir, &image, Some(&graph_text), &extra, &env);
        let cpu_only = err.contains("--trace needs the sim device");
        // A run that stopped (a failing vertex, `--max-cycles`) still
        // writes its profile, trace and summary, marked partial.
        let stopped = code != 0 && !cpu_only && exec.is_file();
        let cli = (code == 0 || stopped) && !cpu_only;
        assert!(cli || cpu_only || name.starts_with("err_"), "{name}: {err}");
        let (exec_text, summary, graph_text) = if cli {
            let graph = std::fs::read_to_string(tmp.join(report::auto::GRAPH_FILE)).unwrap();
            (std::fs::read_to_string(&exec).unwrap(), out, graph)
        } else {
            run_engine(&image, &graph_text)
        };
        let g =
            report::schema::parse_graph(&graph_text).unwrap_or_else(|e| panic!("{name}: graph profile: {e}"));
        let e = report::schema::parse_execution(&exec_text)
            .unwrap_or_else(|e| panic!("{name}: exec profile: {e}"));
        cross_check(&name, &g, &e, &summary);
        check_cycle_estimates(&name, &g, &e, &image);
        // Both profiles are of this image.
        assert_eq!(g.image_hash.as_deref(), Some(image.content_hash().as_str()), "{name}: graph imageHash");
        assert_eq!(e.image_hash, g.image_hash, "{name}: execution imageHash");
        let html = report::render(&name, &g, Some(&e));
        check_page(&name, &html, &g);
        if cli {
            assert_eq!(e.partial, stopped, "{name}: partial");
            assert_eq!(e.stopped_by.is_some(), stopped, "{name}: stoppedBy");
            assert_eq!(summary.contains("\n  Partial: the run stopped"), stopped, "{name}: summary");
            assert_eq!(page_data(&html)["exec"]["partial"], stopped, "{name}: the page's partial");
            let trace = std::fs::read_to_string(&trace).unwrap();
            check_trace(&name, &trace, e.simulation.cycles, e.target.clock_mhz);
            let v: Value = serde_json::from_str(&trace).unwrap();
            assert_eq!(v["otherData"]["partial"], stopped, "{name}: trace otherData.partial");
            assert_eq!(v["otherData"]["stoppedBy"].as_str(), e.stopped_by.as_deref(), "{name}: trace");
        }
        if name == "tut3" {
            let view = report::view::View::new(&name, &g, Some(&e));
            let text = serde_json::to_string_pretty(&view).unwrap() + "\n";
            testdata::check(&testdata::root().join("report/tut3.view.json"), &text);
        }
        let _ = std::fs::remove_dir_all(&tmp);
        checked += 1;
    }
    assert_eq!(checked, cases().len(), "every run case is checked");
}

#[test]
fn trace_groups_tiles_on_large_targets() {
    pin_baseline_isa();
    let dir = testdata::root().join("run/tut7_split");
    let tmp = scratch("groups");
    let (image, _) = compile(&dir);
    let trace = tmp.join("trace.json");
    let extra = ["--trace".to_string(), trace.to_string_lossy().into_owned()];
    let (code, err) = run(&dir, &image, &extra, &Default::default());
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let names: Vec<&str> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    let tiles = image.tiles.len() as u32;
    assert!(tiles > runtime::trace::MAX_TILE_TRACKS);
    assert_eq!(names.len() as u32, 2 + tiles.div_ceil(tiles.div_ceil(runtime::trace::MAX_TILE_TRACKS)));
    assert_eq!(names[..3], ["steps", "host transfers", "tiles 0-22"]);
    assert_eq!(*names.last().unwrap(), "tiles 1449-1471");
    // cpu models no cycles.
    let cpu = ["--device".to_string(), "cpu".to_string()];
    let (code, err) = run(&dir, &image, &[&cpu[..], &extra[..]].concat(), &Default::default());
    assert_eq!(code, 1);
    assert!(err.contains("--trace needs the sim device"), "{err}");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn auto_report_writes_profiles_and_page() {
    pin_baseline_isa();
    let dir = testdata::root().join("run/tut3");
    let tmp = scratch("auto");
    let (image, graph_text) = compile(&dir);
    let out = tmp.join("reports");
    let options = format!(
        r#"{{"autoReport.all":"true","autoReport.directory":{}}}"#,
        serde_json::to_string(&out.to_string_lossy()).unwrap()
    );
    let env = runtime::cli::Env { engine_options: Some(options.clone()), ..Default::default() };
    let (code, err) = run(&dir, &image, &[], &env);
    assert_eq!(code, 0, "{err}");
    assert!(out.join("execution.json").is_file());
    assert!(!out.join("report.html").exists(), "no page before the graph profile");
    // The compiler's side (poplar-compile, or poplar-run given a .pir).
    let auto = report::auto::AutoReport::from_engine_options(&options).unwrap();
    auto.write_graph(&graph_text).unwrap();
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(html.contains("\"cycles\":"), "the page has the execution data");
    // poplar-run given a .pir writes both profiles and the page, the graph
    // profile with the run's cycle estimates.
    std::fs::remove_dir_all(&out).unwrap();
    let (code, _, err) = run_out(&dir, &image, Some(&graph_text), &[], &env);
    assert_eq!(code, 0, "{err}");
    let graph = std::fs::read_to_string(out.join("graph.json")).expect("graph.json");
    let g = report::schema::parse_graph(&graph).unwrap();
    let estimates = g.compute_sets.cycle_estimates.expect("cycleEstimates after a sim run");
    assert!(estimates.cycles_by_tile.iter().flatten().any(|&c| c > 0), "{estimates:?}");
    assert!(out.join("execution.json").is_file() && out.join("report.html").is_file());
    // Typos are errors naming the key, a suggestion and the accepted keys.
    let env = runtime::cli::Env {
        engine_options: Some(r#"{"autoReport.outputExecutionProfil":"true"}"#.into()),
        ..Default::default()
    };
    let (code, err) = run(&dir, &image, &[], &env);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "poplar-run: error: unknown engine option 'autoReport.outputExecutionProfil' (did you mean \
         'autoReport.outputExecutionProfile'?); accepted options: autoReport.all, \
         autoReport.outputGraphProfile, autoReport.outputExecutionProfile, autoReport.directory\n"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn summary_of_a_prog_exe_takes_its_graph_profile() {
    pin_baseline_isa();
    let tmp = scratch("graph-profile");
    let (image, graph_text) = compile(&testdata::root().join("run/tut3"));
    let (exe, graph) = (tmp.join("prog.exe"), tmp.join("graph.json"));
    std::fs::write(&exe, image.to_bytes()).unwrap();
    std::fs::write(&graph, &graph_text).unwrap();
    let main = |extra: &[&str]| {
        let mut argv = vec![exe.to_string_lossy().into_owned(), "--summary".into()];
        argv.extend(extra.iter().map(|a| a.to_string()));
        let no_compiler = |_: &Path, _: bool| Err("no compiler".to_string());
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = runtime::cli::main(&argv, &Default::default(), &no_compiler, &mut out, &mut err);
        (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    };
    // Without it, the target alone and a note.
    let (code, out, err) = main(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Tiles per IPU:          4") && out.contains("no graph profile"), "{out}");
    assert!(!out.contains("Number of edges:"), "{out}");
    // With it, poplar-report's sections, word for word.
    let (code, out, err) = main(&["--graph-profile", &graph.to_string_lossy()]);
    assert_eq!(code, 0, "{err}");
    let g = report::schema::parse_graph(&graph_text).unwrap();
    assert!(out.contains(&report::summary::graph_summary(&g)), "{out}");
    assert!(out.contains("Total cycles:"), "{out}");
    // Another graph's profile, or no profile at all, is an error naming the file.
    let (_, other) = compile(&testdata::root().join("run/tut3_summary"));
    std::fs::write(&graph, &other).unwrap();
    let (code, _, err) = main(&["--graph-profile", &graph.to_string_lossy()]);
    assert_eq!(code, 1);
    assert!(err.contains("graph.json: the profile of another graph (image hash "), "{err}");
    assert!(err.ends_with(&format!("; this image: {})\n", image.content_hash())), "{err}");
    let other = other.replace("\"numTiles\": 4", "\"numTiles\": 5");
    std::fs::write(&graph, other).unwrap();
    let (code, _, err) = main(&["--graph-profile", &graph.to_string_lossy()]);
    assert_eq!(code, 1);
    assert!(err.contains("graph.json: the profile of another graph (target mk2 with 5 tiles"), "{err}");
    std::fs::write(&graph, "{}").unwrap();
    let (code, _, err) = main(&["--graph-profile", &graph.to_string_lossy()]);
    assert_eq!(code, 1);
    assert!(err.contains("graph.json: not a graph profile"), "{err}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The data a page embeds.
fn page_data(html: &str) -> Value {
    let start = html.find("<script id=\"profile-data\" type=\"application/json\">").expect("data element");
    let rest = &html[start..];
    serde_json::from_str(&rest[rest.find('>').unwrap() + 1..rest.find("</script>").unwrap()]).unwrap()
}

/// Audit 2026-11 (`report_stale_execution_profile`, the graphs in
/// `testdata/report/audit_stale_profile`): graph A run with autoReport into a
/// folder, then graph B compiled with autoReport into the same folder, made
/// a report of B's graph with A's cycles. Each profile now carries its
/// image's hash: B's graph profile removes A's execution profile and report,
/// `poplar-report` refuses the mixed pair naming both files, running B's
/// image completes B's report, and running A's image then removes B's.
#[test]
fn auto_report_never_mixes_graphs() {
    use report::auto::{EXECUTION_FILE, GRAPH_FILE, REPORT_FILE};
    pin_baseline_isa();
    let src = testdata::root().join("report/audit_stale_profile");
    let tmp = scratch("stale");
    let out = tmp.join("out");
    let options = format!(
        r#"{{"autoReport.all":"true","autoReport.directory":{}}}"#,
        serde_json::to_string(&out.to_string_lossy()).unwrap()
    );
    let env = runtime::cli::Env { engine_options: Some(options.clone()), ..Default::default() };
    let poplar_run = |input: &Path| {
        let argv = vec![input.to_string_lossy().into_owned()];
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let code = runtime::cli::main(&argv, &env, &compiler::compile_for_run_profiled, &mut o, &mut e);
        assert_eq!(code, 0, "{}", String::from_utf8_lossy(&e));
    };
    let files = || [GRAPH_FILE, EXECUTION_FILE, REPORT_FILE].map(|f| out.join(f).is_file());
    let hash = |file: &str| {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(out.join(file)).unwrap()).unwrap();
        v["imageHash"].as_str().expect("imageHash").to_string()
    };
    // poplar-run A.pir: both profiles of A's image, and the page.
    poplar_run(&src.join("A.pir"));
    assert_eq!(files(), [true, true, true]);
    assert_eq!(hash(GRAPH_FILE), hash(EXECUTION_FILE));
    let a_exec = tmp.join("a.execution.json");
    std::fs::copy(out.join(EXECUTION_FILE), &a_exec).unwrap();
    // poplar-compile B.pir -o B.exe, with the same options: A's execution
    // profile and the page go.
    let opts = compiler::Options { report: true, ..Default::default() };
    let b = compiler::compile_path(&src.join("B.pir"), &opts).expect("B compiles");
    let b_image = b.image.expect("image");
    let auto = report::auto::AutoReport::from_engine_options(&options).unwrap();
    auto.write_graph(b.report.as_deref().expect("graph profile")).unwrap();
    assert_eq!(files(), [true, false, false], "A's execution profile and report removed");
    assert_eq!(hash(GRAPH_FILE), b_image.content_hash());
    // B's graph profile with A's execution profile, given by hand: refused.
    let page = tmp.join("mixed.html");
    let r = std::process::Command::new(env!("CARGO_BIN_EXE_poplar-report"))
        .args([out.join(GRAPH_FILE), a_exec.clone(), "-o".into(), page.clone()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{err}");
    let (g, e) = (out.join(GRAPH_FILE), a_exec);
    let expected = format!(
        "poplar-report: error: {}: the execution profile is of another graph than the graph profile {} \
         (image hash {} in the execution profile, {} in the graph profile); give the two profiles of one \
         compiled image\n",
        e.display(),
        g.display(),
        serde_json::from_str::<Value>(&std::fs::read_to_string(&e).unwrap()).unwrap()["imageHash"]
            .as_str()
            .unwrap(),
        b_image.content_hash()
    );
    assert_eq!(err, expected);
    assert!(!page.exists(), "no page for a mixed pair");
    // poplar-run B.exe: B's execution profile joins B's graph profile.
    let b_exe = tmp.join("B.exe");
    std::fs::write(&b_exe, b_image.to_bytes()).unwrap();
    poplar_run(&b_exe);
    assert_eq!(files(), [true, true, true]);
    assert_eq!(hash(EXECUTION_FILE), b_image.content_hash());
    let data = page_data(&std::fs::read_to_string(out.join(REPORT_FILE)).unwrap());
    assert_eq!(data["variables"][0]["name"], "bbbbbb");
    let steps = data["exec"]["step_names"].to_string();
    assert!(steps.contains("bbbbbb.mul") && !steps.contains("a.add"), "{steps}");
    // poplar-run A.exe (no graph profile to write): B's graph profile and
    // page go.
    let a_image = compiler::compile_path(&src.join("A.pir"), &opts).unwrap().image.expect("image");
    let a_exe = tmp.join("A.exe");
    std::fs::write(&a_exe, a_image.to_bytes()).unwrap();
    poplar_run(&a_exe);
    assert_eq!(files(), [false, true, false], "B's graph profile and report removed");
    assert_eq!(hash(EXECUTION_FILE), a_image.content_hash());
    let _ = std::fs::remove_dir_all(&tmp);
}

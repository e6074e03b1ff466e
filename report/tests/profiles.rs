//! The report, the trace and `autoReport` on the real pipeline: every
//! `testdata/run` case that runs cleanly is compiled with its graph profile,
//! run on `sim` through `poplar-run`'s own code path with `--profile` and
//! `--trace`, and then
//! - both profiles must parse into the typed schema and agree with each
//!   other (tiles, compute sets, vertex types, per-tile array lengths);
//! - the page must embed the data, reach nothing outside itself, and carry
//!   its script and styles inline;
//! - the trace must satisfy the trace-event format (see [`check_trace`]).
//!
//! `tut3`'s page data is a golden file (`testdata/report/tut3.view.json`).

use std::path::{Path, PathBuf};

use report::schema::{CategoryTotal, ExecutionProfile, GraphProfile};
use runtime::linker::image::Image;
use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(testdata::root().join("run"))
        .expect("testdata/run")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("graph.pir").is_file())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with("err_"))
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
    let cmd = std::fs::read_to_string(dir.join("cmd")).unwrap_or_default();
    let mut argv = vec![dir.join("graph.pir").to_string_lossy().into_owned()];
    argv.extend(cmd.split_whitespace().map(|a| a.replace("$DIR", &dir.to_string_lossy())));
    argv.retain(|a| a != "--summary");
    if !argv.iter().any(|a| a.starts_with("--device")) {
        argv.extend(["--device".into(), "sim".into()]);
    }
    argv.extend(extra.iter().cloned());
    let compile = |_: &Path| Ok((image.clone(), Vec::new()));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = runtime::cli::main(&argv, env, &compile, &mut out, &mut err);
    (code, String::from_utf8_lossy(&err).into_owned())
}

fn cross_check(name: &str, g: &GraphProfile, e: &ExecutionProfile) {
    let tiles = g.target.num_tiles as usize;
    assert_eq!(e.target.num_tiles as usize, tiles, "{name}: tiles");
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
    for n in &g.programs {
        for &c in &n.children {
            assert!((c as usize) < g.programs.len(), "{name}: program child {c}");
        }
    }
    // Every recorded step lies within the run and they follow each other.
    let mut end = 0;
    for s in &e.simulation.steps {
        let from = s.cycles_from.unwrap_or_else(|| panic!("{name}: a {} step has no cyclesFrom", s.kind));
        assert!(from >= end, "{name}: steps overlap at cycle {from}");
        end = from + s.cycles;
    }
    assert!(end <= e.simulation.cycles, "{name}: steps end past the total");
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
    let eps = 1e-6;
    let mut last = 0.0f64;
    for (tid, spans) in &tracks {
        assert!(named.contains(tid), "{name}: track {tid} has no thread_name");
        for w in spans.windows(2) {
            assert!(w[0].1 <= w[1].0 + eps, "{name}: track {tid} overlaps at {} us", w[1].0);
        }
        last = last.max(spans.last().unwrap().1);
    }
    let total_us = total_cycles as f64 / clock_mhz;
    assert!(last <= total_us + eps, "{name}: trace ends at {last} us, past the run's {total_us} us");
}

#[test]
fn every_run_case_reports_and_traces() {
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
        ];
        let (code, err) = run(&dir, &image, &extra, &Default::default());
        if err.contains("--trace needs the sim device") {
            continue;
        }
        assert_eq!(code, 0, "{name}: {err}");
        let exec_text = std::fs::read_to_string(&exec).unwrap();
        let g =
            report::schema::parse_graph(&graph_text).unwrap_or_else(|e| panic!("{name}: graph profile: {e}"));
        let e = report::schema::parse_execution(&exec_text)
            .unwrap_or_else(|e| panic!("{name}: exec profile: {e}"));
        cross_check(&name, &g, &e);
        let html = report::render(&name, &g, Some(&e));
        check_page(&name, &html, &g);
        check_trace(
            &name,
            &std::fs::read_to_string(&trace).unwrap(),
            e.simulation.cycles,
            e.target.clock_mhz,
        );
        if name == "tut3" {
            let view = report::view::View::new(&name, &g, Some(&e));
            let text = serde_json::to_string_pretty(&view).unwrap() + "\n";
            testdata::check(&testdata::root().join("report/tut3.view.json"), &text);
        }
        let _ = std::fs::remove_dir_all(&tmp);
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} run cases checked");
}

#[test]
fn trace_groups_tiles_on_large_targets() {
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

//! Both devices against hand-built images whose codelet code is a few
//! hand-assembled x86-64 instructions, so the runtime is tested without the
//! compilers: results, cycle counts, determinism across thread counts,
//! faults, streams, control flow and the command line.

#![cfg(target_arch = "x86_64")]

use linker::gp::{ElemType, VertexBase};
use linker::image::*;
use runtime::{DeviceKind, Engine, EngineOptions, RunError};

mod common;
use common::*;

/// Four tiles, each with an `Inc` vertex on its word at 64; a copy from tile
/// 0's word to tile 1's word at 68; a program that runs the compute set 3
/// times, copies, prints.
fn sample() -> Image {
    let mut b = Builder::new(4);
    let inc = b.vertex_type("Inc", VertexBase::Vertex, INC, 5);
    for t in 0..4 {
        b.vertex(t, inc, 0, 64, None);
        b.vertex(t, inc, 4, 64, None);
    }
    let cs = b.compute_set("incCS", (0..4).map(|t| TileWork { tile: t, start: 0, end: 2 }).collect());
    b.image.copies.push(Exchange {
        transfers: vec![Transfer { src_tile: 0, src_offset: 64, dst_tile: 1, dst_offset: 68, bytes: 4 }],
    });
    let words: Vec<Region> = (0..4).map(|t| region(t, 64, 1)).collect();
    b.image.programs.push(Program {
        name: "main".into(),
        body: vec![
            Step::Repeat { count: 3, body: vec![Step::Execute(cs)] },
            Step::Copy(0),
            Step::Print {
                label: "words".into(),
                style: Default::default(),
                elem: ElemType::UInt,
                shape: vec![4],
                regions: words.clone(),
            },
            Step::Print {
                label: "pair".into(),
                style: Default::default(),
                elem: ElemType::UInt,
                shape: vec![1, 2],
                regions: vec![region(1, 64, 2)],
            },
        ],
    });
    b.handle("words-read", false, words.clone(), 4);
    b.handle("words-write", true, words, 4);
    b.image
}

fn engine(image: &Image, device: DeviceKind, threads: usize) -> Engine {
    let loaded = runtime::load(&image.to_bytes()).expect("load");
    Engine::new(loaded, &EngineOptions { device, threads, profile: true, ..Default::default() })
}

#[test]
fn both_devices_agree_for_any_thread_count() {
    let image = sample();
    let mut outputs = Vec::new();
    for device in [DeviceKind::Cpu, DeviceKind::Sim] {
        for threads in [1, 2, 3] {
            let mut e = engine(&image, device, threads);
            e.write_values("words-write", &[10u32, 20, 30, 40]).unwrap();
            e.run(0).unwrap();
            let out = String::from_utf8(e.take_output()).unwrap();
            assert_eq!(out, "words: {16,26,36,46}\npair: {\n {26,16}\n}\n");
            outputs.push((e.read_values::<u32>("words-read").unwrap(), e.totals().cycles));
        }
    }
    assert!(outputs[..3].iter().all(|o| o.1 == 0));
    let sim_cycles = outputs[3].1;
    assert!(outputs[3..].iter().all(|o| o.1 == sim_cycles));
    // Two 5-instruction vertices on two workers: 6 x 5 per run (the workers
    // issue in turn); three runs each with a sync; a copy: sync + 4 bytes +
    // overhead; two prints (host transfers with a sync each); each repeat
    // iteration costs its loop branch.
    let sync = u64::from(image.target.sync_cycles);
    let compute = 3 * 30 + 3 * runtime::cost::LOOP_CYCLES;
    let host = 2 * runtime::cost::host_transfer_cycles(8, 1330.0);
    let host = host - runtime::cost::host_transfer_cycles(8, 1330.0)
        + runtime::cost::host_transfer_cycles(16, 1330.0);
    let expected = compute + 3 * sync + sync + runtime::cost::exchange_tile_cycles(4, 4, 4) + 2 * sync + host;
    assert_eq!(sim_cycles, expected);
}

#[test]
fn cycles_estimates_override_counts_and_profile_is_recorded() {
    let mut image = sample();
    image.tiles[2].vertices[0].cycles = Some(100);
    let mut e = engine(&image, DeviceKind::Sim, 2);
    e.run(0).unwrap();
    let p = e.profile_json();
    let by_tile = &p["computeSetCyclesByTile"][0];
    // Tile 2: workers loads 100 and 5: 6 x 100, three runs.
    assert_eq!(by_tile[2].as_u64().unwrap(), 3 * 600);
    assert_eq!(by_tile[0].as_u64().unwrap(), 3 * 30);
    assert_eq!(p["simulation"]["cycles"].as_u64().unwrap(), e.totals().cycles);
    let summary = e.summary();
    assert!(summary.contains("Total cycles:"), "{summary}");
    assert!(summary.contains("Inc"), "{summary}");
}

#[test]
fn multivertex_runs_once_per_worker() {
    let mut b = Builder::new(1);
    let m = b.vertex_type("Multi", VertexBase::MultiVertex, MULTI, 3);
    b.vertex(0, m, 0, 64, None);
    let cs = b.compute_set("mcs", vec![TileWork { tile: 0, start: 0, end: 1 }]);
    b.image.programs.push(Program { name: "main".into(), body: vec![Step::Execute(cs)] });
    b.handle("out", false, vec![region(0, 64, 6)], 6);
    for device in [DeviceKind::Cpu, DeviceKind::Sim] {
        let mut e = engine(&b.image, device, 1);
        e.run(0).unwrap();
        assert_eq!(e.read_values::<u32>("out").unwrap(), vec![0, 1, 2, 3, 4, 5]);
        if device == DeviceKind::Sim {
            assert_eq!(e.totals().compute, 6 * 3);
        }
    }
}

fn faulty(code: &[u8]) -> Image {
    let mut b = Builder::new(3);
    let inc = b.vertex_type("Inc", VertexBase::Vertex, INC, 5);
    let bad = b.vertex_type("Bad<float>", VertexBase::Vertex, code, 1);
    b.vertex(0, inc, 0, 64, None);
    b.vertex(2, bad, 0, 64, None);
    let cs = b.compute_set(
        "failCS",
        vec![TileWork { tile: 0, start: 0, end: 1 }, TileWork { tile: 2, start: 0, end: 1 }],
    );
    b.image.programs.push(Program { name: "main".into(), body: vec![Step::Sync, Step::Execute(cs)] });
    b.image
}

#[test]
fn faults_name_tile_vertex_compute_set_and_step() {
    for device in [DeviceKind::Cpu, DeviceKind::Sim] {
        let mut e = engine(&faulty(FAIL), device, 2);
        let err = e.run(0).unwrap_err().to_string();
        assert_eq!(
            err,
            "vertex Bad<float> (id 200) on tile 2 in compute set 'failCS' failed: compute returned false; \
             at program 'main', step 1 (execute 'failCS')"
        );
        let mut e = engine(&faulty(OOB), device, 1);
        let err = e.run(0).unwrap_err();
        let RunError::Vertex { fault, .. } = &err else { panic!("{err}") };
        assert_eq!((fault.trap_addr, fault.source.clone()), (0x1234, Some(("test.cpp".into(), 7))));
        assert!(err
            .to_string()
            .contains("memory access outside the tile at tile address 0x1234, at test.cpp:7"));
    }
}

#[test]
fn streams_are_circular_and_loops_terminate() {
    let mut b = Builder::new(2);
    let inc = b.vertex_type("Inc", VertexBase::Vertex, INC, 5);
    let dec = b.vertex_type("Dec", VertexBase::Vertex, DEC, 5);
    b.vertex(0, dec, 0, 64, None); // counter on tile 0
    b.vertex(1, inc, 0, 64, None); // steps on tile 1
    let dcs = b.compute_set("dec", vec![TileWork { tile: 0, start: 0, end: 1 }]);
    let ics = b.compute_set("inc", vec![TileWork { tile: 1, start: 0, end: 1 }]);
    b.image.streams.push(Stream { name: "in".into(), to_device: true, elem: ElemType::UInt, shape: vec![3] });
    b.image.streams.push(Stream {
        name: "out".into(),
        to_device: false,
        elem: ElemType::UInt,
        shape: vec![1],
    });
    let pred = ScalarRef { tile: 0, offset: 64, elem: ElemType::UInt };
    b.image
        .functions
        .push(Program { name: "twice".into(), body: vec![Step::Execute(ics), Step::Execute(ics)] });
    b.image.programs.push(Program {
        name: "main".into(),
        body: vec![
            Step::StreamIn { stream: 0, regions: vec![region(1, 100, 3)] },
            Step::Print {
                label: "a".into(),
                style: Default::default(),
                elem: ElemType::UInt,
                shape: vec![3],
                regions: vec![region(1, 100, 3)],
            },
            Step::StreamIn { stream: 0, regions: vec![region(1, 100, 3)] },
            Step::Print {
                label: "b".into(),
                style: Default::default(),
                elem: ElemType::UInt,
                shape: vec![3],
                regions: vec![region(1, 100, 3)],
            },
            // counter = 4 from the host; while { dec } counter { inc }
            Step::While {
                cond: vec![Step::Execute(dcs)],
                pred,
                until: false,
                body: vec![Step::Execute(ics)],
            },
            Step::If { pred, then: vec![], otherwise: vec![Step::Call(0)] },
            Step::Switch {
                selector: ScalarRef { tile: 1, offset: 64, elem: ElemType::UInt },
                cases: vec![(5, vec![Step::Execute(ics)]), (6, vec![])],
                default: vec![Step::Execute(dcs)],
            },
            Step::StreamOut { stream: 1, regions: vec![region(1, 64, 1)] },
        ],
    });
    b.handle("counter", true, vec![region(0, 64, 1)], 1);
    b.handle("steps", false, vec![region(1, 64, 1)], 1);
    for device in [DeviceKind::Cpu, DeviceKind::Sim] {
        let mut e = engine(&b.image, device, 2);
        assert!(matches!(e.run(0), Err(RunError::Unconnected { .. })));
        let mut e = engine(&b.image, device, 2);
        e.connect_values("in", &[1u32, 2, 3, 4, 5]).unwrap();
        e.write_values("counter", &[4u32]).unwrap();
        e.run_named("main").unwrap();
        assert_eq!(String::from_utf8(e.take_output()).unwrap(), "a: {1,2,3}\nb: {4,5,1}\n");
        // 3 loop bodies + 2 from the function + 1 from case 5.
        assert_eq!(e.read_values::<u32>("steps").unwrap(), vec![6]);
        assert_eq!(e.read_values::<u32>("out").unwrap(), vec![6]);
    }
}

#[test]
fn max_cycles_stops_runaway_loops() {
    let mut b = Builder::new(1);
    let inc = b.vertex_type("Inc", VertexBase::Vertex, INC, 5);
    b.vertex(0, inc, 0, 64, None);
    let cs = b.compute_set("spin", vec![TileWork { tile: 0, start: 0, end: 1 }]);
    // while counter != 0 { inc }: never ends once counter is 1.
    let pred = ScalarRef { tile: 0, offset: 64, elem: ElemType::UInt };
    b.image.programs.push(Program {
        name: "main".into(),
        body: vec![
            Step::Execute(cs),
            Step::While { cond: vec![], pred, until: false, body: vec![Step::Execute(cs)] },
        ],
    });
    for device in [DeviceKind::Cpu, DeviceKind::Sim] {
        let loaded = runtime::load(&b.image.to_bytes()).unwrap();
        let mut e =
            Engine::new(loaded, &EngineOptions { device, max_cycles: Some(10_000), ..Default::default() });
        let err = e.run(0).unwrap_err();
        assert!(matches!(err, RunError::MaxCycles { limit: 10_000, .. }), "{err}");
    }
}

#[test]
fn loader_rejects_unknown_libcalls_and_bad_images() {
    let mut image = sample();
    image.code.extend_from_slice(&[0; 8]);
    let at = image.code.len() as u32 - 8;
    image.relocs.push(CodeReloc { offset: at, symbol: "system".into(), addend: 0 });
    let err = runtime::load(&image.to_bytes()).unwrap_err().to_string();
    assert!(err.contains("'system', which is not an allowed libcall"), "{err}");
    image.relocs[0].symbol = "fmaf".into();
    assert!(runtime::load(&image.to_bytes()).is_ok());
    let bytes = sample().to_bytes();
    assert!(runtime::load(&bytes[..bytes.len() - 1]).is_err());
    let mut image = sample();
    image.tiles[0].vertices[0].state = 2;
    assert!(runtime::load(&image.to_bytes()).unwrap_err().to_string().contains("misaligned state"));
}

#[test]
fn host_errors_are_clear() {
    let image = sample();
    let mut e = engine(&image, DeviceKind::Cpu, 1);
    let err = e.write_values("nope", &[1u32]).unwrap_err().to_string();
    assert_eq!(err, "unknown handle 'nope' (known: words-read, words-write)");
    assert!(e.write_values("words-write", &[1u32]).unwrap_err().to_string().contains("need 16"));
    assert!(e
        .write_values("words-write", &[1f32; 4])
        .unwrap_err()
        .to_string()
        .contains("holds uint, not float"));
    assert!(e.read("words-write").is_err());
}

#[test]
fn cli_runs_actions_in_order() {
    let dir = std::env::temp_dir().join(format!("poplar-run-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("prog.exe");
    std::fs::write(&exe, sample().to_bytes()).unwrap();
    let npy = dir.join("w.npy");
    let run = |args: &[&str], env: runtime::cli::Env| {
        let mut argv = vec![exe.to_string_lossy().to_string()];
        argv.extend(args.iter().map(|s| s.to_string()));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let no_compiler = |_: &std::path::Path, _: bool| Err("no compiler in this test".to_string());
        let code = runtime::cli::main(&argv, &env, &no_compiler, &mut out, &mut err);
        (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    };
    let npy_arg = format!("words-read={}", npy.display());
    let (code, out, err) = run(
        &[
            "--device",
            "cpu",
            "--write",
            "words-write=[1,2,3,4]",
            "--read",
            "words-read",
            "--run",
            "main",
            "--read",
            &npy_arg,
        ],
        Default::default(),
    );
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(out, "words-read: {1,2,3,4}\nwords: {7,8,9,10}\npair: {\n {8,7}\n}\n");
    // The .npy file reads back as host data.
    let (code, out, _) = run(
        &["--write", &format!("words-write={}", npy.display()), "--read", "words-read"],
        Default::default(),
    );
    assert_eq!(
        (code, out.as_str()),
        (0, "words: {13,14,15,16}\npair: {\n {14,13}\n}\nwords-read: {13,14,15,16}\n")
    );
    let (code, _, err) = run(&["--write", "words-write=[1,2]"], Default::default());
    assert_eq!(code, 1);
    assert!(err.contains("2 values given, its shape [4] of uint needs 4"), "{err}");
    let env = runtime::cli::Env { engine_options: Some("{bad".into()), ..Default::default() };
    let (code, _, err) = run(&[], env);
    assert_eq!(code, 1);
    assert!(err.contains("POPLAR_ENGINE_OPTIONS is not valid JSON"), "{err}");
    let (code, out, _) = run(&["--summary", "--device", "sim"], Default::default());
    assert_eq!(code, 0);
    assert!(out.contains("Total cycles:"));
    // The help states the trust model.
    let (code, out, _) = run(&["--help"], Default::default());
    assert_eq!(code, 0);
    assert!(out.contains("holds native machine code") && out.contains("give the graph.pir"), "{out}");
    let (code, out, _) = run(&["--list-devices"], Default::default());
    assert_eq!(code, 0);
    assert!(out.contains("none found") && out.contains("cannot drive IPU hardware"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn loader_rejects_recursive_functions() {
    let mut image = sample();
    image
        .functions
        .push(Program { name: "f".into(), body: vec![Step::Repeat { count: 1, body: vec![Step::Call(1)] }] });
    image.functions.push(Program { name: "g".into(), body: vec![Step::Call(0)] });
    let err = runtime::load(&image.to_bytes()).unwrap_err().to_string();
    assert!(err.contains("calls itself"), "{err}");
}

/// A `.pir` input's compiler warnings show at the default level (WARN), not
/// at ERR, and go where POPLAR_LOG_DEST says; log lines follow the level.
#[test]
fn cli_log_level_and_destination() {
    let dir = std::env::temp_dir().join(format!("poplar-run-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pir = dir.join("graph.pir");
    let warning = "graph.pir:2:1: warning: 4 elements of tensor `a` have no tile mapping".to_string();
    let compile = |_: &std::path::Path, _: bool| Ok((sample(), vec![warning.clone()], None));
    let run = |env: runtime::cli::Env| {
        let argv = vec![pir.to_string_lossy().to_string(), "--device".into(), "cpu".into()];
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = runtime::cli::main(&argv, &env, &compile, &mut out, &mut err);
        (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    };
    let env = |level: Option<&str>, dest: Option<&str>| runtime::cli::Env {
        log_level: level.map(str::to_string),
        log_dest: dest.map(str::to_string),
        ..Default::default()
    };
    let (code, out, err) = run(env(None, None));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(&warning) && !out.contains("warning"), "{err}");
    let (_, _, err) = run(env(Some("ERR"), None));
    assert!(!err.contains("warning"), "{err}");
    let (_, out, err) = run(env(Some("INFO"), Some("stdout")));
    assert!(out.contains(&warning) && out.contains("PO:[INFO] device cpu") && err.is_empty(), "{out}\n{err}");
    let log = dir.join("run.log");
    let (_, out, err) = run(env(Some("info"), Some(log.to_str().unwrap())));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains(&warning) && text.contains("PO:[INFO]") && !err.contains("PO:") && !out.contains("PO:")
    );
    let (code, _, err) = run(env(Some("LOUD"), None));
    assert!(code == 1 && err.contains("POPLAR_LOG_LEVEL 'LOUD'"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A compute set whose exchange in runs tile by tile gives what the whole
/// exchange first gives: the same words, cycles and profile, on both
/// devices and any thread count. Each tile receives its neighbour's word
/// at 128 (which no vertex writes) into its word at 64 and increments it.
#[test]
fn exchange_in_by_tile_matches_the_whole_exchange_first() {
    let build = |by_tile: bool| {
        let mut b = Builder::new(4);
        let inc = b.vertex_type("Inc", VertexBase::Vertex, INC, 5);
        for t in 0..4 {
            b.vertex(t, inc, 0, 64, None);
        }
        let cs = b.compute_set("incCS", (0..4).map(|t| TileWork { tile: t, start: 0, end: 1 }).collect());
        let x = &mut b.image.compute_sets[cs as usize];
        x.exchange_in.transfers = (0..4)
            .map(|t| Transfer {
                src_tile: (t + 1) % 4,
                src_offset: 128,
                dst_tile: t,
                dst_offset: 64,
                bytes: 4,
            })
            .collect();
        x.in_by_tile = by_tile;
        b.image.programs.push(Program {
            name: "main".into(),
            body: vec![Step::Repeat { count: 2, body: vec![Step::Execute(cs)] }],
        });
        b.handle("seed", true, (0..4).map(|t| region(t, 128, 1)).collect(), 4);
        b.handle("words", false, (0..4).map(|t| region(t, 64, 1)).collect(), 4);
        b.image
    };
    let mut seen = Vec::new();
    for by_tile in [false, true] {
        let image = build(by_tile);
        for device in [DeviceKind::Cpu, DeviceKind::Sim] {
            for threads in [1, 2, 3] {
                let mut e = engine(&image, device, threads);
                e.write_values("seed", &[10u32, 20, 30, 40]).unwrap();
                e.run(0).unwrap();
                let words = e.read_values::<u32>("words").unwrap();
                assert_eq!(words, [21, 31, 41, 11], "by tile {by_tile}, {device:?}, {threads} threads");
                if device == DeviceKind::Sim {
                    // The two images differ in the flag, so their hashes do.
                    let mut profile = e.profile_json();
                    profile.as_object_mut().unwrap().remove("imageHash");
                    seen.push((e.totals().cycles, e.totals().exchange, profile.to_string()));
                }
            }
        }
    }
    assert!(seen.iter().all(|s| *s == seen[0]), "sim cycles and profile differ");
}

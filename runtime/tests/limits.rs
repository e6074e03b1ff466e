//! Regression tests for the runtime findings of the hardening audit
//! (HARDENING.md): every run stops under `--max-cycles` or `--timeout`,
//! cycle totals saturate, deep control programs are bounded, output streams
//! as it is produced, and worker stacks follow the image's frames. Each
//! runs on hand-built images (no compiler) in bounded time and memory.

#![cfg(target_arch = "x86_64")]

use std::time::{Duration, Instant};

use linker::gp::{ElemType, VertexBase};
use linker::image::*;
use runtime::{DeviceKind, Engine, EngineOptions, RunError};

mod common;
use common::*;

fn engine(image: &Image, device: DeviceKind, threads: usize, max_cycles: Option<u64>) -> Engine {
    let loaded = runtime::load(&image.to_bytes()).expect("load");
    Engine::new(loaded, &EngineOptions { device, threads, max_cycles, ..Default::default() })
}

/// One tile with an `Inc` vertex at state 0 counting the word at 64.
fn one_inc(cycles: Option<u64>) -> (Builder, u32) {
    let mut b = Builder::new(1);
    let inc = b.vertex_type("Inc", VertexBase::Vertex, INC, 5);
    b.vertex(0, inc, 0, 64, cycles);
    let cs = b.compute_set("cs", vec![TileWork { tile: 0, start: 0, end: 1 }]);
    (b, cs)
}

/// Finding 2: `repeat 9223372036854775807 {}` stops under --max-cycles on
/// sim (each iteration costs a cycle) and on cpu (each costs a step).
#[test]
fn empty_repeat_stops_under_max_cycles() {
    let (mut b, _) = one_inc(None);
    b.image.programs.push(Program {
        name: "main".into(),
        body: vec![Step::Repeat { count: i64::MAX as u64, body: vec![] }],
    });
    for device in [DeviceKind::Sim, DeviceKind::Cpu] {
        let t = Instant::now();
        let err = engine(&b.image, device, 1, Some(100_000)).run(0).unwrap_err();
        assert!(matches!(err, RunError::MaxCycles { limit: 100_000, .. }), "{err}");
        assert!(err.to_string().contains("repeat 9223372036854775807"), "{err}");
        assert!(t.elapsed() < Duration::from_secs(10));
    }
}

/// Issue 10: a vertex estimated at 2^63 - 1 cycles, run three times, gives
/// saturated totals, not wrapped ones (and no overflow panic).
#[test]
fn cycle_totals_saturate() {
    let (mut b, cs) = one_inc(Some(i64::MAX as u64));
    b.image.programs.push(Program {
        name: "main".into(),
        body: vec![Step::Repeat { count: 3, body: vec![Step::Execute(cs)] }],
    });
    let loaded = runtime::load(&b.image.to_bytes()).unwrap();
    let mut e =
        Engine::new(loaded, &EngineOptions { device: DeviceKind::Sim, profile: true, ..Default::default() });
    e.run(0).unwrap();
    assert_eq!(e.totals().cycles, u64::MAX);
    assert_eq!(e.totals().compute, u64::MAX);
    let _ = e.profile_json();
    assert!(e.summary().contains("Total cycles:"));
    // --max-cycles still stops it.
    let err = engine(&b.image, DeviceKind::Sim, 1, Some(1 << 40)).run(0).unwrap_err();
    assert!(matches!(err, RunError::MaxCycles { .. }), "{err}");
}

/// `--timeout` stops either device at a step boundary.
#[test]
fn timeout_stops_either_device() {
    let (mut b, cs) = one_inc(None);
    b.image.programs.push(Program {
        name: "main".into(),
        body: vec![Step::Repeat { count: u64::MAX, body: vec![Step::Execute(cs)] }],
    });
    for device in [DeviceKind::Sim, DeviceKind::Cpu] {
        let mut e = engine(&b.image, device, 1, None);
        e.set_timeout(Duration::from_millis(200), Instant::now());
        let t = Instant::now();
        let err = e.run(0).unwrap_err();
        assert!(matches!(err, RunError::Timeout { millis: 200, .. }), "{err}");
        assert!(err.to_string().starts_with("the run exceeded --timeout 0.2 s at program 'main'"), "{err}");
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    }
}

/// Finding 6: a call chain at the depth limit runs on a 2 MiB test thread
/// (the interpreter recurses once per level); one level more is a load
/// error, as is a 10,000-deep chain.
#[test]
fn deep_call_chains_are_bounded() {
    let depth = linker::valid::MAX_CONTROL_DEPTH;
    let chain = |n: u32| {
        let (mut b, cs) = one_inc(None);
        b.image.functions.push(Program { name: "f0".into(), body: vec![Step::Execute(cs)] });
        for i in 1..n {
            b.image.functions.push(Program {
                name: format!("f{i}"),
                body: vec![Step::Repeat { count: 1, body: vec![Step::Call(i - 1)] }],
            });
        }
        b.image.programs.push(Program { name: "main".into(), body: vec![Step::Call(n - 1)] });
        b.handle("count", false, vec![region(0, 64, 1)], 1);
        b.image
    };
    // Each function is two levels (its repeat body and the call).
    let ok = chain(depth / 2);
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            for device in [DeviceKind::Sim, DeviceKind::Cpu] {
                let mut e = engine(&ok, device, 1, None);
                e.run(0).unwrap();
                assert_eq!(e.read_values::<u32>("count").unwrap(), vec![1]);
            }
        })
        .unwrap()
        .join()
        .unwrap();
    for n in [depth / 2 + 1, 10_000] {
        let err = runtime::load(&chain(n).to_bytes()).unwrap_err().to_string();
        assert!(err.contains("levels deep, more than the 1024 supported"), "{err}");
    }
}

/// Finding 7: output reaches the writer while the program runs, in bounded
/// chunks, rather than all at the end.
#[test]
fn output_streams_while_running() {
    struct Chunks(Vec<usize>);
    impl std::io::Write for Chunks {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.push(buf.len());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let (mut b, _) = one_inc(None);
    let print = Step::Print {
        label: "a".into(),
        style: Default::default(),
        elem: ElemType::UInt,
        shape: vec![4],
        regions: vec![region(0, 64, 4)],
    };
    b.image.programs.push(Program {
        name: "main".into(),
        body: vec![Step::Repeat { count: 100_000, body: vec![print] }],
    });
    let mut e = engine(&b.image, DeviceKind::Cpu, 1, None);
    let mut out = Chunks(Vec::new());
    e.run_to(0, &mut out).unwrap();
    let total: usize = out.0.iter().sum();
    assert_eq!(total, 100_000 * "a: {0,0,0,0}\n".len());
    // 1.3 MB in chunks of at most 64 KiB plus one print.
    assert!(out.0.len() >= 20, "{:?}", out.0.len());
    assert!(out.0.iter().all(|&n| n < (64 << 10) + 64), "{:?}", out.0);
    assert!(e.take_output().is_empty());
}

/// Finding 8: worker threads get stacks for the largest frame plus a margin,
/// and a vertex using nearly a whole 1 MiB frame runs on any thread count.
#[test]
fn worker_stacks_follow_the_largest_frame() {
    assert_eq!(runtime::exec::worker_stack(0), 2 << 20);
    assert_eq!(runtime::exec::worker_stack(1 << 20), 2 << 20);
    assert!(runtime::exec::worker_stack(900 << 10) >= (900 << 10) + (1 << 20));
    // mov rax, rsp; mov ecx, 240; L: sub rax, 4096; mov byte [rax], 0;
    // dec ecx; jnz L; xor eax, eax; ret -- touches 960 KiB below the stack
    // pointer, one byte per page.
    const PROBE: &[u8] = &[
        0x48, 0x89, 0xE0, 0xB9, 0xF0, 0x00, 0x00, 0x00, 0x48, 0x2D, 0x00, 0x10, 0x00, 0x00, 0xC6, 0x00, 0x00,
        0xFF, 0xC9, 0x75, 0xF3, 0x31, 0xC0, 0xC3,
    ];
    let mut b = Builder::new(2);
    let probe = b.vertex_type("Probe", VertexBase::Vertex, PROBE, 1);
    b.image.vertex_types[probe as usize].stack_size = 1 << 20;
    b.vertex(0, probe, 0, 64, None);
    b.vertex(1, probe, 0, 64, None);
    let cs = b.compute_set(
        "probe",
        vec![TileWork { tile: 0, start: 0, end: 1 }, TileWork { tile: 1, start: 0, end: 1 }],
    );
    b.image.programs.push(Program { name: "main".into(), body: vec![Step::Execute(cs)] });
    for threads in [1, 2] {
        for device in [DeviceKind::Sim, DeviceKind::Cpu] {
            engine(&b.image, device, threads, None).run(0).unwrap();
        }
    }
}

/// Finding 7: printing or reading a tensor with no elements but 10^11 rows
/// takes constant time.
#[test]
fn empty_tensors_print_at_once() {
    let (mut b, _) = one_inc(None);
    b.image.programs.push(Program {
        name: "main".into(),
        body: vec![Step::Print {
            label: "e".into(),
            style: Default::default(),
            elem: ElemType::Float,
            shape: vec![100_000_000_000, 0],
            regions: vec![],
        }],
    });
    let mut e = engine(&b.image, DeviceKind::Sim, 1, None);
    let t = Instant::now();
    e.run(0).unwrap();
    assert_eq!(String::from_utf8(e.take_output()).unwrap(), "e: {}\n");
    assert!(t.elapsed() < Duration::from_secs(1));
}

/// Finding 5: an oversized remote buffer, used or not, is a load error,
/// not an abort.
#[test]
fn oversized_remote_buffers_do_not_load() {
    let (mut b, _) = one_inc(None);
    b.image.remote_buffers.push(RemoteBuffer {
        name: "rb".into(),
        elem: ElemType::Float,
        shape: vec![4_000_000_000],
        repeats: 4_000_000_000,
    });
    let err = runtime::load(&b.image.to_bytes()).unwrap_err().to_string();
    assert!(err.contains("remote buffer 'rb'") && err.contains("8 GiB limit"), "{err}");
}

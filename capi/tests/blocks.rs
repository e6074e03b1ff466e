//! The lightweight profiler (`runtime::blocks`) on a PIR graph with named
//! blocks, run on `sim`: which blocks each filter records and on which
//! tiles, their cycles against the run's, host transfers' phases, flushes
//! and their cost, overflows, the same records on any thread count, and
//! the options' errors. (`sdk/tests/blocks.cpp` checks the same through the
//! C++ API.)

use runtime::blocks::{BlockKind, BlockOptions, BlockRecord};
use runtime::cost;
use runtime::{DeviceKind, Engine, EngineOptions};

const CODELETS: &str = r#"
#include <poplar/Vertex.hpp>
using namespace poplar;
class Add : public Vertex {
public:
  InOut<int> n;
  int step;
  void compute() { *n += step; }
};
"#;

/// Two IPUs of four tiles: `a` computes on IPU 0, `b` on IPU 1, and a
/// stream lands on tile 1 (IPU 0).
const GRAPH: &str = r#"
target mk2(ipus = 2, tiles_per_ipu = 4)
codelets "codelets.cpp"
var n: int @ tile 0 = 0
var m: int @ tile 4 = 0
var x: int[1] @ tile 1 = 0
stream "in": int[1] from host
compute_set a { vertex Add @ tile 0 { n = n, step = 1 } cycles 100 }
compute_set b { vertex Add @ tile 4 { n = m, step = 1 } cycles 200 }
program main {
  block "all" {
    repeat 3 {
      block "stage1" { execute a }
      block "stage2" { execute b }
    }
    copy "in" -> x
  }
}
"#;

/// The graph compiled once (the tests run in parallel).
fn image() -> linker::image::Image {
    static IMAGE: std::sync::OnceLock<linker::image::Image> = std::sync::OnceLock::new();
    IMAGE
        .get_or_init(|| {
            let dir = std::env::temp_dir().join(format!("poplar-rs-blocks-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("codelets.cpp"), CODELETS).unwrap();
            let pir = dir.join("graph.pir");
            std::fs::write(&pir, GRAPH).unwrap();
            let image = compiler::compile_for_run(&pir).unwrap().0;
            let _ = std::fs::remove_dir_all(&dir);
            image
        })
        .clone()
}

/// Runs the graph once with these profiler options and `threads` threads.
fn run(blocks: BlockOptions, threads: usize) -> Engine {
    let loaded = runtime::load_image(image()).unwrap();
    let opts = EngineOptions { device: DeviceKind::Sim, threads, blocks, ..Default::default() };
    let mut e = Engine::new(loaded, &opts);
    e.connect_values("in", &[7i32]).unwrap();
    e.run(0).unwrap();
    e
}

fn stages() -> BlockOptions {
    BlockOptions { blocks_filter: Some("stage.|all".into()), implicit_flush: false, ..Default::default() }
}

fn named(e: &Engine, tile: u32) -> Vec<(String, BlockRecord)> {
    let tree = e.program_tree();
    e.blocks()
        .unwrap()
        .into_iter()
        .filter(|b| b.tile == tile)
        .map(|b| (b.program.and_then(|p| tree.nodes[p as usize].name.clone()).unwrap_or_default(), b))
        .collect()
}

#[test]
fn a_block_is_recorded_on_one_tile_of_each_ipu_it_uses() {
    let e = run(stages(), 1);
    let names = |t| named(&e, t).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
    assert_eq!(names(0), ["all", "stage1", "stage1", "stage1"]);
    assert_eq!(names(4), ["all", "stage2", "stage2", "stage2"]);
    // Tile 1 holds the stream's data but is no IPU's profiling tile.
    assert!(names(1).is_empty());
    assert!(e.blocks().unwrap().iter().all(|b| b.kind == BlockKind::Common));

    // The block around the whole program spans the run's cycles.
    let all = named(&e, 0)[0].1;
    assert_eq!((all.from, all.to), (0, e.totals().cycles));
    assert_eq!(named(&e, 4)[0].1, BlockRecord { tile: 4, ..all });
    // Stages run one after another inside it, each as long each time.
    let mut spans: Vec<BlockRecord> =
        named(&e, 0)[1..].iter().chain(&named(&e, 4)[1..]).map(|b| b.1).collect();
    spans.sort_by_key(|b| b.from);
    for w in spans.windows(2) {
        assert!(w[0].to <= w[1].from, "{w:?}");
    }
    assert!(spans.iter().all(|b| all.from <= b.from && b.to <= all.to && b.from < b.to));
    let len = |b: &BlockRecord| b.to - b.from;
    assert!(spans.iter().filter(|b| b.tile == 0).all(|b| len(b) == len(&spans[0])));
    assert!(len(&spans[1]) > len(&spans[0]), "b's 200-cycle vertex outlasts a's 100");
}

#[test]
fn no_filter_records_nothing_and_costs_nothing() {
    let plain = run(BlockOptions::default(), 1);
    assert_eq!(plain.blocks(), None);
    let recorded = run(stages(), 1);
    assert_eq!(plain.totals().cycles, recorded.totals().cycles);
}

#[test]
fn the_programs_filter_makes_implicit_blocks() {
    let e = run(BlockOptions { programs_filter: Some("b".into()), ..stages() }, 1);
    let on4: Vec<String> = named(&e, 4).into_iter().map(|(n, _)| n).collect();
    // Each `execute b` within its stage2 block, after it.
    assert_eq!(on4, ["all", "stage2", "b", "stage2", "b", "stage2", "b"]);
    let n = named(&e, 4);
    assert!(n[2].1.from >= n[1].1.from && n[2].1.to == n[1].1.to);
    // A filter matches whole names: "stage" is no block's name.
    let e = run(BlockOptions { blocks_filter: Some("stage".into()), ..stages() }, 1);
    assert_eq!(e.blocks(), Some(vec![]));
}

#[test]
fn host_transfers_record_three_phases_on_their_tiles() {
    let e = run(BlockOptions { external: true, ..stages() }, 1);
    let on1 = named(&e, 1);
    let kinds: Vec<BlockKind> = on1.iter().map(|b| b.1.kind).collect();
    assert_eq!(kinds, [BlockKind::StreamCopyBegin, BlockKind::StreamCopyMid, BlockKind::StreamCopyEnd]);
    assert!(on1.iter().all(|(n, _)| n == "in"));
    let [b, m, end] = [on1[0].1, on1[1].1, on1[2].1];
    assert_eq!((b.to, m.to), (m.from, end.from));
    let target = &e.image().target;
    assert_eq!(b.to - b.from, u64::from(target.sync_cycles));
    assert_eq!(end.to - m.from, cost::host_transfer_cycles(4, target.clock_mhz));
    assert_eq!(m.to - m.from, cost::host_transfer_data_cycles(4, target.clock_mhz));
    assert_eq!(end.to, e.totals().cycles);
}

#[test]
fn loops_flush_the_buffers_as_host_transfers() {
    let flushed = run(BlockOptions { implicit_flush: true, external: true, ..stages() }, 1);
    let kept = run(BlockOptions { implicit_flush: false, external: true, ..stages() }, 1);
    // Three iterations, each a sync and a transfer of the buffers of tiles
    // 0, 1 and 4.
    let target = &flushed.image().target;
    let flush = u64::from(target.sync_cycles) + cost::host_transfer_cycles(3 * 1000, target.clock_mhz);
    assert_eq!(flushed.totals().cycles, kept.totals().cycles + 3 * flush);
    for tile in [0, 1, 4] {
        let flushes = named(&flushed, tile).iter().filter(|b| b.1.kind == BlockKind::FlushMid).count();
        assert_eq!(flushes, 3, "tile {tile}");
    }
    assert!(!kept.blocks().unwrap().iter().any(|b| b.kind == BlockKind::FlushBegin));
}

#[test]
fn a_full_buffer_drops_blocks_into_one_overflow() {
    let small = BlockOptions { buffer_bytes: 2 * runtime::blocks::RECORD_BYTES, ..stages() };
    let e = run(small.clone(), 1);
    let on0 = named(&e, 0);
    let kinds: Vec<BlockKind> = on0.iter().map(|b| b.1.kind).collect();
    // Stage1 ends three times before "all": the first two fit.
    assert_eq!(kinds, [BlockKind::Overflow, BlockKind::Common, BlockKind::Common]);
    let all = named(&run(stages(), 1), 0);
    assert_eq!((on0[0].1.from, on0[0].1.to), (all[0].1.from, all[0].1.to), "the overflow spans the dropped");
    // Flushed every iteration, the same buffer loses nothing.
    let e = run(BlockOptions { implicit_flush: true, ..small }, 1);
    assert!(!e.blocks().unwrap().iter().any(|b| b.kind == BlockKind::Overflow));
}

#[test]
fn records_are_the_same_on_any_thread_count() {
    let opts = BlockOptions {
        external: true,
        implicit_flush: true,
        programs_filter: Some("a|b".into()),
        ..stages()
    };
    let one = run(opts.clone(), 1);
    let three = run(opts, 3);
    assert_eq!(one.blocks(), three.blocks());
    assert_eq!(one.totals().cycles, three.totals().cycles);
}

#[test]
fn options_are_checked() {
    let mut o = EngineOptions::default();
    let e = o.apply_json(r#"{"profiler.blocks.filter": "stage("}"#).unwrap_err();
    assert!(e.contains("'profiler.blocks.filter' is not a regular expression"), "{e}");
    let e = o.apply_json(r#"{"profiler.blocks.tile": "x"}"#).unwrap_err();
    assert!(e.contains("'profiler.blocks.tile' must be a count"), "{e}");
    o.apply_json(r#"{"profiler.programs.filter": "op", "profiler.blocks.implicitFlush": "false"}"#).unwrap();
    assert_eq!(o.blocks.programs_filter.as_deref(), Some("op"));
    assert!(!o.blocks.implicit_flush);
    // A tile past an IPU's four.
    let loaded = runtime::load_image(image()).unwrap();
    let blocks = BlockOptions { tile: 4, ..stages() };
    let mut e = Engine::new(loaded, &EngineOptions { blocks, ..Default::default() });
    let why = e.blocks_error().unwrap().to_string();
    assert!(why.contains("'profiler.blocks.tile' is 4, but an IPU of the target has 4 tiles"), "{why}");
    assert!(e.run(0).unwrap_err().to_string().contains(&why));
}

#[test]
fn the_cpu_device_records_no_blocks() {
    let loaded = runtime::load_image(image()).unwrap();
    let opts = EngineOptions { device: DeviceKind::Cpu, blocks: stages(), ..Default::default() };
    let mut e = Engine::new(loaded, &opts);
    e.connect_values("in", &[7i32]).unwrap();
    e.run(0).unwrap();
    assert_eq!(e.blocks(), None);
}

#[test]
fn the_execution_profile_lists_the_blocks() {
    let loaded = runtime::load_image(image()).unwrap();
    let opts =
        EngineOptions { device: DeviceKind::Sim, profile: true, blocks: stages(), ..Default::default() };
    let mut e = Engine::new(loaded, &opts);
    e.connect_values("in", &[7i32]).unwrap();
    e.run(0).unwrap();
    let p: report::schema::ExecutionProfile = serde_json::from_value(e.profile_json()).unwrap();
    let records = e.blocks().unwrap();
    assert_eq!(p.blocks.len(), records.len());
    let first = &p.blocks[0];
    assert_eq!((first.tile, first.kind.as_str(), first.cycles_to), (0, "Common", e.totals().cycles));
    let node = first.program.unwrap() as usize;
    assert_eq!(e.program_tree().nodes[node].name.as_deref(), Some("all"));
    // The steps and control cycles still add up to the run's.
    let steps: u64 = p.simulation.steps.iter().map(|s| s.cycles).sum();
    assert_eq!(steps + p.simulation.control_cycles, p.simulation.cycles);
}

#[test]
fn a_flush_is_a_step_of_the_execution_profile() {
    let loaded = runtime::load_image(image()).unwrap();
    let blocks = BlockOptions { implicit_flush: true, ..stages() };
    let opts = EngineOptions { device: DeviceKind::Sim, profile: true, blocks, ..Default::default() };
    let mut e = Engine::new(loaded, &opts);
    e.connect_values("in", &[7i32]).unwrap();
    e.run(0).unwrap();
    let p: report::schema::ExecutionProfile = serde_json::from_value(e.profile_json()).unwrap();
    let flushes = p.simulation.steps.iter().filter(|s| s.name.as_deref() == Some("BlockFlush")).count();
    assert_eq!(flushes, 3);
    let steps: u64 = p.simulation.steps.iter().map(|s| s.cycles).sum();
    assert_eq!(steps + p.simulation.control_cycles, p.simulation.cycles);
}

//! The C++ host API: building a graph through `poplar::Graph` calls and
//! compiling it, against the same graph from a PIR file and a plain C++
//! loop writing the same records into vectors; and the cost of one
//! `Engine::run` + `readTensor` on a tiny program, against one
//! `poplar-run` of the same program from the command line.
//!
//! Builds `libpoplar` (the `capi` cdylib) and `poplar-compile` in release
//! mode, and a C++ driver (`HOST_DRIVER`, g++ -O2) that builds the graph in
//! one of three ways. The graph: `n` `Scale` vertices, each on a 4-element
//! slice of one tensor mapped linearly, on tile `i mod tiles`, with its
//! plain field set. Without g++ the section says so.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::compile_bench::BIG_CODELETS;
use crate::tools::{cargo, timed, Stats};

/// The driver: `driver api|vectors|pir N [out]`, `driver engine R`.
const HOST_DRIVER: &str = r#"// The host API benchmark's driver (bench/src/host_api_bench.rs).
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;

static double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// What a graph builder must keep per vertex, written to plain vectors.
struct Record {
  std::string type;
  unsigned computeSet;
  std::size_t begin, end;
  float k;
  unsigned tile;
};

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  std::string mode = argv[1];
  std::size_t n = std::strtoull(argv[2], nullptr, 10);
  poplar::IPUModel ipu;
  poplar::Device device = ipu.createDevice();
  unsigned tiles = device.getTarget().getNumTiles();
  if (mode == "engine") {
    poplar::Graph graph(device.getTarget());
    poplar::Tensor t = graph.addVariable(poplar::FLOAT, {4}, "t");
    graph.setTileMapping(t, 0);
    graph.createHostWrite("t-write", t);
    graph.createHostRead("t-read", t);
    poplar::Tensor c = graph.addConstant<float>(poplar::FLOAT, {4}, {1, 2, 3, 4});
    graph.setTileMapping(c, 0);
    poplar::Engine engine(graph, poplar::program::Copy(c, t));
    engine.load(device);
    std::vector<float> out(4);
    engine.run(0);
    Clock::time_point t0 = Clock::now();
    for (std::size_t i = 0; i < n; ++i) {
      engine.run(0);
      engine.readTensor("t-read", out.data(), out.data() + out.size());
    }
    std::printf("%.9f\n", since(t0) / n);
    return out[3] == 4 ? 0 : 1;
  }
  if (mode == "vectors") {
    Clock::time_point t0 = Clock::now();
    std::vector<Record> records;
    for (std::size_t i = 0; i < n; ++i)
      records.push_back(Record{"Scale", 0, 4 * i, 4 * i + 4, 2.0f, static_cast<unsigned>(i % tiles)});
    std::printf("%.6f 0\n", since(t0));
    return records.size() == n ? 0 : 1;
  }
  if (mode == "pir") {
    std::ofstream out(argv[3]);
    out << "target mk2\ncodelets \"big_codelets.cpp\"\nvar data: float[" << 4 * n << "]\nmap data -> linear\n"
        << "compute_set cs {\n";
    for (std::size_t i = 0; i < n; ++i)
      out << "  vertex Scale @ tile " << i % tiles << " { data = data[" << 4 * i << ":" << 4 * i + 4
          << "], k = 2.0 }\n";
    out << "}\nprogram main { execute cs }\n";
    return out ? 0 : 1;
  }
  Clock::time_point t0 = Clock::now();
  poplar::Graph graph(device.getTarget());
  graph.addCodelets("big_codelets.cpp");
  poplar::Tensor data = graph.addVariable(poplar::FLOAT, {4 * n}, "data");
  poputil::mapTensorLinearly(graph, data);
  poplar::ComputeSet cs = graph.addComputeSet("cs");
  for (std::size_t i = 0; i < n; ++i) {
    poplar::VertexRef v = graph.addVertex(cs, "Scale");
    graph.connect(v["data"], data.slice(4 * i, 4 * i + 4));
    graph.setInitialValue(v["k"], 2.0f);
    graph.setTileMapping(v, static_cast<unsigned>(i % tiles));
  }
  double build = since(t0);
  Clock::time_point t1 = Clock::now();
  poplar::Executable exe = poplar::compileGraph(graph, {poplar::program::Execute(cs)});
  std::printf("%.6f %.6f\n", build, since(t1));
  return 0;
}
"#;

/// Runs the benchmark; rows of (benchmark, figure).
pub fn run(quick: bool) -> Vec<(String, String)> {
    match run_inner(quick) {
        Ok(rows) => rows,
        Err(e) => vec![("host API".into(), format!("failed: {e}"))],
    }
}

/// Runs the driver in `dir`; its stdout's numbers.
fn driver(exe: &Path, dir: &Path, args: &[&str]) -> Result<Vec<f64>, String> {
    let o = Command::new(exe).args(args).current_dir(dir).output().map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(format!("driver {args:?} failed: {}", String::from_utf8_lossy(&o.stderr)));
    }
    Ok(String::from_utf8_lossy(&o.stdout).split_whitespace().filter_map(|w| w.parse().ok()).collect())
}

fn run_inner(quick: bool) -> Result<Vec<(String, String)>, String> {
    if !Command::new("g++").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Ok(vec![("host API".into(), "skipped: g++ absent".into())]);
    }
    cargo(&["build", "--release", "-q", "-p", "capi", "-p", "compiler", "-p", "poplar-run"])?;
    let root = std::env::current_dir().map_err(|e| e.to_string())?;
    let lib = root.join("target/release");
    let dir = PathBuf::from("target/bench/host_api");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("big_codelets.cpp"), BIG_CODELETS).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("driver.cpp"), HOST_DRIVER).map_err(|e| e.to_string())?;
    let exe = root.join(&dir).join("driver");
    let st = Command::new("g++")
        .args(["-std=c++11", "-O2", "-I"])
        .arg(root.join("sdk/include"))
        .arg(dir.join("driver.cpp"))
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lpoplar", "-o"])
        .arg(&exe)
        .status()
        .map_err(|e| e.to_string())?;
    if !st.success() {
        return Err("g++ could not build the driver".into());
    }
    let n: u64 = if quick { 10_000 } else { 1_000_000 };
    let reps = if quick { 1 } else { 3 };
    let ns = n.to_string();
    let mut build = Vec::new();
    let mut compile = Vec::new();
    let mut total = Vec::new();
    let mut vectors = Vec::new();
    let mut pir = Vec::new();
    let pir_file = format!("api{n}.pir");
    driver(&exe, &dir, &["pir", &ns, &pir_file])?;
    let compiler = root.join("target/release/poplar-compile");
    for _ in 0..reps {
        let t = driver(&exe, &dir, &["api", &ns])?;
        let (b, c) = (t.first().copied().unwrap_or(0.0), t.get(1).copied().unwrap_or(0.0));
        build.push(b);
        compile.push(c);
        total.push(b + c);
        vectors.push(driver(&exe, &dir, &["vectors", &ns])?.first().copied().unwrap_or(0.0));
        let out = dir.join("api.exe");
        pir.push(
            timed(&compiler, &[dir.join(&pir_file).as_os_str(), "-o".as_ref(), out.as_os_str()])?.wall_s,
        );
    }
    let (build, compile, total) = (Stats::of(build), Stats::of(compile), Stats::of(total));
    let (vectors, pir) = (Stats::of(vectors), Stats::of(pir));
    let mut rows = vec![
        (format!("{n} vertices built through the C++ API (addVertex + connect + setInitialValue + setTileMapping), median of {reps}"), format!("{:.3} s (min {:.3}, max {:.3})", build.median, build.min, build.max)),
        (format!("{n} vertices: the same records pushed into std::vectors (g++ -O2)"), format!("{:.4} s; API build / vectors = {:.1}x", vectors.median, build.median / vectors.median.max(1e-9))),
        (format!("{n} vertices: compileGraph of the API-built graph"), format!("{:.3} s (min {:.3}, max {:.3})", compile.median, compile.min, compile.max)),
        (format!("{n} vertices: poplar-compile of the same graph as PIR (process, parse + compile)"), format!("{:.3} s; API build + compile / PIR = {:.2}x", pir.median, total.median / pir.median.max(1e-9))),
    ];
    // Engine::run + readTensor, against a poplar-run process doing the same.
    let calls = if quick { 100 } else { 10_000 };
    let per_call = Stats::of(
        (0..reps)
            .map(|_| {
                driver(&exe, &dir, &["engine", &calls.to_string()]).map(|v| v.first().copied().unwrap_or(0.0))
            })
            .collect::<Result<Vec<_>, _>>()?,
    );
    let tiny = dir.join("tiny.pir");
    std::fs::write(&tiny, "target mk2\nvar t: float[4]\nconst c: float[4] = [1, 2, 3, 4]\nmap t -> tile 0\nmap c -> tile 0\nhost_read \"t-read\" <- t\nprogram main { copy c -> t }\n").map_err(|e| e.to_string())?;
    let tiny_exe = dir.join("tiny.exe");
    timed(&compiler, &[tiny.as_os_str(), "-o".as_ref(), tiny_exe.as_os_str()])?;
    let run = root.join("target/release/poplar-run");
    let cli = Stats::of(
        (0..if quick { 2 } else { 10 })
            .map(|_| {
                timed(
                    &run,
                    &[
                        tiny_exe.as_os_str(),
                        "--run".as_ref(),
                        "main".as_ref(),
                        "--read".as_ref(),
                        "t-read".as_ref(),
                    ],
                )
                .map(|t| t.wall_s)
            })
            .collect::<Result<Vec<_>, _>>()?,
    );
    rows.push((
        format!("Engine::run + readTensor on a tiny program (sim), per call, {calls} calls"),
        format!("{:.2} µs", per_call.median * 1e6),
    ));
    rows.push((
        "poplar-run of the same program (a process: load, run, read)".into(),
        format!(
            "{:.2} ms: {:.0}x one Engine::run + readTensor",
            cli.median * 1e3,
            cli.median / per_call.median.max(1e-12)
        ),
    ));
    Ok(rows)
}

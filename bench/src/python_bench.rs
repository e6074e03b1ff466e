//! The Python package: one `engine.run` + `engine.read` on a tiny program
//! against the C++ API's `Engine::run` + `readTensor` (the host API
//! section's driver, when it was built in this run), and a graph of `n`
//! `Scale` vertices built from Python loops and compiled, against the same
//! graph as PIR text through `poplar-compile`.
//!
//! Uses a Python that imports `poplar` (`tools::python_with`; installed
//! with `pip install ./python`); otherwise the section says so.

use std::path::Path;
use std::process::Command;

use crate::compile_bench::BIG_CODELETS;
use crate::tools::{cargo, python_with, timed, Stats};

/// The driver: `driver.py engine R` prints seconds per call; `driver.py
/// build N OUT.pir` prints build and compile seconds and writes the PIR.
const PY_DRIVER: &str = r#"# The Python benchmark's driver (bench/src/python_bench.rs).
import sys
import time

import numpy as np

import poplar

mode, n = sys.argv[1], int(sys.argv[2])
device = poplar.Device.ipu_model()
if mode == "engine":
    g = poplar.Graph(device.target)
    t = g.add_variable(np.float32, [4], "t")
    g.set_tile_mapping(t, 0)
    g.create_host_write("t-write", t)
    g.create_host_read("t-read", t)
    c = g.add_constant(np.float32, [4], [1, 2, 3, 4])
    g.set_tile_mapping(c, 0)
    e = poplar.Engine(g, [poplar.Copy(c, t)], device=device, options={"debug.instrument": False})
    e.run(0)
    t0 = time.perf_counter()
    for _ in range(n):
        e.run(0)
        out = e.read("t-read")
    print("%.9f" % ((time.perf_counter() - t0) / n))
    sys.exit(0 if out[3] == 4 else 1)
t0 = time.perf_counter()
g = poplar.Graph(device.target)
g.add_codelets("big_codelets.cpp")
data = g.add_variable(np.float32, [4 * n], "data")
g.map_linearly(data)
cs = g.add_compute_set("cs")
tiles = device.target.num_tiles
for i in range(n):
    v = g.add_vertex(cs, "Scale")
    g.connect(v, "data", data[4 * i : 4 * i + 4])
    g.connect(v, "k", 2.0)
    g.set_tile_mapping(v, i % tiles)
build = time.perf_counter() - t0
prog = poplar.Execute(cs)
t1 = time.perf_counter()
poplar.Engine(g, [prog])
compile_s = time.perf_counter() - t1
with open(sys.argv[3], "w") as f:
    f.write(g.to_pir([prog]))
print("%.6f %.6f" % (build, compile_s))
"#;

/// Runs the benchmark; rows of (benchmark, figure).
pub fn run(quick: bool) -> Vec<(String, String)> {
    match run_inner(quick) {
        Ok(rows) => rows,
        Err(e) => vec![("Python package".into(), format!("failed: {e}"))],
    }
}

fn numbers(exe: &Path, args: &[&str], dir: &Path) -> Result<Vec<f64>, String> {
    let o = Command::new(exe).args(args).current_dir(dir).output().map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(format!("{} {args:?} failed: {}", exe.display(), String::from_utf8_lossy(&o.stderr)));
    }
    Ok(String::from_utf8_lossy(&o.stdout).split_whitespace().filter_map(|w| w.parse().ok()).collect())
}

fn run_inner(quick: bool) -> Result<Vec<(String, String)>, String> {
    let root = std::env::current_dir().map_err(|e| e.to_string())?;
    let Some(py) = python_with("poplar") else {
        return Ok(vec![(
            "Python package".into(),
            "skipped: no Python imports poplar (pip install ./python, or set POPLAR_PYTHON)".into(),
        )]);
    };
    cargo(&["build", "--release", "-q", "-p", "compiler"])?;
    let dir = root.join("target/bench/python");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("big_codelets.cpp"), BIG_CODELETS).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("driver.py"), PY_DRIVER).map_err(|e| e.to_string())?;
    let reps = if quick { 1 } else { 3 };
    let calls = if quick { 100 } else { 10_000 };
    let per_call = Stats::of(
        (0..reps)
            .map(|_| numbers(&py, &["driver.py", "engine", &calls.to_string()], &dir).map(|v| v[0]))
            .collect::<Result<Vec<_>, _>>()?,
    );
    let mut rows = vec![(
        format!("Python engine.run + engine.read on a tiny program (sim), per call, {calls} calls"),
        format!("{:.2} µs", per_call.median * 1e6),
    )];
    // The C++ figure, measured now with the host API section's driver.
    let cpp_driver = root.join("target/bench/host_api/driver");
    if cpp_driver.exists() {
        let cpp = Stats::of(
            (0..reps)
                .map(|_| {
                    numbers(&cpp_driver, &["engine", &calls.to_string()], &root.join("target/bench/host_api"))
                        .map(|v| v[0])
                })
                .collect::<Result<Vec<_>, _>>()?,
        );
        rows.push((
            "the same through the C++ API (Engine::run + readTensor), measured in this run".into(),
            format!(
                "{:.2} µs; Python / C++ = {:.1}x",
                cpp.median * 1e6,
                per_call.median / cpp.median.max(1e-12)
            ),
        ));
    }
    let n: u64 = if quick { 10_000 } else { 100_000 };
    let mut build = Vec::new();
    let mut compile = Vec::new();
    let mut pir = Vec::new();
    let compiler = root.join("target/release/poplar-compile");
    for _ in 0..reps {
        let v = numbers(&py, &["driver.py", "build", &n.to_string(), "py.pir"], &dir)?;
        build.push(v[0]);
        compile.push(v[1]);
        let out = dir.join("py.exe");
        pir.push(timed(&compiler, &[dir.join("py.pir").as_os_str(), "-o".as_ref(), out.as_os_str()])?.wall_s);
    }
    let (build, compile, pir) = (Stats::of(build), Stats::of(compile), Stats::of(pir));
    rows.push((
        format!("{n} vertices built from Python loops (add_vertex + connect x2 + set_tile_mapping), median of {reps}"),
        format!("{:.3} s (min {:.3}, max {:.3}); {:.2} µs per vertex", build.median, build.min, build.max, build.median / n as f64 * 1e6),
    ));
    rows.push((
        format!("{n} vertices: Engine(graph) compile of the Python-built graph"),
        format!("{:.3} s", compile.median),
    ));
    rows.push((
        format!("{n} vertices: poplar-compile of the same graph as PIR text (process, parse + compile)"),
        format!(
            "{:.3} s; Python build + compile / PIR = {:.2}x",
            pir.median,
            (build.median + compile.median) / pir.median.max(1e-9)
        ),
    ));
    Ok(rows)
}

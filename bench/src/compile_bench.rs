//! Graph compiler benchmark: `poplar-compile` on the generated big graph.
//!
//! Builds `poplar-compile` and `ir`'s `gen_big` example in release mode,
//! generates graphs of 100k and 1M `Scale` vertices (plus a 640-vertex
//! matrix-vector product and its reduction, on a 16M-element tensor mapped
//! linearly over 1472 tiles), writes the codelets they name, and compiles
//! each end to end to `prog.exe` under `/usr/bin/time -v` (when present) for
//! wall time and peak memory, three times (once with `--quick`). Figures:
//! median wall time with min and max, vertices/s and MB/s per size, the 1M/100k
//! growth (linear is 10x), peak RSS, image bytes per vertex, and the time of
//! each pass at 1M (`--time-passes`). `--quick` uses 10k and 100k vertices.
//! The full run also compiles a 10M-vertex graph once (650 MB of PIR,
//! written to the system's temporary folder and removed after), for its
//! wall time, peak memory and the 10M/1M growth.

use std::path::{Path, PathBuf};

use crate::tools::{cargo, generate_big, pass_times, timed, Stats};

/// The codelets `gen_big`'s graph names.
pub const BIG_CODELETS: &str = r#"// Codelets for the compiler benchmark's generated graph.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Scale : public Vertex {
public:
  InOut<Vector<float>> data;
  float k;
  void compute() {
    for (unsigned i = 0; i < data.size(); ++i)
      data[i] *= k;
  }
};

class DotProduct : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> v;
  Output<Vector<float>> out;
  void compute() {
    unsigned n = v.size();
    for (unsigned i = 0; i < out.size(); ++i) {
      float s = 0;
      for (unsigned j = 0; j < n; ++j)
        s += a[i * n + j] * v[j];
      out[i] = s;
    }
  }
};

class ReduceAdd : public Vertex {
public:
  Input<Vector<float>> partials;
  Output<Vector<float>> out;
  void compute() {
    unsigned n = partials.size() / out.size();
    for (unsigned i = 0; i < out.size(); ++i) {
      float s = 0;
      for (unsigned j = 0; j < n; ++j)
        s += partials[i * n + j];
      out[i] = s;
    }
  }
};
"#;

struct Measured {
    wall_s: f64,
    peak_kib: Option<u64>,
    exe_bytes: u64,
    passes: Vec<(String, String)>,
}

fn compile_once(exe: &Path, pir: &Path, out: &Path) -> Result<Measured, String> {
    let t = timed(exe, &[pir.as_os_str(), "-o".as_ref(), out.as_os_str(), "--time-passes".as_ref()])?;
    let passes = pass_times(&t.stderr).map(|(name, ms)| (name.to_string(), format!("{ms:.3} ms"))).collect();
    let exe_bytes = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    Ok(Measured { wall_s: t.wall_s, peak_kib: t.peak_kib, exe_bytes, passes })
}

/// Runs the benchmark; rows of (benchmark, figure).
pub fn run(quick: bool) -> Vec<(String, String)> {
    match run_inner(quick) {
        Ok(rows) => rows,
        Err(e) => vec![("poplar-compile".into(), format!("failed: {e}"))],
    }
}

fn run_inner(quick: bool) -> Result<Vec<(String, String)>, String> {
    cargo(&["build", "--release", "-q", "-p", "compiler", "--bin", "poplar-compile"])?;
    cargo(&["build", "--release", "-q", "-p", "ir", "--example", "gen_big"])?;
    let dir = PathBuf::from("target/bench");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("big_codelets.cpp"), BIG_CODELETS).map_err(|e| e.to_string())?;
    let compile = PathBuf::from("target/release/poplar-compile");
    let (small, large) = if quick { (10_000u64, 100_000u64) } else { (100_000, 1_000_000) };
    let reps = if quick { 1 } else { 3 };
    let mut rows = Vec::new();
    let mut walls = Vec::new();
    for n in [small, large] {
        let pir = generate_big(&dir, n)?;
        let mb = std::fs::metadata(&pir).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
        let out = dir.join(format!("big{n}.exe"));
        let runs = (0..reps).map(|_| compile_once(&compile, &pir, &out)).collect::<Result<Vec<_>, _>>()?;
        let wall = Stats::of(runs.iter().map(|m| m.wall_s).collect());
        let m = &runs[0];
        let vertices = n + 650;
        rows.push((
            format!("poplar-compile {n} vertices ({mb:.1} MB of PIR): wall, median of {reps}"),
            format!(
                "{:.2} s (min {:.2}, max {:.2}); {:.0} vertices/s; {:.1} MB/s",
                wall.median,
                wall.min,
                wall.max,
                vertices as f64 / wall.median,
                mb / wall.median
            ),
        ));
        if let Some(k) = runs.iter().filter_map(|m| m.peak_kib).max() {
            rows.push((
                format!("poplar-compile {n} vertices: peak RSS"),
                format!("{:.0} MiB", k as f64 / 1024.0),
            ));
        }
        rows.push((
            format!("poplar-compile {n} vertices: prog.exe"),
            format!("{} bytes ({:.1} bytes/vertex)", m.exe_bytes, m.exe_bytes as f64 / vertices as f64),
        ));
        if n == large {
            for (pass, t) in &m.passes {
                rows.push((format!("poplar-compile {n} vertices: pass {pass} (first run)"), t.clone()));
            }
        }
        walls.push(wall.median);
        let _ = std::fs::remove_file(&out);
    }
    rows.push((
        format!("poplar-compile growth {large}/{small} vertices (linear = {}x)", large / small),
        format!("{:.1}x", walls[1] / walls[0].max(1e-9)),
    ));
    if !quick {
        rows.extend(huge(&compile, large, walls[1])?);
    }
    Ok(rows)
}

/// The 10M-vertex graph, compiled once: wall time, peak RSS and the growth
/// from `large` vertices (whose median wall time is `large_wall`).
fn huge(compile: &Path, large: u64, large_wall: f64) -> Result<Vec<(String, String)>, String> {
    let n = 10 * large;
    let dir = std::env::temp_dir().join(format!("poplar-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("big_codelets.cpp"), BIG_CODELETS).map_err(|e| e.to_string())?;
    let measured = generate_big(&dir, n).and_then(|pir| {
        let mb = std::fs::metadata(&pir).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
        compile_once(compile, &pir, &dir.join("huge.exe")).map(|m| (mb, m))
    });
    let _ = std::fs::remove_dir_all(&dir);
    let (mb, m) = measured?;
    let mut rows = vec![(
        format!("poplar-compile {n} vertices ({mb:.1} MB of PIR): wall, one run"),
        format!(
            "{:.2} s; {:.0} vertices/s; {:.1} MB/s",
            m.wall_s,
            (n + 650) as f64 / m.wall_s,
            mb / m.wall_s
        ),
    )];
    if let Some(k) = m.peak_kib {
        rows.push((
            format!("poplar-compile {n} vertices: peak RSS"),
            format!("{:.0} MiB", k as f64 / 1024.0),
        ));
    }
    for (pass, t) in &m.passes {
        rows.push((format!("poplar-compile {n} vertices: pass {pass}"), t.clone()));
    }
    rows.push((
        format!("poplar-compile growth {n}/{large} vertices (linear = 10x)"),
        format!("{:.1}x", m.wall_s / large_wall.max(1e-9)),
    ));
    Ok(rows)
}

//! popc benchmarks: compile speed against `g++ -O2 -c`, and the speed of
//! popc's generated code (plain and counting variants) against g++ -O2 code
//! on four kernels over 10^6 elements. The g++ side uses the stub Poplar
//! headers of `testdata/popc/stub/` and times itself in a generated driver.
//! Compile times are medians (popc of 7 runs, g++ of 3) with min and max;
//! code times are the best of 10 runs on both sides (a warm loop's floor).
//!
//! Needs the `popc` and `linker` crates; `run(quick)` returns rows of
//! (figure, value) for the benchmark report.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use linker::gp::{Object, VertexType};

use crate::tools::Stats;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/popc")
}

struct Fs;
impl popc::IncludeResolver for Fs {
    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

const KERNELS: &str = r#"
#include <poplar/Vertex.hpp>
using namespace poplar;
class BenchSum : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  void compute() { float s = 0; for (unsigned i = 0; i < in.size(); ++i) s += in[i]; *out = s; }
};
class BenchDot : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<float> out;
  void compute() { float s = 0; for (unsigned i = 0; i < a.size(); ++i) s += a[i] * b[i]; *out = s; }
};
class BenchScaledAdd : public Vertex {
public:
  InOut<Vector<float>> x;
  Input<Vector<float>> y;
  float k;
  void compute() { for (unsigned i = 0; i < x.size(); ++i) x[i] = x[i] + k * y[i]; }
};
class BenchVec4 : public Vertex {
public:
  InOut<Vector<float, VectorLayout::SPAN, 16>> x;
  Input<Vector<float, VectorLayout::SPAN, 16>> y;
  float k;
  void compute() {
    float4 *px = reinterpret_cast<float4 *>(&x[0]);
    const float4 *py = reinterpret_cast<const float4 *>(&y[0]);
    for (unsigned i = 0; i < x.size() / 4; ++i) px[i] = px[i] + k * py[i];
  }
};
class BenchHalf : public Vertex {
public:
  Input<Vector<half>> a;
  Output<Vector<half>> out;
  half k;
  void compute() { for (unsigned i = 0; i < a.size(); ++i) out[i] = a[i] * k + a[i]; }
};
"#;

/// Seconds per call of `f`, best of `reps` after one warm-up.
fn best_of(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut best = f64::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

/// Medians of seconds per call of `f` and of `g`, timed in alternation
/// (`reps` rounds of one call each, after one warm-up call of each), so
/// the machine's drift falls on both alike.
fn alternated(reps: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    f();
    g();
    let (mut tf, mut tg) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        let t = Instant::now();
        f();
        tf.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        g();
        tg.push(t.elapsed().as_secs_f64());
    }
    (Stats::of(tf).median, Stats::of(tg).median)
}

fn gxx_available() -> bool {
    Command::new("g++").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Lays out a vertex's vectors (all of `n` elements) from address 0x100.
fn layout(vt: &VertexType, n: usize, mem: &mut [u8]) {
    let state = 0x100usize;
    let mut next = 0x1000usize;
    for f in &vt.fields {
        let at = state + f.offset as usize;
        match f.kind {
            linker::gp::FieldKind::Plain => mem[at..at + f.size as usize].copy_from_slice(match f.elem {
                linker::gp::ElemType::Half => &[0x00, 0x38][..],
                _ => &[0x00, 0x00, 0x00, 0x3f][..],
            }),
            _ => {
                let sz = f.elem.size() as usize;
                mem[at..at + 4].copy_from_slice(&(next as u32).to_le_bytes());
                if f.size == 8 {
                    mem[at + 4..at + 8].copy_from_slice(&(n as u32).to_le_bytes());
                }
                for i in 0..n {
                    let p = next + i * sz;
                    if sz == 4 {
                        mem[p..p + 4].copy_from_slice(&(1.0f32 + (i % 7) as f32 * 0.25).to_le_bytes());
                    } else {
                        mem[p..p + 2].copy_from_slice(&(0x3c00u16 + (i % 7) as u16).to_le_bytes());
                    }
                }
                next += (n * sz + 63) & !63;
            }
        }
    }
}

fn gxx_driver(n: usize, reps: usize) -> String {
    format!(
        r#"#include "kernels.cpp"
#include <chrono>
#include <cstdio>
#include <vector>
template <class F> double best(F f) {{ f(); double b = 1e30; for (int r = 0; r < {reps}; ++r) {{
  auto t = std::chrono::steady_clock::now(); f();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count(); if (s < b) b = s; }} return b; }}
int main() {{
  const unsigned n = {n};
  std::vector<float> a(n), b(n); std::vector<half> h(n), ho(n); float out = 0;
  for (unsigned i = 0; i < n; ++i) {{ a[i] = 1.0f + (i % 7) * 0.25f; b[i] = a[i]; h[i] = half(a[i]); }}
  auto esc = [&] {{ asm volatile("" : : "g"(&out), "g"(a.data()), "g"(b.data()), "g"(h.data()), "g"(ho.data()) : "memory"); }};
  BenchSum s; s.in.p = a.data(); s.in.n = n; s.out.p = &out;
  BenchDot d; d.a.p = a.data(); d.a.n = n; d.b.p = b.data(); d.b.n = n; d.out.p = &out;
  BenchScaledAdd x; x.x.p = a.data(); x.x.n = n; x.y.p = b.data(); x.y.n = n; x.k = 0.5f;
  BenchHalf hv; hv.a.p = h.data(); hv.a.n = n; hv.out.p = ho.data(); hv.out.n = n; hv.k = half(0.5f);
  BenchVec4 v4; v4.x.p = a.data(); v4.x.n = n; v4.y.p = b.data(); v4.y.n = n; v4.k = 0.5f;
  printf("BenchSum %.9f\n", best([&] {{ esc(); s.compute(); esc();  }}));
  printf("BenchDot %.9f\n", best([&] {{ esc(); d.compute(); esc();  }}));
  printf("BenchScaledAdd %.9f\n", best([&] {{ esc(); x.compute(); esc();  }}));
  printf("BenchHalf %.9f\n", best([&] {{ esc(); hv.compute(); esc();  }}));
  printf("BenchVec4 %.9f\n", best([&] {{ esc(); v4.compute(); esc();  }}));
  printf("sink %f\n", out);
}}
"#
    )
}

/// Runs the benchmarks; `quick` uses fewer repetitions and elements.
pub fn run(quick: bool) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let have_gxx = gxx_available();
    let stub = testdata().join("stub");
    let tmp = std::env::temp_dir().join(format!("popc-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);

    // Compile speed, per file.
    let mut files: Vec<PathBuf> = std::fs::read_dir(testdata().join("ok"))
        .map(|d| {
            d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "cpp")).collect()
        })
        .unwrap_or_default();
    files.push(testdata().join("diff/kernels.cpp"));
    files.sort();
    let opts = popc::Options::default();
    let mut ratios = Vec::new();
    for f in &files {
        let Ok(src) = std::fs::read_to_string(f) else { continue };
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let path = f.to_string_lossy().to_string();
        let popc_runs = Stats::of(
            (0..if quick { 2 } else { 7 })
                .map(|_| {
                    let t = Instant::now();
                    let _ = popc::compile(&path, &src, &opts, &Fs, &[]);
                    t.elapsed().as_secs_f64()
                })
                .collect(),
        );
        let t_popc = popc_runs.median;
        let mut row = format!("popc {}", popc_runs.ms());
        if have_gxx {
            let gxx_once = || {
                let t = Instant::now();
                let ok = Command::new("g++")
                    .args(["-O2", "-std=c++17", "-c", "-o"])
                    .arg(tmp.join("x.o"))
                    .arg("-I")
                    .arg(&stub)
                    .arg(f)
                    .output()
                    .is_ok_and(|o| o.status.success());
                ok.then(|| t.elapsed().as_secs_f64())
            };
            let gxx_runs: Option<Vec<f64>> = (0..if quick { 1 } else { 3 }).map(|_| gxx_once()).collect();
            if let Some(runs) = gxx_runs {
                let g = Stats::of(runs);
                ratios.push(g.median / t_popc);
                row.push_str(&format!(", g++ -O2 {}, {:.1}x faster", g.ms(), g.median / t_popc));
            } else {
                row.push_str(", g++ cannot build it against the stub header");
            }
        }
        rows.push((format!("compile {name}"), row));
    }
    if !ratios.is_empty() {
        let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
        rows.push(("compile speed vs g++ (geomean)".into(), format!("{geo:.1}x faster")));
    }

    // Code speed.
    let n = if quick { 100_000 } else { 1_000_000 };
    let reps = if quick { 3 } else { 10 };
    let obj: Object = match popc::compile("bench.cpp", KERNELS, &opts, &Fs, &[]) {
        Ok(o) => o,
        Err(d) => {
            rows.push(("code speed".into(), format!("popc failed: {}", d.render())));
            return rows;
        }
    };
    // The same kernels without the interruption checks at loop back edges
    // (`Options::stop_checks`), to measure what the checks cost.
    let unchecked = popc::Options { stop_checks: false, ..popc::Options::default() };
    let obj_unchecked = popc::compile("bench.cpp", KERNELS, &unchecked, &Fs, &[]).ok();
    let mut gxx_times = std::collections::HashMap::new();
    if have_gxx {
        let _ = std::fs::write(tmp.join("kernels.cpp"), KERNELS);
        let _ = std::fs::write(tmp.join("driver.cpp"), gxx_driver(n, reps));
        let exe = tmp.join("driver");
        let built = Command::new("g++")
            .args(["-O2", "-std=c++17", "-I"])
            .arg(&stub)
            .arg(tmp.join("driver.cpp"))
            .arg("-o")
            .arg(&exe)
            .output()
            .is_ok_and(|o| o.status.success());
        if built {
            if let Ok(o) = Command::new(&exe).output() {
                for l in String::from_utf8_lossy(&o.stdout).lines() {
                    if let Some((k, v)) = l.split_once(' ') {
                        if let Ok(v) = v.parse::<f64>() {
                            gxx_times.insert(k.to_string(), v);
                        }
                    }
                }
            }
        }
    }
    for (i, vt) in obj.vertex_types.iter().enumerate() {
        let mut mem = vec![0u8; 0x1000 + 3 * (n * 4 + 64) + 4096];
        layout(vt, n, &mut mem);
        let plain = popc::exec::Loaded::new(&vt.plain, false).expect("load");
        let counting = popc::exec::Loaded::new(&vt.counting, false).expect("load");
        let tp = best_of(reps, || {
            popc::exec::run(&plain, &mut mem, 0x100, 0);
        });
        let tc = best_of(reps, || {
            popc::exec::run(&counting, &mut mem, 0x100, 0);
        });
        let mut row = format!("popc {:.2} ns/elem, counting {:.2}x plain", tp * 1e9 / n as f64, tc / tp);
        if let Some(g) = gxx_times.get(&vt.name) {
            row.push_str(&format!(
                ", g++ -O2 {:.2} ns/elem, popc speed {:.2}x of g++",
                g * 1e9 / n as f64,
                g / tp
            ));
        }
        rows.push((format!("code {} (n={n})", vt.name), row));
        if let Some(u) = obj_unchecked.as_ref().map(|o| &o.vertex_types[i]) {
            let [plain_u, counting_u] =
                [&u.plain, &u.counting].map(|f| popc::exec::Loaded::new(f, false).expect("load"));
            let mut cost = |with: &popc::exec::Loaded, without: &popc::exec::Loaded| {
                let mut mem2 = mem.clone();
                let (t_with, t_without) = alternated(
                    reps,
                    || {
                        popc::exec::run(with, &mut mem, 0x100, 0);
                    },
                    || {
                        popc::exec::run(without, &mut mem2, 0x100, 0);
                    },
                );
                format!("{:+.1}%", (t_with / t_without - 1.0) * 100.0)
            };
            let plain_cost = cost(&plain, &plain_u);
            let counting_cost = cost(&counting, &counting_u);
            rows.push((
                format!("interruption checks: {} (n={n}), time with / without - 1", vt.name),
                format!("plain {plain_cost}, counting {counting_cost} (median of {reps}, alternated)"),
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    rows
}

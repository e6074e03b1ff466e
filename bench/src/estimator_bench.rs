//! The cost model checked against PopLibs' own cycle estimators. Three
//! PopLibs vertices (an elementwise binary op, a scaled add and a
//! reduction) are compiled by popc from the corpus (`../shared/corpus`),
//! and beside each an equivalent codelet of our own written as a plain
//! loop; each runs once per size on one tile of the `sim` device, and its
//! counted cycles are fitted to `slope x n + intercept`. Beside them stand the figures
//! of PopLibs' estimators for the same vertex and the same sizes, for the
//! hand-written assembly PopLibs runs on the IPU and for a C++ build of
//! the codelet. The formulas are restated here in our own terms from the
//! estimator source (`graphcore/poplibs` at the commit below, file:line in
//! each row); `docs/cost-model.md` explains each. Nothing in the cost
//! model was tuned to them.

use std::path::Path;

use runtime::{DeviceKind, Engine, EngineOptions};

/// The PopLibs commit whose estimator source the formulas were read from.
const POPLIBS_COMMIT: &str = "graphcore/poplibs@7eac0f26";

/// Element counts each vertex is run with (one region of `n` floats).
const SIZES: [u64; 4] = [16, 64, 256, 1024];

/// One PopLibs estimator formula for a single region of `n` floats, in
/// worker cycles of one vertex.
struct Formula {
    /// Where it was read: file:lines in [`POPLIBS_COMMIT`].
    source: &'static str,
    /// The formula as text, in `n`.
    text: &'static str,
    cycles: fn(u64) -> u64,
}

/// Our plain-loop equivalents of the three PopLibs vertices.
const OWN_CODELETS: &str = r#"#include <poplar/Vertex.hpp>
using namespace poplar;
class Add : public Vertex {
public:
  Input<Vector<float>> in1;
  Input<Vector<float>> in2;
  Output<Vector<float>> out;
  bool compute() {
    for (unsigned i = 0; i < out.size(); ++i) out[i] = in1[i] + in2[i];
    return true;
  }
};
class ScaledAdd : public Vertex {
public:
  InOut<Vector<float>> A;
  Input<Vector<float>> B;
  Input<float> scaleB;
  bool compute() {
    for (unsigned i = 0; i < A.size(); ++i) A[i] += scaleB * B[i];
    return true;
  }
};
class Sum : public Vertex {
public:
  Input<Vector<float>> partials;
  Output<float> out;
  bool compute() {
    float acc = 0;
    for (unsigned i = 0; i < partials.size(); ++i) acc += partials[i];
    *out = acc;
    return true;
  }
};
"#;

/// A PopLibs vertex and our equivalent, the graph that runs them on `n`
/// elements, and the two paths of the PopLibs estimator.
struct Case {
    name: &'static str,
    /// The codelet file, relative to the corpus's `poplibs/`.
    file: &'static str,
    vertex: &'static str,
    /// Tensor declarations and the vertex's fields for size `n` (`{n}`
    /// suffixes keep the sizes apart in one graph).
    graph: fn(u64) -> (String, String),
    /// Our equivalent in [`OWN_CODELETS`] and its fields on the same tensors.
    own: (&'static str, fn(u64) -> String),
    /// The tensor to read back and the value every element must hold.
    check: fn(u64) -> (String, f32),
    asm: Formula,
    cpp: Formula,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "elementwise binary op",
            file: "lib/popops/codelets/elemwiseBinaryCodelets.cpp",
            vertex: "popops::BinaryOp2D<popops::expr::BinaryOpType::ADD, float>",
            graph: |n| {
                (
                    format!(
                        "var a{n}: float[{n}] @ tile 0 = 1.0\nvar b{n}: float[{n}] @ tile 0 = 2.0\n\
                         var c{n}: float[{n}] @ tile 0\nhost_read \"c{n}\" <- c{n}\n"
                    ),
                    format!("in1 = [a{n}], in2 = [b{n}], out = [c{n}]"),
                )
            },
            own: ("Add", |n| format!("in1 = a{n}, in2 = b{n}, out = c{n}")),
            check: |n| (format!("c{n}"), 3.0),
            // ADD/FLOAT is {1 cycle, natural vector width} in the table
            // (popopsCycleEstimators.hpp:310); a float vector is 2 wide.
            asm: Formula {
                source: "popopsCycleEstimators.cpp:63-84, 1592-1610",
                text: "5 + (1 + 2) x ceil(n / 2)",
                cycles: |n| 5 + 3 * n.div_ceil(2),
            },
            cpp: Formula {
                source: "popopsCycleEstimators.cpp:63-84 (no external codelet: +5 per vector)",
                text: "5 + (1 + 5) x ceil(n / 2)",
                cycles: |n| 5 + 6 * n.div_ceil(2),
            },
        },
        Case {
            name: "scaled add",
            file: "lib/popops/codelets/elemwiseScaledAddCodelets.cpp",
            vertex: "popops::ScaledAdd2D<float, float, float, false>",
            graph: |n| {
                (
                    format!(
                        "var a{n}: float[{n}] @ tile 0 = 1.0\nvar b{n}: float[{n}] @ tile 0 = 2.0\n\
                         var s{n}: float[1] @ tile 0 = 0.5\nhost_read \"a{n}\" <- a{n}\n"
                    ),
                    format!("A = [a{n}], B = [b{n}], scaleB = s{n}[0]"),
                )
            },
            own: ("ScaledAdd", |n| format!("A = a{n}, B = b{n}, scaleB = s{n}[0]")),
            check: |n| (format!("a{n}"), 2.0),
            asm: Formula {
                source: "popopsCycleEstimators.cpp:591-616 (float, not memory-constrained)",
                text: "25 + 5 + 3 x floor(n / 2) + 7 x (n odd)",
                cycles: |n| 9 + 1 + 15 + if n / 2 != 0 { 5 } else { 0 } + 3 * (n / 2) + 7 * (n % 2),
            },
            cpp: Formula {
                source: "popopsCycleEstimators.cpp:573-582 (the integer vertices, plain C++)",
                text: "16 + 5 x n",
                cycles: |n| 8 + 7 + 5 * n + 1,
            },
        },
        Case {
            name: "reduce",
            file: "lib/popops/codelets/ContinuousReduce.cpp",
            vertex: "popops::ContinuousReduce<popops::ReduceAdd, float, float, false>",
            graph: |n| {
                (
                    format!(
                        "var p{n}: float[{n}] @ tile 0 = 1.0\nvar o{n}: float[1] @ tile 0\n\
                         host_read \"o{n}\" <- o{n}\n"
                    ),
                    format!("partials = p{n}, out = o{n}, numOutputsM1 = 0, numPartials = {n}"),
                )
            },
            own: ("Sum", |n| format!("partials = p{n}, out = o{n}[0]")),
            check: |n| (format!("o{n}"), n as f32),
            // One output; 2 floats per 64-bit load (CycleEstimationFunctions.cpp:453).
            asm: Formula {
                source: "CycleEstimationFunctions.cpp:333-360",
                text: "n / 2 + 2 x (n odd) + 12 + 10 + 7",
                cycles: |n| n / 2 + 2 * (n % 2) + 12 + 10 + 7,
            },
            cpp: Formula {
                source: "CycleEstimationFunctions.cpp:186-207 (\"approximations for C++ codelets\")",
                text: "7 + 24 + 8 + 22 + (24 + 1) x n",
                cycles: |n| 7 + 24 + 8 + 22 + 25 * n,
            },
        },
    ]
}

/// Least-squares `(slope, intercept)` of `cycles` over `SIZES`.
fn fit(cycles: &[u64]) -> (f64, f64) {
    let xs: Vec<f64> = SIZES.iter().map(|&n| n as f64).collect();
    let ys: Vec<f64> = cycles.iter().map(|&c| c as f64).collect();
    let k = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / k, ys.iter().sum::<f64>() / k);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let slope = sxy / sxx;
    (slope, my - slope * mx)
}

fn describe(cycles: &[u64]) -> String {
    let (slope, intercept) = fit(cycles);
    let at: Vec<String> = SIZES.iter().zip(cycles).map(|(n, c)| format!("{n}: {c}")).collect();
    format!("{slope:.2} cycles/element + {intercept:.0} (n = {})", at.join(", "))
}

/// The worker cycles our model counts at each size for `case`'s PopLibs
/// vertex (compiled from `corpus`), or with `corpus` `None` for our own
/// equivalent.
fn measure(case: &Case, corpus: Option<&Path>) -> Result<Vec<u64>, String> {
    let dir = std::env::temp_dir().join(format!("bench_estimators_{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let (mut pir, vertex) = match corpus {
        Some(corpus) => {
            let poplibs = corpus.join("poplibs");
            let flags: Vec<String> = ["include", "lib/popops", "lib/popops/codelets"]
                .iter()
                .map(|d| format!("\"-I{}\"", poplibs.join(d).display()))
                .chain(["\"-DNDEBUG\"".to_string()])
                .collect();
            let codelets =
                format!("codelets \"{}\" [{}]\n", poplibs.join(case.file).display(), flags.join(", "));
            (codelets, case.vertex)
        }
        None => {
            std::fs::write(dir.join("own.cpp"), OWN_CODELETS).map_err(|e| e.to_string())?;
            ("codelets \"own.cpp\"\n".to_string(), case.own.0)
        }
    };
    pir.insert_str(0, "target mk2(tiles_per_ipu = 1)\n");
    for &n in &SIZES {
        let (decls, fields) = (case.graph)(n);
        let fields = if corpus.is_some() { fields } else { (case.own.1)(n) };
        pir += &decls;
        pir += &format!("compute_set cs{n} {{ vertex {vertex} @ tile 0 {{ {fields} }} }}\n");
        pir += &format!("program n{n} {{ execute cs{n} }}\n");
    }
    let compiled = std::fs::write(dir.join("graph.pir"), &pir)
        .map_err(|e| e.to_string())
        .and_then(|_| compiler::compile_for_run(&dir.join("graph.pir")));
    let _ = std::fs::remove_dir_all(&dir);
    let (image, _) = compiled.map_err(|e| e.lines().next().unwrap_or("").to_string())?;
    let loaded = runtime::load_image(image).map_err(|e| e.to_string())?;
    let mut e = Engine::new(loaded, &EngineOptions { device: DeviceKind::Sim, ..Default::default() });
    let mut cycles = Vec::new();
    for (i, &n) in SIZES.iter().enumerate() {
        e.run(i).map_err(|e| e.to_string())?;
        let (name, want) = (case.check)(n);
        let got: Vec<f32> = e.read_values(&name).map_err(|e| e.to_string())?;
        if got.iter().any(|&v| v != want) {
            return Err(format!("{vertex} computed a wrong result for n = {n}"));
        }
        // One plain vertex on the only tile: its worker cycles are the
        // tile's active compute cycles.
        cycles.push(e.totals().by_program[i].compute_active);
    }
    Ok(cycles)
}

/// Figure rows: (what, value).
pub fn run(_quick: bool) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    // Absolute: the graph's `codelets` paths are relative to its own file.
    let corpus = Path::new("../shared/corpus").canonicalize().ok().filter(|c| c.join("poplibs").is_dir());
    rows.push((
        "estimators: formulas read from".into(),
        format!("{POPLIBS_COMMIT} lib/popops (worker cycles of one vertex, one region of n floats)"),
    ));
    for case in cases() {
        let asm: Vec<u64> = SIZES.iter().map(|&n| (case.asm.cycles)(n)).collect();
        let cpp: Vec<u64> = SIZES.iter().map(|&n| (case.cpp.cycles)(n)).collect();
        let what = format!("estimators: {}", case.name);
        let ours = [
            (format!("PopLibs' `{}`, counted C++ on sim", case.vertex), corpus.as_deref()),
            (format!("our plain loop `{}`, counted on sim", case.own.0), None),
        ];
        let mut slopes = Vec::new();
        for (i, (label, corpus)) in ours.iter().enumerate() {
            if i == 0 && corpus.is_none() {
                rows.push((format!("{what}, {label}"), "skipped: corpus absent".into()));
                continue;
            }
            match measure(&case, *corpus) {
                Ok(c) => {
                    slopes.push((if i == 0 { "PopLibs' codelet" } else { "our loop" }, fit(&c).0));
                    rows.push((format!("{what}, {label}"), describe(&c)));
                }
                Err(e) => {
                    rows.push((format!("{what}, {label}"), format!("skipped: cannot compile or run ({e})")))
                }
            }
        }
        for (path, f, v) in [("assembly", &case.asm, &asm), ("C++", &case.cpp, &cpp)] {
            let per = fit(v).0;
            let ratios: Vec<String> =
                slopes.iter().map(|(tag, s)| format!("{:.2}x for {tag}", s / per)).collect();
            rows.push((
                format!("{what}, PopLibs {path} path: {} ({})", f.text, f.source),
                format!("{} (ours per element / this: {})", describe(v), ratios.join(", ")),
            ));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_recovers_a_line_and_formulas_read_as_written() {
        let line: Vec<u64> = SIZES.iter().map(|&n| 3 * n + 7).collect();
        let (slope, intercept) = fit(&line);
        assert!((slope - 3.0).abs() < 1e-9 && (intercept - 7.0).abs() < 1e-6, "{slope} {intercept}");
        // The binary op's paths at n = 3: two vectors of 3 or 6 cycles.
        let c = &cases()[0];
        assert_eq!(((c.asm.cycles)(3), (c.cpp.cycles)(3)), (5 + 6, 5 + 12));
        // The scaled add's assembly path: one vector loop, an odd last element.
        assert_eq!((cases()[1].asm.cycles)(3), 25 + 5 + 3 + 7);
    }
}

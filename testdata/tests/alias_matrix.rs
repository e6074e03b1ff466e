//! The overlap matrix of issue 26: every library operation x every way its
//! written region can overlap an operand (none, identical, shifted,
//! partial, a transposed view, a broadcast view), generated here, compiled
//! and run on both devices (`sim` and `cpu`).
//!
//! Each case's output must equal two references:
//! - the same program with every operand first copied into a tensor of
//!   its own (`A0 = view`), so that nothing overlaps: the toolchain's own
//!   answer where no aliasing can matter, always checked;
//! - numpy's, which reads every operand before it writes, from a script
//!   generated beside the cases, run by a `python3` virtual environment
//!   this test creates under the target folder with `pip install numpy`
//!   (kept for later runs). Where that cannot be done (no `python3`, no
//!   network) the test says so and checks the first reference only.
//!
//! Values are small integers held in `float`, so every sum and product is
//! exact and no order of summation can differ from another.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One statement: its PIR and numpy spellings with `{0}`, `{1}` for its
/// operands, and those operands in each language.
struct Case {
    op: &'static str,
    pattern: &'static str,
    pir: &'static str,
    py: &'static str,
    operands: &'static [(&'static str, &'static str)],
}

const fn case(
    op: &'static str,
    pattern: &'static str,
    pir: &'static str,
    py: &'static str,
    operands: &'static [(&'static str, &'static str)],
) -> Case {
    Case { op, pattern, pir, py, operands }
}

const X: (&str, &str) = ("X", "X");
const Y: (&str, &str) = ("Y", "Y");
const XT: (&str, &str) = ("transpose(X)", "X.T");
const XB: (&str, &str) = ("broadcast(X[1], 4)", "np.broadcast_to(X[1], (4, 4))");

#[rustfmt::skip]
const CASES: &[Case] = &[
    // Elementwise, binary.
    case("add", "none", "Z = {0} + {1}", "Z[...] = {0} + {1}", &[X, Y]),
    case("add", "identical", "X = {0} + {1}", "X[...] = {0} + {1}", &[X, Y]),
    case("add", "shifted", "X[1:4] = {0} + {1}", "X[1:4] = {0} + {1}", &[("X[0:3]", "X[0:3]"), ("Y[0:3]", "Y[0:3]")]),
    case("add", "partial", "X[1:3, 1:4] = {0} + {1}", "X[1:3, 1:4] = {0} + {1}",
         &[("X[0:2, 0:3]", "X[0:2, 0:3]"), ("X[1:3, 1:4]", "X[1:3, 1:4]")]),
    case("add", "transposed", "X = {0} + {1}", "X[...] = {0} + {1}", &[XT, Y]),
    case("add", "broadcast", "X = {0} + {1}", "X[...] = {0} + {1}", &[XB, Y]),
    // Elementwise, unary and cast.
    case("neg", "none", "Z = -{0}", "Z[...] = -{0}", &[X]),
    case("neg", "identical", "X = -{0}", "X[...] = -{0}", &[X]),
    case("neg", "shifted", "X[1:4] = -{0}", "X[1:4] = -{0}", &[("X[0:3]", "X[0:3]")]),
    case("neg", "partial", "X[1:3, 1:4] = -{0}", "X[1:3, 1:4] = -{0}", &[("X[0:2, 0:3]", "X[0:2, 0:3]")]),
    case("neg", "transposed", "X = -{0}", "X[...] = -{0}", &[XT]),
    case("neg", "broadcast", "X = -{0}", "X[...] = -{0}", &[XB]),
    case("cast", "shifted", "X[0:3] = cast<float>({0} * 2.0)", "X[0:3] = {0} * 2", &[("X[1:4]", "X[1:4]")]),
    case("cast", "transposed", "X = cast<float>({0})", "X[...] = {0}", &[XT]),
    // Reductions.
    case("reduce", "none", "Z[0] = reduce({0}, add, dims = [1])", "Z[0] = {0}.sum(axis=1)", &[X]),
    case("reduce", "identical", "X[:, 0] = reduce({0}, add, dims = [1])", "X[:, 0] = {0}.sum(axis=1)", &[X]),
    case("reduce", "shifted", "X[1:4, 0] = reduce({0}, max, dims = [1])", "X[1:4, 0] = {0}.max(axis=1)",
         &[("X[0:3]", "X[0:3]")]),
    case("reduce", "partial", "X[0, 1:4] = reduce({0}, add, dims = [0])", "X[0, 1:4] = {0}.sum(axis=0)",
         &[("X[0:3, 1:4]", "X[0:3, 1:4]")]),
    case("reduce", "transposed", "X[0] = reduce({0}, add, dims = [1])", "X[0] = {0}.sum(axis=1)", &[XT]),
    case("reduce", "broadcast", "X[1] = reduce({0}, add, dims = [0])", "X[1] = {0}.sum(axis=0)", &[XB]),
    // Matrix products.
    case("matmul", "none", "Z = matmul({0}, {1})", "Z[...] = {0} @ {1}", &[X, Y]),
    case("matmul", "identical", "X = matmul({0}, {1})", "X[...] = {0} @ {1}", &[X, Y]),
    case("matmul", "identical_b", "Y = matmul({0}, {1})", "Y[...] = {0} @ {1}", &[X, Y]),
    case("matmul", "identical_both", "X = matmul({0}, {0})", "X[...] = {0} @ {0}", &[X]),
    case("matmul", "shifted", "X[1:4, 0:3] = matmul({0}, {1})", "X[1:4, 0:3] = {0} @ {1}",
         &[("X[0:3, 0:3]", "X[0:3, 0:3]"), ("Y[0:3, 0:3]", "Y[0:3, 0:3]")]),
    case("matmul", "partial", "X[0:2] = matmul({0}, {1})", "X[0:2] = {0} @ {1}", &[("X[1:3]", "X[1:3]"), Y]),
    case("matmul", "transposed", "X = matmul({0}, {1})", "X[...] = {0} @ {1}", &[XT, Y]),
    case("matmul", "broadcast", "X = matmul({0}, {1})", "X[...] = {0} @ {1}", &[XB, Y]),
    // Dynamic slices (`off` = [1]).
    case("dynamic_slice", "none", "Z[0:2] = dynamic_slice({0}, off, dims = [0], sizes = [2])",
         "Z[0:2] = dslice({0}, off, [0], [2])", &[X]),
    case("dynamic_slice", "identical", "X = dynamic_slice({0}, off, dims = [1], sizes = [4])",
         "X[...] = dslice({0}, off, [1], [4])", &[X]),
    case("dynamic_slice", "shifted", "X[2:4] = dynamic_slice({0}, off, dims = [0], sizes = [2])",
         "X[2:4] = dslice({0}, off, [0], [2])", &[X]),
    case("dynamic_slice", "partial", "X[1:3, 1:4] = dynamic_slice({0}, off2, dims = [0, 1], sizes = [2, 3])",
         "X[1:3, 1:4] = dslice({0}, off2, [0, 1], [2, 3])", &[X]),
    case("dynamic_slice", "transposed", "X[2:4] = dynamic_slice({0}, off, dims = [0], sizes = [2])",
         "X[2:4] = dslice({0}, off, [0], [2])", &[XT]),
    case("dynamic_slice", "broadcast", "X[0:2] = dynamic_slice({0}, off, dims = [0], sizes = [2])",
         "X[0:2] = dslice({0}, off, [0], [2])", &[XB]),
    // Dynamic updates (`off` = [1]).
    case("dynamic_update", "none", "dynamic_update(X, {0}, off, dims = [0], sizes = [2])",
         "dupdate(X, {0}, off, [0], [2])", &[("Y[0:2]", "Y[0:2]")]),
    case("dynamic_update", "identical", "dynamic_update(X, {0}, off, dims = [0], sizes = [4])",
         "dupdate(X, {0}, off, [0], [4])", &[X]),
    case("dynamic_update", "shifted", "dynamic_update(X, {0}, off, dims = [0], sizes = [2])",
         "dupdate(X, {0}, off, [0], [2])", &[("X[0:2]", "X[0:2]")]),
    case("dynamic_update", "partial", "dynamic_update(X[1:4], {0}, off, dims = [0], sizes = [2])",
         "dupdate(X[1:4], {0}, off, [0], [2])", &[("X[0:2]", "X[0:2]")]),
    case("dynamic_update", "transposed", "dynamic_update(X, {0}, off, dims = [0], sizes = [2])",
         "dupdate(X, {0}, off, [0], [2])", &[("transpose(X[0:4, 0:2])", "X[0:4, 0:2].T")]),
    case("dynamic_update", "broadcast", "dynamic_update(X, {0}, off, dims = [0], sizes = [2])",
         "dupdate(X, {0}, off, [0], [2])", &[("broadcast(X[2], 2)", "np.broadcast_to(X[2], (2, 4))")]),
    case("dynamic_update", "offsets", "dynamic_update(I, {0}, {1}, dims = [0], sizes = [2])",
         "dupdate(I, {0}, {1}, [0], [2])", &[("I[0:2]", "I[0:2]"), ("I[2:3]", "I[2:3]")]),
];

/// The tensors every case starts from: `X`, `Y`, `Z` (`float[4, 4]`), the
/// offsets and an `int` table.
fn values() -> [(&'static str, Vec<i64>); 3] {
    let x = (0..16).map(|i| (i * 3) % 7 - 3).collect();
    let y = (0..16).map(|i| (i * 5) % 9 - 4).collect();
    [("X", x), ("Y", y), ("Z", vec![0; 16])]
}

fn list(v: &[i64]) -> String {
    let rows: Vec<String> = v
        .chunks(4)
        .map(|r| format!("[{}]", r.iter().map(|x| format!("{x}.0")).collect::<Vec<_>>().join(", ")))
        .collect();
    format!("[{}]", rows.join(", "))
}

fn fill(template: &str, args: &[String]) -> String {
    let mut s = template.to_string();
    for (k, a) in args.iter().enumerate() {
        s = s.replace(&format!("{{{k}}}"), a);
    }
    s
}

/// The case's program; `separate`: each operand copied first into a
/// tensor of its own.
fn program(c: &Case, separate: bool) -> String {
    let mut p = String::from("target mk2(tiles_per_ipu = 4)\n");
    for (name, v) in values() {
        let _ = writeln!(p, "var {name}: float[4, 4] @ linear = {}", list(&v));
    }
    p.push_str("var I: int[4] @ tile 0 = [3, 4, 1, 9]\n");
    p.push_str("const off: int[1] @ tile 1 = [1]\nconst off2: int[2] @ tile 2 = [0, 1]\n");
    p.push_str("program main {\n");
    let args: Vec<String> = if separate {
        c.operands
            .iter()
            .enumerate()
            .map(|(k, (v, _))| {
                let _ = writeln!(p, "  A{k} = {v}");
                format!("A{k}")
            })
            .collect()
    } else {
        c.operands.iter().map(|o| o.0.to_string()).collect()
    };
    let _ = writeln!(p, "  {}", fill(c.pir, &args));
    p.push_str(
        "  print \"X\" flatten(X)\n  print \"Y\" flatten(Y)\n  print \"Z\" flatten(Z)\n  print \"I\" I\n}\n",
    );
    p
}

/// Compiles and runs `pir` (written to `path`) on `device`: its output.
fn run(path: &Path, pir: &str, device: &str) -> Result<String, String> {
    std::fs::write(path, pir).map_err(|e| e.to_string())?;
    let (image, _, _) = compiler::compile_for_run_profiled(path, false)?;
    let argv = vec![path.to_string_lossy().into_owned(), "--device".into(), device.into()];
    let compile = |_: &Path, _: bool| Ok((image.clone(), Vec::new(), None));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = runtime::cli::main(&argv, &runtime::cli::Env::default(), &compile, &mut out, &mut err);
    if code != 0 {
        return Err(String::from_utf8_lossy(&err).into_owned());
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

const PY_PRELUDE: &str = r#"import numpy as np

def dims_index(t, off, dims, sizes):
    idx = [slice(None)] * t.ndim
    for k, (d, n) in enumerate(zip(dims, sizes)):
        o = min(max(int(off[k]), 0), t.shape[d] - n)
        idx[d] = slice(o, o + n)
    return tuple(idx)

def dslice(t, off, dims, sizes):
    return np.array(t[dims_index(t, off, dims, sizes)])

def dupdate(t, s, off, dims, sizes):
    s = np.array(s)
    t[dims_index(t, off, dims, sizes)] = s

def show(name, v):
    print("%s: {%s}" % (name, ",".join("%g" % x for x in np.asarray(v).flatten())))
"#;

/// A numpy script printing, for each case, a line `== k` and then what the
/// case's program prints.
fn numpy_script() -> String {
    let mut s = String::from(PY_PRELUDE);
    for (k, c) in CASES.iter().enumerate() {
        let _ = writeln!(s, "print('== {k}')");
        for (name, v) in values() {
            let _ = writeln!(s, "{name} = np.array({}, dtype=np.float32)", list(&v));
        }
        s.push_str("I = np.array([3, 4, 1, 9], dtype=np.int32)\noff = [1]\noff2 = [0, 1]\n");
        let args: Vec<String> = c.operands.iter().map(|o| o.1.to_string()).collect();
        let _ = writeln!(s, "{}", fill(c.py, &args));
        s.push_str("show('X', X)\nshow('Y', Y)\nshow('Z', Z)\nshow('I', I)\n");
    }
    s
}

/// A `python3` with numpy: a virtual environment under the target folder,
/// made (and numpy installed) on first use. `Err`: why there is none.
fn numpy_python() -> Result<PathBuf, String> {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("numpy-venv");
    let python = venv.join("bin/python3");
    let has_numpy =
        |p: &Path| Command::new(p).args(["-c", "import numpy"]).output().is_ok_and(|o| o.status.success());
    if has_numpy(&python) {
        return Ok(python);
    }
    let made = Command::new("python3").args(["-m", "venv"]).arg(&venv).output();
    match made {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return Err(format!("python3 -m venv failed: {}", String::from_utf8_lossy(&o.stderr).trim()))
        }
        Err(e) => return Err(format!("no python3: {e}")),
    }
    let pip = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check", "numpy"])
        .output();
    match pip {
        Ok(o) if o.status.success() && has_numpy(&python) => Ok(python),
        Ok(o) => Err(format!("pip install numpy failed: {}", String::from_utf8_lossy(&o.stderr).trim())),
        Err(e) => Err(format!("pip cannot run: {e}")),
    }
}

/// numpy's output per case, or why there is none.
fn numpy_outputs(dir: &Path) -> Result<Vec<String>, String> {
    let python = numpy_python()?;
    let script = dir.join("reference.py");
    std::fs::write(&script, numpy_script()).map_err(|e| e.to_string())?;
    let o = Command::new(python).arg(&script).output().map_err(|e| e.to_string())?;
    if !o.status.success() {
        // The script is ours: its failure is a bug of this test.
        panic!("{} failed:\n{}", script.display(), String::from_utf8_lossy(&o.stderr));
    }
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("== ") {
            out.push(String::new());
        } else if let Some(last) = out.last_mut() {
            last.push_str(line);
            last.push('\n');
        }
    }
    assert_eq!(out.len(), CASES.len(), "numpy printed {} cases", out.len());
    Ok(out)
}

#[test]
fn overlap_matrix() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("alias-matrix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    let numpy = match numpy_outputs(&dir) {
        Ok(o) => Some(o),
        Err(why) => {
            eprintln!(
                "overlap_matrix: not comparing with numpy ({why}); comparing with the separated program only"
            );
            None
        }
    };
    let mut failures = Vec::new();
    for (k, c) in CASES.iter().enumerate() {
        let label = format!("{} x {}", c.op, c.pattern);
        let path = dir.join(format!("case{k}.pir"));
        let reference = match run(&dir.join(format!("case{k}_ref.pir")), &program(c, true), "sim") {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{label}: the separated program fails:\n{e}"));
                continue;
            }
        };
        if let Some(n) = &numpy {
            if reference != n[k] {
                failures.push(format!(
                    "{label}: the separated program differs from numpy:\n{reference}numpy:\n{}",
                    n[k]
                ));
            }
        }
        for device in ["sim", "cpu"] {
            match run(&path, &program(c, false), device) {
                Ok(o) if o == reference => {}
                Ok(o) => failures.push(format!("{label} on {device}:\n{o}expected:\n{reference}")),
                Err(e) => failures.push(format!("{label} on {device} fails:\n{e}")),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} failures over {} cases:\n\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

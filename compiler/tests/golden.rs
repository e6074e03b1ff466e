//! Golden cases under `testdata/compile/`, run through the command's own
//! code path ([`compiler::run_cli`]).
//!
//! `ok/<case>/`: `graph.pir` and its codelets (compiled in-process by popc);
//! every stage dump is compared with `<stage>.txt`, warnings with
//! `expected.stderr`, and the image must validate. `err/<case>/`: the
//! command must fail with exit code 1, write no output, and print exactly
//! `expected.stderr`. An optional `args` file adds command-line arguments.
//! `BLESS=1 cargo test -p compiler` rewrites the expectations.

use std::fs;
use std::path::{Path, PathBuf};

use linker::image::Image;

fn root() -> PathBuf {
    testdata::root().join("compile")
}

fn cases(kind: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(root().join(kind))
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.join("graph.pir").is_file()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn extra_args(dir: &Path) -> Vec<String> {
    fs::read_to_string(dir.join("args"))
        .map(|s| s.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// The case's `graph.pir` as a path relative to the crate, so messages are stable.
fn pir(dir: &Path) -> String {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let kind = dir.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
    format!("../testdata/compile/{kind}/{name}/graph.pir")
}

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("poplar-compile-golden-{}-{name}", std::process::id()));
    let _ = fs::create_dir_all(&d);
    d
}

/// Every test here compiles at the baseline ISA level: code sizes in the
/// expectations are that level's, and the level is process-wide, so each
/// test pins it before it compiles anything.
fn pin_baseline_isa() {
    linker::isa::limit_to(linker::isa::Level::Baseline);
}

#[test]
fn ok_cases() {
    pin_baseline_isa();
    let mut report = testdata::Report::new();
    let all = cases("ok");
    assert!(!all.is_empty(), "no ok cases");
    for dir in all {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let out = out_dir(&name);
        let exe = out.join("prog.exe");
        let profile = out.join("profile.json");
        for stage in ["ops", "library", "mapping", "exchange", "memory", "program", "image"] {
            if (stage == "ops" || stage == "library") && !dir.join("ops.txt").exists() {
                continue; // only cases with library operations keep these dumps
            }
            let mut args =
                vec![pir(&dir), "-o".into(), exe.display().to_string(), "--dump".into(), stage.into()];
            args.extend(extra_args(&dir));
            if stage == "image" {
                args.extend(["--report".into(), profile.display().to_string()]);
            }
            let (code, stdout, stderr) = compiler::run_cli(&args);
            if code != 0 {
                report.fail(format!("{name}: exit {code}\n{stderr}"));
                break;
            }
            report.compare(&dir.join(format!("{stage}.txt")), &stdout);
            if stage == "mapping" {
                report.compare(&dir.join("expected.stderr"), &stderr);
            }
            let bytes = fs::read(&exe).expect("image written");
            if let Err(e) = Image::from_bytes(&bytes) {
                report.fail(format!("{name}: invalid image: {e}"));
            }
        }
        let json = fs::read_to_string(&profile).unwrap_or_default();
        match serde_json::from_str::<serde_json::Value>(&json) {
            Ok(v) => {
                for key in
                    ["target", "graph", "vertexTypes", "computeSets", "exchanges", "programs", "memory"]
                {
                    if v.get(key).is_none() {
                        report.fail(format!("{name}: profile lacks `{key}`"));
                    }
                }
                // The profile names the image written beside it by its hash.
                let hash = linker::container::content_hash(&fs::read(&exe).unwrap_or_default());
                if v["imageHash"] != hash.as_str() {
                    report.fail(format!(
                        "{name}: profile's imageHash {} is not prog.exe's {hash}",
                        v["imageHash"]
                    ));
                }
            }
            Err(e) => report.fail(format!("{name}: profile is not JSON: {e}")),
        }
        let _ = fs::remove_dir_all(&out);
    }
    report.finish("compile ok cases");
}

#[test]
fn err_cases() {
    pin_baseline_isa();
    let mut report = testdata::Report::new();
    let all = cases("err");
    assert!(!all.is_empty(), "no err cases");
    for dir in all {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let out = out_dir(&format!("err-{name}"));
        let exe = out.join("prog.exe");
        let mut args = vec![pir(&dir), "-o".into(), exe.display().to_string()];
        args.extend(extra_args(&dir));
        let (code, _stdout, stderr) = compiler::run_cli(&args);
        if code != 1 {
            report.fail(format!("{name}: exit {code}, expected 1\n{stderr}"));
        }
        if exe.exists() {
            report.fail(format!("{name}: a failed compile wrote {}", exe.display()));
        }
        report.compare(&dir.join("expected.stderr"), &stderr);
        let _ = fs::remove_dir_all(&out);
    }
    report.finish("compile err cases");
}

/// The image is byte-identical whatever the number of threads.
#[test]
fn output_independent_of_thread_count() {
    pin_baseline_isa();
    let mut images = Vec::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let dir = root().join("ok/breadth");
        let img = pool.install(|| {
            compiler::compile_path(&dir.join("graph.pir"), &compiler::Options::default())
                .unwrap_or_else(|e| panic!("{e}"))
                .image
                .expect("image")
        });
        images.push(img.to_bytes());
    }
    assert!(images[0] == images[1], "images differ between 1 and 2 threads");
}

/// A graph large enough for the passes' parallel paths (vertex states,
/// transfers, sorts, the front end's chunks) to split their work: the same
/// image on 1, 2 and 3 threads.
#[test]
fn large_graph_independent_of_thread_count() {
    pin_baseline_isa();
    let out = out_dir("threads-large");
    let codelets = root().join("common/codelets.cpp");
    let n = 40_000u64;
    let mut pir = format!(
        "target mk2\ncodelets \"{}\"\nvar x: float[{}]\nvar s: float[{n}]\nmap x -> linear\nmap s -> linear\n\
         compute_set cs {{\n",
        codelets.display(),
        16 * n
    );
    for i in 0..n {
        // In-out edges mostly off their tile (buffers, moves both ways),
        // and inputs read across tiles into shared regions.
        let t = (i * 7) % 1472;
        pir.push_str(&format!(
            "  vertex Scale<float> @ tile {t} {{ data = x[{}:{}], k = 2 }}\n",
            16 * i,
            16 * i + 16
        ));
    }
    pir.push_str("}\ncompute_set sum {\n");
    for i in 0..n {
        let a = (i * 13) % (16 * n - 8);
        pir.push_str(&format!(
            "  vertex SumVertex @ tile {} {{ in = x[{a}:{}], out = s[{i}] }}\n",
            (i * 3) % 1472,
            a + 8
        ));
    }
    pir.push_str("}\nprogram main { execute cs\n execute sum }\n");
    let path = out.join("graph.pir");
    fs::write(&path, pir).expect("write graph.pir");
    let images: Vec<Vec<u8>> = [1, 2, 3]
        .into_iter()
        .map(|threads| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                compiler::compile_path(&path, &compiler::Options::default())
                    .unwrap_or_else(|e| panic!("{e}"))
                    .image
                    .expect("image")
                    .to_bytes()
            })
        })
        .collect();
    assert!(images[0] == images[1], "images differ between 1 and 2 threads");
    assert!(images[0] == images[2], "images differ between 1 and 3 threads");
    let _ = fs::remove_dir_all(&out);
}

/// `--allow-out-of-memory` turns the overflow into a warning: the profile
/// is written, the image is not.
#[test]
fn allow_out_of_memory_writes_profile_only() {
    pin_baseline_isa();
    let dir = root().join("err/out_of_memory");
    let out = out_dir("allow-oom");
    let (exe, profile) = (out.join("prog.exe"), out.join("profile.json"));
    let args = vec![
        pir(&dir),
        "-o".into(),
        exe.display().to_string(),
        "--allow-out-of-memory".into(),
        "--report".into(),
        profile.display().to_string(),
    ];
    let (code, _, stderr) = compiler::run_cli(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("warning: out of memory"), "{stderr}");
    assert!(!exe.exists());
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&profile).unwrap()).unwrap();
    assert_eq!(v["memory"]["byTile"]["overflowed"][0], 400 - 256);
    assert!(v.get("imageHash").is_none(), "no image, no hash");
    let _ = fs::remove_dir_all(&out);
}

/// `--check` runs the front end only; `--target` replaces the preset.
#[test]
fn check_and_target_flags() {
    pin_baseline_isa();
    let dir = root().join("ok/tut3");
    let (code, _, stderr) = compiler::run_cli(&[pir(&dir), "--check".into()]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) =
        compiler::run_cli(&[pir(&dir), "--target".into(), "mk1".into(), "--dump".into(), "image".into()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("target mk1 ipus=1 tiles_per_ipu=4 bytes_per_tile=262144"), "{stdout}");
    let (code, _, stderr) = compiler::run_cli(&[pir(&dir), "--target".into(), "mk9".into()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("unknown target preset"), "{stderr}");
}

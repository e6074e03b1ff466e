//! The C++ host API end to end: each `examples/*/host.cpp` is built with
//! g++ against `sdk/include` and this crate's `libpoplar`, run in its
//! example's folder, and its output compared with `expected-host.stdout`
//! (bless with `BLESS=1`). The corpus's host programs must compile
//! (`g++ -fsyntax-only`), and the tutorials among them run and print what
//! their tests expect. Skipped with a notice without g++, and the corpus
//! part without `../shared/corpus`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The folder holding `libpoplar.so`, built with this test's profile.
/// `cargo test` builds only the rlib for an integration test, so the
/// cdylib is built here, once per test process, with the cargo running us
/// (a no-op when it is up to date; a stale one would test old code).
fn lib_dir() -> Result<PathBuf, String> {
    static BUILT: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            // target/<profile>/deps/host_programs-… -> target/<profile>
            let dir = exe.parent().and_then(Path::parent).ok_or("no target folder")?.to_path_buf();
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let mut cmd = Command::new(cargo);
            cmd.args(["build", "--quiet", "-p", "capi", "--lib"]).current_dir(root());
            if dir.file_name().is_some_and(|n| n == "release") {
                cmd.arg("--release");
            }
            if let Some(target) = dir.parent() {
                cmd.env("CARGO_TARGET_DIR", target);
            }
            let o = cmd.output().map_err(|e| format!("cargo build -p capi: {e}"))?;
            if !o.status.success() {
                return Err(format!("cargo build -p capi failed:\n{}", String::from_utf8_lossy(&o.stderr)));
            }
            if !dir.join("libpoplar.so").exists() {
                return Err(format!("{} has no libpoplar.so after cargo build -p capi", dir.display()));
            }
            Ok(dir)
        })
        .clone()
}

fn have_gxx() -> bool {
    Command::new("g++").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Builds `src` into `out`; the compiler's messages on failure.
fn build(src: &Path, out: &Path, std: &str, extra: &[&str]) -> Result<(), String> {
    let lib = lib_dir()?;
    let o = Command::new("g++")
        .arg(format!("-std={std}"))
        .args(["-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root().join("sdk/include"))
        .arg(src)
        .args(extra)
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lpoplar", "-o"])
        .arg(out)
        .output()
        .map_err(|e| e.to_string())?;
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

fn run(exe: &Path, dir: &Path, args: &[&str]) -> (bool, String, String) {
    run_env(exe, dir, args, &[])
}

fn run_env(
    exe: &Path,
    dir: &Path,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> (bool, String, String) {
    let o = Command::new(exe)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .env(
            "POPLAR_RS_LOCK_DIR",
            std::env::temp_dir().join(format!("poplar-rs-test-{}", std::process::id())),
        )
        .output()
        .expect("run the host program");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// For a program that moves no data with the host (so all it prints comes
/// from the graph), what its graph's PIR dump prints when compiled and run
/// as a `.pir` file: the C++ API and PIR must agree. `None` for the others.
fn pir_replay(src: &Path, dump: &Path) -> Result<Option<String>, String> {
    let text = std::fs::read_to_string(src).map_err(|e| e.to_string())?;
    if ["connectStream", "writeTensor", "readTensor"].iter().any(|w| text.contains(w)) {
        return Ok(None);
    }
    let (image, _) = compiler::compile_for_run(dump)?;
    let loaded = runtime::load_image(image).map_err(|e| e.to_string())?;
    let mut engine = runtime::Engine::new(loaded, &runtime::EngineOptions::default());
    let mut out = Vec::new();
    engine.run_to(0, &mut out).map_err(|e| e.to_string())?;
    Ok(Some(String::from_utf8_lossy(&out).into_owned()))
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("poplar-rs-host-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn examples_print_what_they_expect() {
    check_examples("examples", &[]);
}

/// The same programs built with AddressSanitizer (leaks included) and
/// UBSan: the headers' handles and the library's memory are clean.
#[test]
fn examples_are_clean_under_asan_and_ubsan() {
    let probe = Command::new("g++")
        .args(["-fsanitize=address,undefined", "-x", "c++", "-", "-o"])
        .arg(scratch("asan-probe").join("probe"))
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(b"int main() { return 0; }")?;
            c.wait()
        });
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("skipped: g++ with AddressSanitizer absent");
        return;
    }
    check_examples(
        "asan",
        &["-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"],
    );
}

/// Builds every `examples/*/host.cpp` with `extra` flags, runs it and
/// compares its output with `expected-host.stdout` (written with `BLESS=1`).
fn check_examples(tag: &str, extra: &[&str]) {
    if !have_gxx() {
        eprintln!("skipped: g++ absent");
        return;
    }
    let bless = std::env::var_os("BLESS").is_some() && extra.is_empty();
    // Under the sanitizers: LeakSanitizer's suppressions (the file says why).
    let lsan =
        std::ffi::OsString::from(format!("suppressions={}", root().join("sdk/tests/lsan.supp").display()));
    let dir = scratch(tag);
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut replays = 0;
    for entry in std::fs::read_dir(root().join("examples")).unwrap() {
        let ex = entry.unwrap().path();
        let src = ex.join("host.cpp");
        if !src.exists() {
            continue;
        }
        let name = ex.file_name().unwrap().to_string_lossy().into_owned();
        let exe = dir.join(&name);
        if let Err(e) = build(&src, &exe, "c++11", extra) {
            failures.push(format!("{name}: build failed:\n{e}"));
            continue;
        }
        let args: Vec<String> = std::fs::read_to_string(ex.join("host-args"))
            .map(|s| s.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // The graph the program builds, as PIR beside its codelets (removed below).
        let dump = ex.join(format!(".host-dump-{tag}-{}.pir", std::process::id()));
        let mut env = vec![("POPLAR_RS_DUMP_PIR", dump.as_os_str())];
        if !extra.is_empty() {
            env.push(("LSAN_OPTIONS", lsan.as_os_str()));
        }
        let (ok, out, err) = run_env(&exe, &ex, &args, &env);
        let replayed = pir_replay(&src, &dump);
        let _ = std::fs::remove_file(&dump);
        ran += 1;
        if !ok {
            failures.push(format!("{name}: exited with failure:\n{err}"));
            continue;
        }
        if let Ok(Some(_)) = &replayed {
            replays += 1;
        }
        match replayed {
            Ok(Some(text)) if text != out => failures
                .push(format!("{name}: its graph as PIR prints\n{text}but the program printed\n{out}")),
            Err(e) => failures.push(format!("{name}: its graph as PIR: {e}")),
            _ => {}
        }
        let expected = ex.join("expected-host.stdout");
        if bless {
            std::fs::write(&expected, &out).unwrap();
        } else {
            let want = std::fs::read_to_string(&expected).unwrap_or_default();
            if want != out {
                failures.push(format!("{name}: output differs\n--- expected\n{want}--- got\n{out}"));
            }
        }
    }
    assert!(ran > 0, "no examples/*/host.cpp found");
    assert!(!extra.is_empty() || replays > 0, "no example's graph was replayed as PIR");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn api_errors_throw_poplars_exceptions() {
    if !have_gxx() {
        eprintln!("skipped: g++ absent");
        return;
    }
    let dir = scratch("api-errors");
    let exe = dir.join("api_errors");
    build(&root().join("sdk/tests/api_errors.cpp"), &exe, "c++11", &[]).unwrap();
    let (ok, out, err) = run(&exe, &dir, &[]);
    assert!(ok, "api_errors failed:\n{out}\n{err}");
    assert!(out.contains("all checks passed"), "{out}");
}

/// The re-audit of issue 26 through the host API: outputs overlapping
/// inputs at every entry point, and free-text names in every output.
#[test]
fn aliasing_through_the_host_api_reads_before_it_writes() {
    if !have_gxx() {
        eprintln!("skipped: g++ absent");
        return;
    }
    let dir = scratch("aliasing");
    let exe = dir.join("aliasing");
    build(&root().join("sdk/tests/aliasing.cpp"), &exe, "c++11", &[]).unwrap();
    let (ok, out, err) = run(&exe, &dir, &[]);
    assert!(ok && out.contains("all checks passed"), "aliasing failed:\n{out}\n{err}");
}

/// `RepeatWhileTrue` and `RepeatWhileFalse`: how often the condition and
/// the body run, on `sim` and `cpu`.
#[test]
fn data_dependent_loops_run_as_poplar_defines_them() {
    if !have_gxx() {
        eprintln!("skipped: g++ absent");
        return;
    }
    let dir = scratch("control");
    let exe = dir.join("control");
    build(&root().join("sdk/tests/control.cpp"), &exe, "c++11", &[]).unwrap();
    let (ok, out, err) = run(&exe, &dir, &[]);
    assert!(ok && out.contains("all checks passed"), "control failed:\n{out}\n{err}");
}

/// Host streams of a replicated graph: per-replica and broadcast streams,
/// buffers and callbacks, wrong indices, on `sim` and `cpu`.
#[test]
fn replicated_graphs_connect_a_stream_per_replica() {
    if !have_gxx() {
        eprintln!("skipped: g++ absent");
        return;
    }
    let dir = scratch("replica-streams");
    let exe = dir.join("replica_streams");
    build(&root().join("sdk/tests/replica_streams.cpp"), &exe, "c++11", &[]).unwrap();
    let (ok, out, err) = run(&exe, &dir, &[]);
    assert!(ok && out.contains("all checks passed"), "replica_streams failed:\n{out}\n{err}");
}

/// `poprand` (statistics, determinism, seeds, errors) and the element-wise
/// operators added with it (select, rem, logical and/or, signum, floor,
/// ceil, GELU_ERF), on `sim` and `cpu`.
#[test]
fn poprand_and_the_new_elementwise_operators() {
    if !have_gxx() {
        eprintln!("skipped: g++ absent");
        return;
    }
    let dir = scratch("poprand");
    let exe = dir.join("poprand");
    build(&root().join("sdk/tests/poprand.cpp"), &exe, "c++11", &[]).unwrap();
    let (ok, out, err) = run(&exe, &dir, &[]);
    assert!(ok && out.contains("all checks passed"), "poprand failed:\n{out}\n{err}");
}

/// popops' maths functions, tests, bitwise operators, shifts and bit
/// counts (named functions and `popops::expr` operators) against the C++
/// library, the same bits on `sim` and `cpu`, and their type errors.
#[test]
fn elementwise_functions_match_the_cpp_library() {
    if !have_gxx() {
        eprintln!("skipped: g++ absent");
        return;
    }
    let dir = scratch("elementwise");
    let exe = dir.join("elementwise");
    build(&root().join("sdk/tests/elementwise.cpp"), &exe, "c++11", &[]).unwrap();
    let (ok, out, err) = run(&exe, &dir, &[]);
    assert!(ok && out.contains("all checks passed"), "elementwise failed:\n{out}\n{err}");
}

/// Remote buffers: copies at offsets chosen when the program runs, and one
/// repeat of one replica from the host, on `sim` and `cpu`.
#[test]
fn remote_buffers_copy_at_run_time_offsets_and_per_replica() {
    if !have_gxx() {
        eprintln!("skipped: g++ absent");
        return;
    }
    let dir = scratch("remote-buffers");
    let exe = dir.join("remote_buffers");
    build(&root().join("sdk/tests/remote_buffers.cpp"), &exe, "c++11", &[]).unwrap();
    let (ok, out, err) = run(&exe, &dir, &[]);
    assert!(ok && out.contains("all checks passed"), "remote_buffers failed:\n{out}\n{err}");
}

/// The lightweight profiler through `Engine::getReport()` and pva: Block
/// programs, both filters, stream copies' phases, flushes, overflows, the
/// options' errors, and the cpu device.
#[test]
fn lightweight_profiler_blocks_through_pva() {
    if !have_gxx() {
        eprintln!("skipped: g++ absent");
        return;
    }
    let dir = scratch("blocks");
    let exe = dir.join("blocks");
    build(&root().join("sdk/tests/blocks.cpp"), &exe, "c++11", &[]).unwrap();
    let (ok, out, err) = run(&exe, &dir, &[]);
    assert!(ok && out.contains("all checks passed"), "blocks failed:\n{out}\n{err}");
}

/// The corpus's four lightweight-profiling examples
/// (`tutorials/popvision/lightweight_profiling/examples`), unchanged, built
/// as their Makefile builds them and run on the simulated IPUs: each exits
/// 0 and prints the block records its tutorial describes, with the
/// simulator's cycles.
#[test]
fn lightweight_profiling_examples_run() {
    if !have_gxx() {
        eprintln!("skipped: g++ absent");
        return;
    }
    let examples = root().join(
        "../shared/corpus/graphcore-examples/tutorials/tutorials/popvision/lightweight_profiling/examples",
    );
    if !examples.is_dir() {
        eprintln!("skipped: corpus absent ({})", examples.display());
        return;
    }
    let dir = scratch("lightweight");
    let lib = lib_dir().unwrap();
    let mut outputs = std::collections::BTreeMap::new();
    for name in ["example_1", "example_2", "example_3", "example_3_a"] {
        let exe = dir.join(name);
        let o = Command::new("g++")
            .arg("--std=c++14")
            .arg(examples.join(format!("{name}.cpp")))
            .arg("-I")
            .arg(root().join("sdk/include"))
            .arg("-L")
            .arg(&lib)
            .arg(format!("-Wl,-rpath,{}", lib.display()))
            .args(["-lpoplar", "-o"])
            .arg(&exe)
            .output()
            .unwrap();
        assert!(o.status.success(), "{name}: build failed:\n{}", String::from_utf8_lossy(&o.stderr));
        let (ok, out, err) = run(&exe, &dir, &[]);
        assert!(ok, "{name} failed:\n{out}\n{err}");
        outputs.insert(name, out);
    }
    // "name: cycles (from - to)", with cycles == to - from.
    let span = |line: &str| -> (String, u64, u64) {
        let (name, rest) = line.split_once(':').unwrap_or_else(|| panic!("{line}"));
        let nums: Vec<u64> = rest
            .split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .map(|w| w.parse().unwrap())
            .collect();
        assert!(nums.len() == 3 && nums[0] == nums[2] - nums[1], "{line}");
        (name.trim().to_string(), nums[1], nums[2])
    };
    // Example 1: five runs of each stage, each with its op2 inside it;
    // IPU 0's tile 0 records stage1, IPU 1's first tile stage2.
    let lines: Vec<(String, u64, u64)> = outputs["example_1"].lines().map(span).collect();
    let names: Vec<&str> = lines.iter().map(|l| l.0.as_str()).collect();
    let want: Vec<&str> =
        ["stage1", "op2"].repeat(5).into_iter().chain(["stage2", "op2"].repeat(5)).collect();
    assert_eq!(names, want, "{}", outputs["example_1"]);
    for pair in lines.chunks(2) {
        assert!(pair[0].1 <= pair[1].1 && pair[1].2 <= pair[0].2, "op2 outside its stage: {pair:?}");
    }
    // Example 2: each execution does one more iteration than the last.
    let cycles: Vec<u64> = outputs["example_2"]
        .lines()
        .map(|l| l.strip_prefix("operation: ").unwrap_or_else(|| panic!("{l}")).parse().unwrap())
        .collect();
    assert_eq!(cycles.len(), 5, "{}", outputs["example_2"]);
    assert!(cycles.windows(3).all(|w| w[1] > w[0] && w[2] - w[1] == w[1] - w[0]), "{cycles:?}");
    // Example 3: five operations on tile 0, five stream copies' phases on
    // tile 100.
    let out3 = &outputs["example_3"];
    let count = |what: &str| out3.lines().filter(|l| l.trim_start().starts_with(what)).count();
    assert_eq!(count("operation in tile    0"), 5, "{out3}");
    for phase in ["StreamCopyBegin in tile  100", "StreamCopyMid in tile  100", "StreamCopyEnd in tile  100"]
    {
        assert_eq!(count(phase), 5, "{out3}");
    }
    // Example 3a: a flush after each of the 100 iterations keeps every block.
    let out3a = &outputs["example_3_a"];
    for line in ["numCommonBlocks: 100", "numFlushes: 300", "numOverflows: 0"] {
        assert!(out3a.lines().any(|l| l == line), "{line} in\n{out3a}");
    }
}

/// Poplar's IPU-Link target options through `createIPUTarget`: getters,
/// errors, an unconnected copy refused, barleyTwist's bandwidth on `sim`.
#[test]
fn ipu_link_options_decide_which_ipus_exchange() {
    if !have_gxx() {
        eprintln!("skipped: g++ absent");
        return;
    }
    let dir = scratch("ipu-links");
    let exe = dir.join("ipu_links");
    build(&root().join("sdk/tests/ipu_links.cpp"), &exe, "c++11", &[]).unwrap();
    let (ok, out, err) = run(&exe, &dir, &[]);
    assert!(ok && out.contains("all checks passed"), "ipu_links failed:\n{out}\n{err}");
}

/// One virtual graph per IPU of a two-IPU target with PopLibs operations
/// on each: results, tile mappings, `sim` against `cpu`, IPU-Link cost.
#[test]
fn virtual_graphs_keep_each_operation_on_its_tiles() {
    if !have_gxx() {
        eprintln!("skipped: g++ absent");
        return;
    }
    let dir = scratch("virtual-graphs");
    let exe = dir.join("virtual_graphs");
    build(&root().join("sdk/tests/virtual_graphs.cpp"), &exe, "c++11", &[]).unwrap();
    let (ok, out, err) = run(&exe, &dir, &[]);
    assert!(ok && out.contains("all checks passed"), "virtual_graphs failed:\n{out}\n{err}");
}

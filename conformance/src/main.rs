//! `conformance`: how much of the public codelet corpus popc compiles, and
//! whether what it compiles computes what g++ computes.
//!
//! `cargo run --release -p conformance -- ../shared/corpus` compiles every
//! codelet file of the corpus (PopLibs' `lib/*/codelets` and the Graphcore
//! tutorials and feature examples, and the `wild/` codelets of other
//! people's repositories) through the popc library with PopLibs' own flags
//! (the wild files: their manifest's) ([`corpus`]), times each compile, counts the vertex types each
//! yields (the list `popc -S` heads with `; vertex NAME` lines), counts the
//! instantiations the file asks for independently of popc ([`estimate`]),
//! runs every compiled vertex against a `g++ -O2` build of the same source
//! ([`diff`]), times g++ on the files popc compiles, and rewrites
//! `CONFORMANCE.md` ([`report`]). `--quick` (CI) runs fewer seeds, builds
//! the g++ side at `-O0`, skips the g++ timings and the independent count,
//! and prints the summary without
//! writing the file; `--only TEXT` keeps the files whose path has TEXT (and
//! writes nothing either, unless `--out FILE` says where). `--keep` leaves
//! the generated drivers and their inputs in the scratch directory.
//! `--popc-only N` times popc alone: N passes over the corpus, printing
//! each pass's summed PopLibs compile time (files that compile) and the
//! process's CPU time, then the medians; it checks and writes nothing.

#![forbid(unsafe_code)]

mod corpus;
mod diff;
mod estimate;
mod host;
#[path = "../../bench/src/machine.rs"]
mod machine;
mod report;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use rayon::prelude::*;

use corpus::{Origin, SourceFile};

/// popc's compile times are measured with the allocator its binaries
/// (`popc`, `poplar-compile`) use.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Seeds per vertex in a full run and in `--quick`: seeds 0 to 5 are drawn
/// at random, 6 and 7 are unit seeds (see `diff::drawn_fields`); vertex
/// families with a contract get its seeds on top (`diff::contract`).
const SEEDS_FULL: &[u64] = &[0, 1, 2, 3, 4, 5, 6, 7];
const SEEDS_QUICK: &[u64] = &[0, 6];

struct Args {
    corpus: PathBuf,
    quick: bool,
    write: bool,
    out: PathBuf,
    only: Option<String>,
    /// Leave the scratch directory (drivers, their inputs and outputs) in place.
    keep: bool,
    /// Only time popc, over this many passes.
    popc_only: Option<usize>,
}

const USAGE: &str =
    "usage: conformance CORPUS_DIR [--quick] [--no-write] [--out FILE] [--only SUBSTRING] [--keep] [--popc-only PASSES]";

fn parse_args() -> Result<Args, String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = manifest.parent().unwrap_or(manifest);
    let mut a = Args {
        corpus: PathBuf::new(),
        quick: false,
        write: true,
        out: repo.join("CONFORMANCE.md"),
        only: None,
        keep: false,
        popc_only: None,
    };
    let mut corpus = None;
    let mut explicit_out = false;
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--quick" => a.quick = true,
            "--keep" => a.keep = true,
            "--no-write" => a.write = false,
            "--out" => {
                a.out = it.next().ok_or("--out needs a file")?.into();
                explicit_out = true;
            }
            "--only" => a.only = Some(it.next().ok_or("--only needs a substring")?),
            "--popc-only" => {
                let n = it.next().ok_or("--popc-only needs a number of passes")?;
                a.popc_only =
                    Some(n.parse().ok().filter(|&n| n > 0).ok_or("--popc-only needs a number ≥ 1")?);
            }
            "-h" | "--help" => return Err(USAGE.into()),
            _ if x.starts_with('-') => return Err(format!("unknown option '{x}'\n{USAGE}")),
            _ if corpus.is_none() => corpus = Some(PathBuf::from(x)),
            _ => return Err(format!("unexpected argument '{x}'\n{USAGE}")),
        }
    }
    a.corpus = corpus.ok_or(USAGE)?;
    // A quick or partial run would leave a misleading report.
    if (a.quick || a.only.is_some() || a.popc_only.is_some()) && !explicit_out {
        a.write = false;
    }
    Ok(a)
}

/// Reads includes relative to the corpus root (the flags' paths are).
struct CorpusFs(PathBuf);

impl popc::IncludeResolver for CorpusFs {
    fn read(&self, path: &str) -> Option<String> {
        let p = Path::new(path);
        let p = if p.is_absolute() { p.to_path_buf() } else { self.0.join(p) };
        std::fs::read(p).ok().map(|b| String::from_utf8_lossy(&b).into_owned())
    }
}

/// What popc made of one file.
pub struct Compiled {
    /// The vertex types, or the first error (`file:line:col: error: …`).
    pub result: Result<linker::gp::Object, String>,
    pub secs: f64,
    /// Sibling sources compiled with it (relative paths), if any.
    pub with: Vec<String>,
}

/// Everything measured about one codelet file.
pub struct FileReport {
    pub file: SourceFile,
    pub popc: Option<Compiled>,
    /// The independent instantiation count, or why it is unknown.
    pub estimate: Option<Result<usize, String>>,
    pub diff: Option<Result<diff::FileResult, String>>,
    /// `g++ -O2 -c` time, when both compile it.
    pub gxx_secs: Option<Result<f64, String>>,
}

/// How many times a file is recompiled with more sibling sources before its
/// error stands.
const MAX_COMPANIONS: usize = 8;

/// Compiles `f`, joined with the sibling sources it needs: when popc says
/// a function is declared but not defined and another `.cpp` of the same
/// directory defines it, the file is compiled again together with that one
/// (`popc a.cpp b.cpp`), as PopLibs links a library's codelets into one
/// object. Returns the result, the time of the last compile, and the
/// companions used (relative paths).
fn compile_one(
    root: &Path,
    f: &SourceFile,
    emit_ir: bool,
) -> (Result<popc::Output, String>, f64, Vec<String>) {
    let read = |rel: &str| -> Result<String, String> {
        std::fs::read(root.join(rel))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| format!("{rel}: error: cannot read: {e}"))
    };
    let mut sources = match read(&f.rel) {
        Ok(s) => vec![(f.rel.clone(), s)],
        Err(m) => return (Err(m), 0.0, vec![]),
    };
    let mut opts = match popc::Options::from_args(&f.flags) {
        Ok(o) => o,
        Err(m) => return (Err(m), 0.0, vec![]),
    };
    opts.emit_ir = emit_ir;
    let fs = CorpusFs(root.to_path_buf());
    loop {
        let t = Instant::now();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            popc::compile_sources(&sources, &opts, &fs, &[])
        }));
        let secs = t.elapsed().as_secs_f64();
        let r = match r {
            Ok(Ok(o)) => Ok(o),
            Ok(Err(d)) => Err(d.render().lines().next().unwrap_or("error").to_string()),
            Err(_) => Err(format!("{}: error: popc panicked (internal compiler error)", f.rel)),
        };
        let companions: Vec<String> = sources[1..].iter().map(|(rel, _)| rel.clone()).collect();
        let Err(m) = &r else { return (r, secs, companions) };
        let missing = m
            .split_once("error: function '")
            .and_then(|(_, rest)| rest.split_once("' is declared but not defined"))
            .map(|(name, _)| name.rsplit("::").next().unwrap_or(name).to_string());
        let more: Vec<String> = match missing {
            Some(name) if sources.len() <= MAX_COMPANIONS => corpus::definers(root, f, &name)
                .into_iter()
                .filter(|rel| !sources.iter().any(|(s, _)| s == rel))
                .collect(),
            _ => vec![],
        };
        if more.is_empty() {
            return (r, secs, companions);
        }
        for rel in more {
            match read(&rel) {
                Ok(s) => sources.push((rel, s)),
                Err(m) => return (Err(m), secs, companions),
            }
        }
    }
}

/// The source g++ builds for `f`: the file itself, or, when popc compiled
/// it with companions, a file in `dir` including it and them in order.
fn joined_unit(root: &Path, f: &SourceFile, with: &[String], dir: &Path) -> Result<PathBuf, String> {
    if with.is_empty() {
        return Ok(f.path.clone());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
    let mut text = String::new();
    for rel in std::iter::once(&f.rel).chain(with) {
        text.push_str(&format!("#include \"{}\"\n", root.join(rel).display()));
    }
    let unit = dir.join("joined.cpp");
    std::fs::write(&unit, text).map_err(|e| format!("cannot write '{}': {e}", unit.display()))?;
    Ok(unit)
}

/// `g++ -O2 -c` of one file against the stub headers, timed.
fn gxx_time(root: &Path, f: &SourceFile, stub: &Path, scratch: &Path) -> Result<f64, String> {
    let t = Instant::now();
    let out = Command::new("g++")
        .current_dir(root)
        .args(["-O2", "-std=c++17", "-w", "-c", "-D__POPC__", "-I"])
        .arg(stub)
        .args(&f.flags)
        .arg(&f.rel)
        .arg("-o")
        .arg(scratch.join("timing.o"))
        .output()
        .map_err(|e| format!("cannot run g++: {e}"))?;
    let secs = t.elapsed().as_secs_f64();
    if out.status.success() {
        Ok(secs)
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(diff::clip(err.lines().find(|l| l.contains("error")).unwrap_or("g++ failed"), 200))
    }
}

/// `--popc-only`: the popc pass `passes` times; per pass, the summed
/// compile time of the PopLibs files that compile and the CPU time the
/// process spent on the pass (all threads), then the medians of both.
fn time_popc(root: &Path, files: &[SourceFile], codelets: &[usize], passes: usize) -> Result<(), String> {
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    for pass in 0..passes {
        let cpu0 = cpu_secs()?;
        let (mut secs, mut n, mut vertices) = (0.0, 0, 0);
        for &i in codelets {
            let (r, s, _) = compile_one(root, &files[i], false);
            if let (Ok(o), true) = (r, files[i].origin == Origin::PopLibs) {
                secs += s;
                n += 1;
                vertices += o.object.vertex_types.len();
            }
        }
        let c = cpu_secs()? - cpu0;
        println!(
            "pass {pass}: {n} PopLibs files, {vertices} vertices: popc {secs:.3} s (process CPU {c:.3} s)"
        );
        wall.push(secs);
        cpu.push(c);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!("median of {passes}: popc {:.3} s, process CPU {:.3} s", median(&mut wall), median(&mut cpu));
    Ok(())
}

/// This process's user and system CPU time so far (Linux `/proc`).
fn cpu_secs() -> Result<f64, String> {
    let stat =
        std::fs::read_to_string("/proc/self/stat").map_err(|e| format!("cannot read CPU time: {e}"))?;
    // After the command name (which may hold spaces) come fields 3, 4, …:
    // utime and stime are fields 14 and 15, in clock ticks (100 a second).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok());
    match (tick(11), tick(12)) {
        (Some(u), Some(s)) => Ok((u + s) / 100.0),
        _ => Err("cannot parse /proc/self/stat".into()),
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(m) => {
            eprintln!("conformance: {m}");
            return ExitCode::from(1);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(m) => {
            eprintln!("conformance: error: {m}");
            ExitCode::from(1)
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    if !args.corpus.is_dir() {
        return Err(format!("corpus directory '{}' not found", args.corpus.display()));
    }
    let root = std::fs::canonicalize(&args.corpus).map_err(|e| e.to_string())?;
    let stub = std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/popc/stub"))
        .map_err(|e| format!("stub headers: {e}"))?;
    let gxx = Command::new("g++").arg("--version").output().is_ok_and(|o| o.status.success());
    let mut files = corpus::discover(&root)?;
    let scratch = std::env::temp_dir().join(format!("conformance-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("cannot create '{}': {e}", scratch.display()))?;
    if let Some(o) = &args.only {
        files.retain(|f| f.rel.contains(o.as_str()));
    }
    let codelets: Vec<usize> = (0..files.len()).filter(|&i| files[i].host.is_none()).collect();
    eprintln!("conformance: {} codelet files, {} host files", codelets.len(), files.len() - codelets.len());
    if let Some(passes) = args.popc_only {
        return time_popc(&root, &files, &codelets, passes);
    }

    // popc, one file at a time so that each time is the file's own.
    let t = Instant::now();
    let mut compiled: Vec<Option<Compiled>> = files.iter().map(|_| None).collect();
    for &i in &codelets {
        let (r, secs, with) = compile_one(&root, &files[i], false);
        compiled[i] = Some(Compiled { result: r.map(|o| o.object), secs, with });
    }
    eprintln!("conformance: popc pass {:.2} s", t.elapsed().as_secs_f64());

    // The independent count and the differential check, files in parallel.
    let pool = rayon::ThreadPoolBuilder::new().stack_size(64 << 20).build().map_err(|e| e.to_string())?;
    let seeds = if args.quick { SEEDS_QUICK } else { SEEDS_FULL };
    let t = Instant::now();
    type Checked = (Option<Result<usize, String>>, Option<Result<diff::FileResult, String>>);
    let checked: Vec<Checked> = pool.install(|| {
        (0..files.len())
            .into_par_iter()
            .map(|i| {
                let f = &files[i];
                let Some(c) = &compiled[i] else { return (None, None) };
                let dir = scratch.join(format!("f{i}"));
                let est = (!args.quick && gxx && f.origin != Origin::Wild)
                    .then(|| estimate::count(&root, &f.rel, &f.flags, &stub, &dir));
                let diff = match (&c.result, gxx) {
                    (Ok(_), false) => Some(Err("g++ not found".to_string())),
                    (Ok(_), true) => {
                        let (r, _, with) = compile_one(&root, f, true);
                        Some(r.and_then(|out| {
                            let listed = out.ir_text.lines().filter(|l| l.starts_with("; vertex ")).count();
                            if listed != out.object.vertex_types.len() {
                                return Err(format!(
                                    "popc -S lists {listed} vertices but the object holds {}",
                                    out.object.vertex_types.len()
                                ));
                            }
                            // g++ sees the companions as one translation unit with the file.
                            let unit = joined_unit(&root, f, &with, &dir)?;
                            let b = diff::Build {
                                root: &root,
                                codelet: &unit,
                                flags: &f.flags,
                                stub: &stub,
                                scratch: &dir,
                                opt: if args.quick { "-O0" } else { "-O2" },
                                keep: args.keep,
                            };
                            diff::check_file(&b, &out.object, &out.ir_text, seeds)
                        }))
                    }
                    (Err(_), _) => None,
                };
                (est, diff)
            })
            .collect()
    });
    eprintln!("conformance: differential check {:.1} s", t.elapsed().as_secs_f64());

    // g++'s compile time on the files popc compiles, one at a time.
    let mut gxx_secs: Vec<Option<Result<f64, String>>> = files.iter().map(|_| None).collect();
    if !args.quick && gxx {
        let t = Instant::now();
        for &i in &codelets {
            if compiled[i].as_ref().is_some_and(|c| c.result.is_ok()) {
                gxx_secs[i] = Some(gxx_time(&root, &files[i], &stub, &scratch));
            }
        }
        eprintln!("conformance: g++ timing pass {:.1} s", t.elapsed().as_secs_f64());
    }
    if args.keep {
        eprintln!("conformance: scratch files kept in {}", scratch.display());
    } else {
        let _ = std::fs::remove_dir_all(&scratch);
    }

    // The host programs against the C++ host API (the pytest suite only in
    // a full run: it builds the release library and runs every tutorial).
    let repo =
        std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("..")).map_err(|e| e.to_string())?;
    let hosts = if gxx { host::check(&repo, &files) } else { Vec::new() };
    let tests = if args.quick || !gxx {
        None
    } else {
        eprintln!("conformance: the tutorials' pytest suite …");
        Some(host::pytest(&root, &repo))
    };

    let reports: Vec<FileReport> = files
        .into_iter()
        .zip(compiled)
        .zip(checked)
        .zip(gxx_secs)
        .map(|(((file, popc), (estimate, diff)), gxx_secs)| FileReport {
            file,
            popc,
            estimate,
            diff,
            gxx_secs,
        })
        .collect();
    let summary = report::summary(&reports);
    print!("{summary}");
    if args.write {
        let text =
            report::markdown(&reports, &hosts, tests.as_ref(), args.quick, seeds.len(), &machine::describe());
        std::fs::write(&args.out, text).map_err(|e| format!("cannot write '{}': {e}", args.out.display()))?;
        eprintln!("conformance: wrote {}", args.out.display());
    }
    Ok(())
}

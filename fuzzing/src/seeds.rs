//! Seed inputs for each fuzz target, built from `testdata/`: its PIR files
//! and codelet sources as they are, `.gp` objects and images compiled from
//! them (no binary file is committed), its `.npy` files plus ones
//! `runtime::data::to_npy` writes, and the `--write` literals of its run
//! cases plus a few of each element type. The smoke test runs them and
//! `fuzz/seed.sh` writes them out as the starting corpora.

use std::path::{Path, PathBuf};

use crate::ELEM_TYPES;

/// The repository's `testdata/`.
pub fn testdata_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

/// Files under `dir` (recursively) whose name ends in `suffix`, sorted.
pub fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_str().is_some_and(|s| s.ends_with(suffix)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Codelet sources that graphs in testdata name (beside their `graph.pir`).
pub fn codelet_files(testdata: &Path) -> Vec<PathBuf> {
    let mut v = files_ending(&testdata.join("run"), ".cpp");
    v.extend(files_ending(&testdata.join("compile"), ".cpp"));
    v
}

fn read_all(paths: &[PathBuf]) -> Vec<Vec<u8>> {
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// Every PIR file of testdata (front-end, compile and run cases).
pub fn pir() -> Vec<Vec<u8>> {
    read_all(&files_ending(&testdata_dir(), ".pir"))
}

/// Codelet sources: popc's own cases and the graphs' codelets, those small
/// enough for the target.
pub fn codelet() -> Vec<Vec<u8>> {
    let t = testdata_dir();
    let mut paths = files_ending(&t.join("popc"), ".cpp");
    paths.extend(codelet_files(&t));
    read_all(&paths).into_iter().filter(|s| s.len() <= crate::MAX_CODELET_BYTES).collect()
}

/// `.gp` objects of the graphs' codelets, each as a sealed payload and as a
/// whole file (see [`crate::gp_object`]).
pub fn gp_object() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for path in codelet_files(&testdata_dir()) {
        let Ok(source) = std::fs::read_to_string(&path) else { continue };
        let name = path.display().to_string();
        if let Ok(object) = popc::compile(&name, &source, &popc::Options::default(), &popc::NoIncludes, &[]) {
            framed(&object.to_bytes(), &mut out);
        }
    }
    out
}

/// Images of the run cases and compile cases that compile, without their
/// code bytes (see [`crate::image`]) when that is at most 1 MiB; those of
/// at most 64 KiB also whole.
pub fn image() -> Vec<Vec<u8>> {
    image_of(usize::MAX)
}

/// [`image`] from the first `graphs` graphs only (compiling them all takes
/// most of a smoke run).
pub fn image_of(graphs: usize) -> Vec<Vec<u8>> {
    let t = testdata_dir();
    let mut out = Vec::new();
    let mut paths = files_ending(&t.join("compile/ok"), "graph.pir");
    paths.extend(files_ending(&t.join("run"), "graph.pir"));
    for path in paths.into_iter().take(graphs) {
        let Ok(compiled) = compiler::compile_path(&path, &compiler::Options::default()) else { continue };
        let Some(image) = compiled.image else { continue };
        let mut stripped = vec![0u8];
        stripped.extend(crate::without_code(&image));
        // Big tensors' initial contents make some images tens of MB: past
        // libFuzzer's input length they would only be cut.
        if stripped.len() <= 1 << 20 {
            out.push(stripped);
        }
        let file = image.to_bytes();
        if file.len() <= 64 << 10 {
            let mut whole = vec![1u8];
            whole.extend_from_slice(&file);
            out.push(whole);
        }
    }
    out
}

fn framed(file: &[u8], out: &mut Vec<Vec<u8>>) {
    let mut sealed = vec![0u8];
    sealed.extend_from_slice(crate::payload_of(file));
    out.push(sealed);
    let mut whole = vec![1u8];
    whole.extend_from_slice(file);
    out.push(whole);
}

/// testdata's `.npy` files and one written for each element type and a
/// few shapes.
pub fn npy() -> Vec<Vec<u8>> {
    let mut out = read_all(&files_ending(&testdata_dir(), ".npy"));
    for e in ELEM_TYPES {
        for shape in [&[][..], &[3][..], &[2, 2][..]] {
            let n = linker::image::element_count(shape) as usize * e.size() as usize;
            let data: Vec<u8> = (0..n).map(|i| i as u8).collect();
            out.push(runtime::data::to_npy(&data, e, shape));
        }
    }
    out
}

/// `--write` literals in [`crate::literal`]'s framing: those of the run
/// cases' command lines and a few more, for several types and shapes.
pub fn literal() -> Vec<Vec<u8>> {
    let mut texts: Vec<String> = Vec::new();
    for cmd in files_ending(&testdata_dir().join("run"), "cmd") {
        let Ok(line) = std::fs::read_to_string(&cmd) else { continue };
        let mut words = line.split_whitespace();
        while let Some(w) = words.next() {
            if w == "--write" {
                if let Some((_, lit)) = words.next().and_then(|a| a.split_once('=')) {
                    if !lit.contains('/') {
                        texts.push(lit.to_string());
                    }
                }
            }
        }
    }
    for t in ["[1.5, -2, 3e2, 0]", "[[1,2],[3,4]]", "-7", "65504", "1e39", "[true, false, 1, 0]", "[ 0x10 ]"]
    {
        texts.push(t.to_string());
    }
    let mut out = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        for (j, shape) in [&[][..], &[3][..], &[4][..], &[2, 2][..]].into_iter().enumerate() {
            let e = ((i + j * 5) % ELEM_TYPES.len()) as u8;
            let mut s = vec![e, shape.len() as u8];
            s.extend_from_slice(shape);
            s.extend_from_slice(t.as_bytes());
            out.push(s);
        }
    }
    out
}

/// The seeds of the target called `name` (as the fuzz binaries are named).
pub fn for_target(name: &str) -> Option<Vec<Vec<u8>>> {
    Some(match name {
        "pir" => pir(),
        "codelet" => codelet(),
        "gp_object" => gp_object(),
        "image" => image(),
        "npy" => npy(),
        "literal" => literal(),
        _ => return None,
    })
}

/// The target's body for `name`.
pub fn target(name: &str) -> Option<fn(&[u8])> {
    Some(match name {
        "pir" => crate::pir,
        "codelet" => crate::codelet,
        "gp_object" => crate::gp_object,
        "image" => crate::image,
        "npy" => crate::npy,
        "literal" => crate::literal,
        _ => return None,
    })
}

/// Every target's name.
pub const TARGETS: [&str; 6] = ["pir", "codelet", "gp_object", "image", "npy", "literal"];

//! Writes the seeds of every fuzz target (or of those named) into
//! `fuzz/corpus/<target>/`, built from testdata, so no corpus is
//! committed: `cargo run -p fuzzing --bin fuzz-seeds [TARGET...]`.

#![forbid(unsafe_code)]

use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = if args.is_empty() {
        fuzzing::seeds::TARGETS.to_vec()
    } else {
        args.iter().map(|s| s.as_str()).collect()
    };
    for name in names {
        let Some(seeds) = fuzzing::seeds::for_target(name) else {
            eprintln!("seed: no target '{name}'");
            std::process::exit(1);
        };
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus").join(name);
        std::fs::create_dir_all(&dir).expect("cannot create the corpus folder");
        for (i, s) in seeds.iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i:04}")), s).expect("cannot write a seed");
        }
        println!("{name}: {} seeds in {}", seeds.len(), dir.display());
    }
}

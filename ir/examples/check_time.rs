//! Measures parse+check time of a PIR file:
//! `cargo run --release -p ir --example check_time -- big.pir`.

use std::time::Instant;

/// The allocator `poplar-compile` uses, so the figure is the one users get.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let path = std::env::args().nth(1).expect("usage: check_time FILE.pir");
    let bytes = std::fs::read(&path).expect("cannot read file");
    let start = Instant::now();
    let r = ir::parse_bytes(&path, &bytes);
    let secs = start.elapsed().as_secs_f64();
    match r {
        Ok(m) => {
            let mb = bytes.len() as f64 / 1e6;
            println!(
                "{path}: {:.1} MB, {} vertices, {} tensors: parse+check {:.3} s, {:.1} MB/s",
                mb,
                m.graph.vertices.len(),
                m.graph.tensors.len(),
                secs,
                mb / secs
            );
        }
        Err(d) => {
            eprint!("{}", d.render());
            std::process::exit(1);
        }
    }
}

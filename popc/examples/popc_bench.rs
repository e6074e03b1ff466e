//! Runs `bench/src/popc_bench.rs` from popc's own crate (until the bench
//! command wires it in): `cargo run --release -p popc --example popc_bench [--quick]`.

#[path = "../../bench/src/popc_bench.rs"]
mod popc_bench;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    for (k, v) in popc_bench::run(quick) {
        println!("{k:45} {v}");
    }
}

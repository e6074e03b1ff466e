//! Runs the runtime's benchmark module (`bench/src/runtime_bench.rs`) on its
//! own: `cargo run --release -p runtime --example runtime_bench [-- --quick]`.

#[path = "../../bench/src/memcpy_bench.rs"]
#[allow(dead_code)]
mod memcpy_bench;
#[path = "../../bench/src/runtime_bench.rs"]
mod runtime_bench;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    for (what, value) in runtime_bench::run(quick) {
        println!("{what}: {value}");
    }
}

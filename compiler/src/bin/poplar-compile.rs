//! `poplar-compile`: the command-line shell around [`compiler::run_cli`].

#![forbid(unsafe_code)]

/// mimalloc serves the front end's many small allocations faster than the
/// system allocator (about 15% of a large compile).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(e) = linker::isa::env_error() {
        eprintln!("poplar-compile: error: {e}");
        std::process::exit(1);
    }
    let (code, stdout, stderr) = compiler::run_cli(&args);
    report::log::write_stdout(&stdout);
    report::log::write_stderr(&stderr);
    std::process::exit(code);
}

//! `poplar-run`: runs a `prog.exe` (or compiles and runs a `graph.pir`) on
//! the `sim` or `cpu` device. All logic is in [`runtime::cli`]; this file
//! connects it to the process's arguments, environment and streams, and
//! injects the compiler ([`compiler::compile_for_run`]) for `.pir` inputs, so
//! that the runtime library itself depends on no compiler.

/// The allocator `poplar-compile` uses (a `.pir` input is compiled here too).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let env = runtime::cli::Env::from_process();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut err = std::io::stderr();
    let code = runtime::cli::main(&argv, &env, &compiler::compile_for_run, &mut out, &mut err);
    use std::io::Write;
    let _ = out.flush();
    drop(out);
    std::process::exit(code);
}

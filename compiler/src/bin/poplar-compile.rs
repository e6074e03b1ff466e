//! `poplar-compile`: the command-line shell around [`compiler::run_cli`].

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (code, stdout, stderr) = compiler::run_cli(&args);
    print!("{stdout}");
    eprint!("{stderr}");
    std::process::exit(code);
}

//! Generates the PIR parser from `src/grammar.lalrpop`.
fn main() {
    lalrpop::Processor::new()
        .process_current_dir()
        .expect("lalrpop grammar failed to generate");
}

//! The run cases of `run.rs` again, with codelet and library code generated
//! at this processor's own ISA level (`x86-64-v3` where it has AVX2, the
//! level `poplar-compile` and `poplar-run` use by default) rather than the
//! baseline the goldens pin: every output must be the same, and so must
//! the cycles and memory where a case prints a summary; only the vertex
//! code's size may differ.

use runtime::linker::isa::Level;

mod harness;

#[test]
fn run_cases_at_host_isa() {
    if Level::current() == Level::Baseline {
        eprintln!("skipped: this processor's ISA level is the baseline, which run.rs covers");
        return;
    }
    harness::run_cases(harness::Check::CodeSizesMasked);
}

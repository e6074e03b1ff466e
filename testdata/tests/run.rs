//! The end-to-end golden run cases (`testdata/run/<case>/`, and the ported
//! Poplar tutorials in `examples/<nn_name>/`): each case's
//! `graph.pir` is compiled once through the compiler library, then run
//! through `poplar-run`'s own code path (`runtime::cli::main`) with the
//! arguments in its `cmd` file, on both devices (`sim` and `cpu`) unless
//! `cmd` names one. Standard output must match `expected.stdout` on both.
//! A case with `expected.stderr` must fail (exit status 1) with exactly that
//! text. In `cmd`, `$DIR` stands for the case's folder (for data files);
//! the same token replaces the folder in error text. With `--summary` in
//! `cmd`, the `cpu` run leaves it out and is compared with the expectation
//! up to the summary's first line (`Target:`).
//!
//! `BLESS=1 cargo test -p testdata --test run` rewrites the expectations.

mod harness;

#[test]
fn run_cases() {
    // Code sizes in the expectations are the baseline ISA level's.
    runtime::linker::isa::limit_to(runtime::linker::isa::Level::Baseline);
    harness::run_cases(harness::Check::Golden);
}

/// The tiles' random generators draw the same numbers on both devices and
/// on any number of host threads: each tile's draws depend only on the
/// tile and how many it drew before.
#[test]
fn random_draws_do_not_depend_on_threads() {
    let expected = std::fs::read_to_string(testdata::root().join("run/ipu_random/expected.stdout")).unwrap();
    for device in ["sim", "cpu"] {
        for threads in ["1", "2", "3", "4"] {
            let (code, stdout) = harness::run_case("ipu_random", &["--device", device, "--threads", threads]);
            assert_eq!(code, 0, "{device} on {threads} threads");
            assert_eq!(stdout, expected, "{device} on {threads} threads");
        }
    }
}

/// `poprand`'s values depend on the seed, the modifier and the element's
/// index only: the same on both devices and on any number of host threads
/// (the case itself shows them the same under two tile mappings).
#[test]
fn poprand_values_do_not_depend_on_threads() {
    let expected = std::fs::read_to_string(testdata::root().join("run/ops_random/expected.stdout")).unwrap();
    for device in ["sim", "cpu"] {
        for threads in ["1", "3"] {
            let (code, stdout) = harness::run_case("ops_random", &["--device", device, "--threads", threads]);
            assert_eq!(code, 0, "{device} on {threads} threads");
            assert_eq!(stdout, expected, "{device} on {threads} threads");
        }
    }
}

/// Codelets' static storage is per tile: both devices and any number of
/// host threads print the same.
#[test]
fn static_storage_does_not_depend_on_threads() {
    let expected =
        std::fs::read_to_string(testdata::root().join("run/static_members/expected.stdout")).unwrap();
    for device in ["sim", "cpu"] {
        for threads in ["1", "2", "3", "4"] {
            let (code, stdout) =
                harness::run_case("static_members", &["--device", device, "--threads", threads]);
            assert_eq!(code, 0, "{device} on {threads} threads");
            assert_eq!(stdout, expected, "{device} on {threads} threads");
        }
    }
}

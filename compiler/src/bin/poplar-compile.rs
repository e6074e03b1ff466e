//! `poplar-compile`: the command-line shell around [`compiler::run_cli`].

// One call into the kernel (`without_huge_pages`) and nothing else unsafe.
#![deny(unsafe_code)]

/// mimalloc serves the front end's many small allocations faster than the
/// system allocator (about 15% of a large compile).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Keeps this process's heap on 4 KiB pages. mimalloc asks the kernel for
/// transparent huge pages (`MADV_HUGEPAGE`), and where the kernel
/// compacts memory to serve them on the fault (`defrag` = `madvise`, a
/// common default) a large compile stalls there: on the 2-core machine of
/// BENCHMARKS.md the 10M-vertex graph's parse and check took 15.3 to 22.8 s
/// with them and 8.2 to 13.1 s without (system time 3.8 to 9.4 s against
/// 1.9 to 2.3 s). The compiler touches its memory a few times, so huge
/// pages' fewer TLB misses do not pay for that.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn without_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE takes no pointers; it sets a flag on this
    // process (and its children) and fails harmlessly on an old kernel.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(not(target_os = "linux"))]
fn without_huge_pages() {}

fn main() {
    without_huge_pages();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(e) = linker::isa::env_error() {
        eprintln!("poplar-compile: error: {e}");
        std::process::exit(1);
    }
    // The process exits right after the compile: a large graph's tables
    // go with it instead of being freed first.
    compiler::pipeline::leave_tables_to_exit();
    let (code, stdout, stderr) = compiler::run_cli(&args);
    report::log::write_stdout(&stdout);
    report::log::write_stderr(&stderr);
    std::process::exit(code);
}

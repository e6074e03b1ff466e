#!/bin/sh
# Thread-scaling figures (issue 28) on a machine with many cores and no Rust
# toolchain: runs stripped release binaries copied into .device/ and writes
# the results under $OUT. The bench does the measuring (`bench --scaling`,
# bench/src/scaling_bench.rs); this script only carries and calls it.
#
# 1. Build, on a machine with the toolchain, in the checkout to measure
#    (about 20 MiB of binaries, plus the commit, into .device/):
#
#      scripts/device-scaling.sh build
#
# 2. Run, in the repository root where .device/ was carried (python3 with
#    numpy is used when present; nothing needs g++):
#
#      OUT=/some/folder scripts/device-scaling.sh
#
#    It writes $OUT/scaling.md (the markdown section for BENCHMARKS.md,
#    rewritten after each stage, so a cut-short run leaves what it had),
#    $OUT/scaling.log (progress and errors) and $OUT/machine.txt, and prints
#    scaling.md at the end. BUDGET (seconds, default 270) bounds the bench:
#    the 10M-vertex compile is skipped when it would not fit; a hard timeout
#    of BUDGET + 60 s stops anything left. QUICK=1 shrinks every size (a
#    trial run of a minute or two on 2 cores); THREADS=1,2 picks the thread
#    counts (default 1, 2, 4, ... up to the cores).
#
# 3. Keep the figures: save scaling.md (headings one level down) as
#    bench/device/DATE-MACHINE.md; `cargo run --release -p bench` copies
#    every file there into BENCHMARKS.md under "Measured on other machines".
set -eu

if [ "${1:-}" = build ]; then
    target=${CARGO_TARGET_DIR:-target}
    cargo build --release -p bench -p compiler --bin bench --bin poplar-compile
    cargo build --release -p ir --example gen_big
    mkdir -p .device
    strip -o .device/bench "$target/release/bench"
    strip -o .device/poplar-compile "$target/release/poplar-compile"
    strip -o .device/gen_big "$target/release/examples/gen_big"
    git rev-parse --short HEAD > .device/COMMIT
    du -sh .device
    exit 0
fi

OUT=${OUT:?set OUT to the folder for the results}
mkdir -p "$OUT"
for f in bench poplar-compile gen_big COMMIT; do
    [ -e ".device/$f" ] || { echo "device-scaling: .device/$f is missing (run: scripts/device-scaling.sh build)" >&2; exit 1; }
done
BUDGET=${BUDGET:-270}

{
    echo "nproc: $(nproc)"
    grep -m1 'model name' /proc/cpuinfo || true
    grep MemTotal /proc/meminfo || true
    echo "date: $(date -u '+%Y-%m-%d %H:%M')"
    echo "commit: $(cat .device/COMMIT)"
    python3 -c 'import numpy; print("numpy", numpy.__version__); numpy.show_config()' 2>&1 | head -40 || echo "no numpy"
} > "$OUT/machine.txt" 2>&1

set -- --scaling --bin-dir .device --budget "$BUDGET" --out "$OUT/scaling.md"
[ -n "${QUICK:-}" ] && set -- "$@" --quick
[ -n "${THREADS:-}" ] && set -- "$@" --threads "$THREADS"
status=0
POPLAR_COMMIT=$(cat .device/COMMIT) timeout "$((BUDGET + 60))" .device/bench "$@" \
    > /dev/null 2> "$OUT/scaling.log" || status=$?
[ "$status" = 0 ] || echo "device-scaling: the bench stopped with status $status (see scaling.log)" >&2
cat "$OUT/scaling.md" 2>/dev/null || tail -20 "$OUT/scaling.log"
exit "$status"

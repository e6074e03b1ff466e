#!/bin/sh
# Builds the libFuzzer targets with stable rustc and runs one of them.
#
#   fuzz/run.sh build             build every target (fuzz/target/)
#   fuzz/run.sh seed [TARGET...]  write testdata's seeds to fuzz/corpus/
#                                 (cargo run -p fuzzing --bin fuzz-seeds)
#   fuzz/run.sh TARGET [ARGS...]  fuzz TARGET on fuzz/corpus/TARGET, passing
#                                 ARGS to libFuzzer (e.g. -max_total_time=600)
#
# cargo-fuzz needs nightly only for its sanitizers; its coverage
# instrumentation is stable codegen flags, given here directly. `--target`
# keeps the flags off build scripts. Overflow checks and debug assertions
# are on, as cargo-fuzz has them.
set -eu
cd "$(dirname "$0")"
HOST=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
# Only the project's crates and the decoders it fuzzes through are
# instrumented (see rustc-wrap.sh).
export RUSTC_WRAPPER="$PWD/rustc-wrap.sh"
BIN=target/$HOST/release
case "${1:-}" in
  build) cargo build --release --target "$HOST" ;;
  seed) shift; unset RUSTFLAGS; cd .. && exec cargo run -p fuzzing --bin fuzz-seeds -- "$@" ;;
  ""|-*) echo "usage: fuzz/run.sh build | seed [TARGET...] | TARGET [LIBFUZZER ARGS...]" >&2; exit 2 ;;
  *)
    t=$1; shift
    cargo build --release --target "$HOST" --bin "$t"
    mkdir -p "corpus/$t" "artifacts/$t"
    exec "$BIN/$t" -artifact_prefix="artifacts/$t/" -timeout=30 -rss_limit_mb=2048 \
      -max_len=65536 "$@" "corpus/$t"
    ;;
esac

#!/usr/bin/env bash
# Renders poplar-report pages and checks them in headless Chromium (issue 14):
# the tut3 and tut7_split run cases, tut3 stopped part way by --max-cycles
# (a partial profile), and with --large the benchmark's
# generated 1M-vertex graph on 1,472 tiles, which must draw in under 3 s.
# Installs Debian's chromium when it is missing. Screenshots and pages go to
# target/browser-check/ (look at them). Not part of `cargo test`.
#
# usage: scripts/browser-check.sh [--large]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/target/browser-check
LARGE=0
[ "${1:-}" = "--large" ] && LARGE=1

if ! command -v "${CHROMIUM:-chromium}" >/dev/null; then
    echo "installing chromium" >&2
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium >/dev/null; }; then
        # Exit 2: the check could not run (CI tells this from a failed check).
        echo "browser check: chromium could not be installed" >&2
        exit 2
    fi
fi

cargo build -q -p compiler -p poplar-run -p report
BIN=$ROOT/target/debug
mkdir -p "$OUT"
pages=()

# A run case: graph profile, execution profile on sim, page.
report_case() {
    local dir=$ROOT/testdata/run/$1 work=$OUT/$1
    mkdir -p "$work"
    "$BIN/poplar-compile" "$dir/graph.pir" -o "$work/prog.exe" --report "$work/graph.json"
    # shellcheck disable=SC2046
    "$BIN/poplar-run" "$work/prog.exe" --device sim $(sed "s#\$DIR#$dir#g" "$dir/cmd") \
        --profile "$work/execution.json" --trace "$work/trace.json" >/dev/null
    "$BIN/poplar-report" "$work/graph.json" "$work/execution.json" -o "$OUT/$1.html"
    pages+=("$OUT/$1.html")
}

# A run case stopped part way by --max-cycles: its page is marked partial.
report_partial() {
    local dir=$ROOT/testdata/run/$1 work=$OUT/$1_partial
    mkdir -p "$work"
    "$BIN/poplar-compile" "$dir/graph.pir" -o "$work/prog.exe" --report "$work/graph.json"
    # shellcheck disable=SC2046
    if "$BIN/poplar-run" "$work/prog.exe" --device sim $(sed "s#\$DIR#$dir#g" "$dir/cmd") \
        --max-cycles "$2" --profile "$work/execution.json" --trace "$work/trace.json" >/dev/null 2>&1; then
        echo "browser check: $1 was expected to stop past $2 cycles" >&2
        exit 1
    fi
    grep -q '"partial": true' "$work/execution.json"
    "$BIN/poplar-report" "$work/graph.json" "$work/execution.json" -o "$OUT/$1_partial.html"
    pages+=("$OUT/$1_partial.html")
}

report_case tut3
report_case tut7_split
report_partial tut3 200
python3 scripts/browser_check.py "$OUT/shots" "${pages[@]}"

if [ $LARGE = 1 ]; then
    work=$OUT/large
    mkdir -p "$work"
    [ -f "$work/big.pir" ] || cargo run -q -p ir --example gen_big -- --vertices 1000000 -o "$work/big.pir"
    # The codelets the generated graph names, as the compiler benchmark writes them.
    sed -n '/^const BIG_CODELETS: &str = r#"/,/^"#;/p' bench/src/compile_bench.rs \
        | sed '1s/^const BIG_CODELETS: &str = r#"//; $d' > "$work/big_codelets.cpp"
    "$BIN/poplar-compile" "$work/big.pir" -o "$work/big.exe" --report "$work/graph.json"
    "$BIN/poplar-run" "$work/big.exe" --profile "$work/execution.json" >/dev/null
    "$BIN/poplar-report" "$work/graph.json" "$work/execution.json" -o "$OUT/large.html"
    python3 scripts/browser_check.py --budget-ms 3000 "$OUT/shots" "$OUT/large.html"
fi

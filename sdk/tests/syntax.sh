#!/usr/bin/env bash
# Compile-only checks of the SDK headers (no libpoplar needed):
#
#  1. every header alone, as C++11, 14, 17 and 20, with -Wall -Wextra -Wshadow
#     -Werror -pedantic (capi.h also as C99);
#  2. the C++ tests under sdk/tests, the same way;
#  3. the 20 host programs of the Graphcore tutorials and feature examples
#     (../shared/corpus; the list of ../shared/HOSTAPI.md section 1.1),
#     unchanged, with the C++ standard their Makefiles use. Dual-mode files
#     compile their host half (the codelet half is under #ifdef __POPC__).
#     prefetch needs the Boost headers and advanced_example
#     Boost.Program_options (Debian: libboost-dev
#     libboost-program-options-dev).
#
# Usage: sdk/tests/syntax.sh   (from anywhere; CXX, CC and CORPUS override
# the compilers and the corpus directory). Exits non-zero on any failure.
set -u
shopt -s nullglob

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
include="$root/sdk/include"
CXX="${CXX:-g++}"
CC="${CC:-gcc}"
CORPUS="${CORPUS:-$root/../shared/corpus/graphcore-examples/tutorials}"

failures=0
checks=0

# run LABEL COMMAND...: runs a compile, prints one line, keeps the output of
# a failure.
run() {
  local label="$1"
  shift
  checks=$((checks + 1))
  local out
  if out="$("$@" 2>&1)"; then
    echo "ok    $label"
  else
    failures=$((failures + 1))
    echo "FAIL  $label"
    echo "$out" | head -40 | sed 's/^/      /'
  fi
}

strict=(-Wall -Wextra -Wshadow -Werror -pedantic)

echo "== headers, each alone"
run "capi.h as C99" "$CC" -std=c99 "${strict[@]}" -fsyntax-only -I "$include" -x c "$include/poplar/capi.h"
while IFS= read -r header; do
  rel="${header#"$include"/}"
  for std in c++11 c++14 c++17 c++20; do
    run "$rel -std=$std" "$CXX" -std=$std "${strict[@]}" -fsyntax-only -I "$include" -x c++ "$header"
  done
done < <(find "$include" \( -name '*.hpp' -o -name '*.h' \) | sort)

echo "== tests"
for test in "$here"/*.cpp; do
  for std in c++11 c++17; do
    run "$(basename "$test") -std=$std" "$CXX" -std=$std "${strict[@]}" -fsyntax-only -I "$include" "$test"
  done
done

echo "== corpus host programs"
if [ ! -d "$CORPUS" ]; then
  echo "corpus host programs: skipped: corpus absent ($CORPUS)"
  exit 0
fi
# standard, path (relative to $CORPUS)
programs=(
  "c++11 tutorials/poplar/tut1_variables/start_here/tut1.cpp"
  "c++11 tutorials/poplar/tut1_variables/complete/tut1_ipu_model_complete.cpp"
  "c++11 tutorials/poplar/tut1_variables/complete/tut1_ipu_hardware_complete.cpp"
  "c++11 tutorials/poplar/tut2_operations/start_here/tut2.cpp"
  "c++11 tutorials/poplar/tut2_operations/complete/tut2_complete.cpp"
  "c++11 tutorials/poplar/tut3_vertices/start_here/tut3.cpp"
  "c++11 tutorials/poplar/tut3_vertices/complete/tut3_complete.cpp"
  "c++11 tutorials/poplar/tut4_profiling/tut4_ipu_model.cpp"
  "c++11 tutorials/poplar/tut4_profiling/tut4_ipu_hardware.cpp"
  "c++11 tutorials/poplar/tut4_profiling/libpva/cpp_example.cpp"
  "c++11 tutorials/poplar/tut5_matrix_vector/start_here/tut5.cpp"
  "c++11 tutorials/poplar/tut5_matrix_vector/complete/tut5_complete.cpp"
  "c++11 tutorials/poplar/tut5_matrix_vector/complete/tut5_ipu_hardware_complete.cpp"
  "c++11 tutorials/poplar/tut6_matrix_vector_opt/tut6.cpp"
  "c++11 feature_examples/poplar/prefetch/prefetch.cpp"
  "c++11 feature_examples/poplar/advanced_example/main.cpp"
  "c++14 tutorials/popvision/lightweight_profiling/examples/example_1.cpp"
  "c++14 tutorials/popvision/lightweight_profiling/examples/example_2.cpp"
  "c++14 tutorials/popvision/lightweight_profiling/examples/example_3.cpp"
  "c++14 tutorials/popvision/lightweight_profiling/examples/example_3_a.cpp"
)
for entry in "${programs[@]}"; do
  std="${entry%% *}"
  path="${entry#* }"
  run "$path -std=$std" "$CXX" -std=$std -fsyntax-only -I "$include" "$CORPUS/$path"
done

echo "== $((checks - failures)) of $checks passed"
[ "$failures" -eq 0 ]

#!/bin/sh
# RUSTC_WRAPPER for fuzz/run.sh: coverage instrumentation only where the
# targets look for bugs.
#
# RUSTFLAGS instrument every crate. Cranelift and regalloc2 are most of what
# the pir and codelet targets execute, and tracing every comparison in them
# made those targets several times slower while steering the fuzzer by
# coverage of someone else's code generator. This wrapper removes the
# sanitizer-coverage flags from every crate not named in INSTRUMENTED: the
# project's own crates, the fuzz target binaries, and the third-party
# decoders the targets fuzz through (npyz and its header parser, bincode).
# Generic code is instrumented where it is instantiated, so a BTreeMap or
# serde visitor used by popc is still covered.
set -eu
INSTRUMENTED="ir popc compiler linker runtime fuzzing vocab spelling report
  pir codelet gp_object image npy literal
  npyz py_literal pest bincode half"
rustc=$1
shift
name=
prev=
for a; do
  [ "$prev" = --crate-name ] && name=$a
  prev=$a
done
for keep in $INSTRUMENTED; do
  [ "$name" = "$keep" ] && exec "$rustc" "$@"
done
n=$#
for a; do
  case $a in
    -Cpasses=sancov-module | -Cllvm-args=-sanitizer-coverage*) ;;
    *) set -- "$@" "$a" ;;
  esac
done
shift "$n"
exec "$rustc" "$@"

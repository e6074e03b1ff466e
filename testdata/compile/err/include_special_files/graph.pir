// Audit 2026-11 (devfile_include): `#include "/dev/zero"` allocated until
// memory ran out; included files must be regular files of at most 16 MiB.
// (`/dev/stdin` is popc/tests/cli.rs's `include_special_files`: what it is
// depends on how the test runs.)
codelets "zero.cpp"
var x: float[4]
map x -> tile 0
program main { print "x" x }

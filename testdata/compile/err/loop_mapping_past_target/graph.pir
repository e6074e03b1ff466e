// Written for mk2 (1,472 tiles), compiled with --target mk1 (1,216): the
// mappings and vertices past tile 1215 are one error each, naming the
// first iteration and tile, not one error per iteration.
target mk2
codelets "../../common/codelets.cpp"
var a: float[1472]
var s: float[1472]
for i in 0..1472 {
  map a[i] -> tile i
  map s[i] -> tile i
}
compute_set cs {
  for i in 0..1472 {
    vertex SumVertex @ tile i { in = a[i:i + 1], out = s[i] }
  }
}
program main { execute cs }

// One unknown vertex type inside a loop is one error naming the iteration.
target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var a: float[4, 4]
var s: float[4]
map a -> linear
map s -> linear
compute_set cs {
  for i in 0..4 {
    vertex SumVertx @ tile i { in = a[i], out = s[i] }
  }
}
program main { execute cs }

// Breadth: templates, plain fields, vector lists, copies (one overlapping),
// streams, remote buffers, control flow, functions, automatic placement and
// an unmapped tensor (a warning).
target mk2(tiles_per_ipu = 8)
codelets "../../common/codelets.cpp"
var a: float[16] = 1.0
var b: float[2, 8]
const c: float[4] = [1.0, 2.0, 3.0, 4.0]
var n: int = 0
var cnt: int[2] = [0, 5]
var u: float[3]
var w: uint[4] @ tile 1
map a -> linear
map b -> tiles 2..6
map n -> tile 7
map cnt -> tile 7
host_write "a-in" -> a
host_read "b-out" <- b
stream "s": float[4] from host
stream "r": float[4] to host
remote_buffer "rb": float[4] x 2
compute_set scale {
  vertex Scale<float> { data = a[0:8], k = 2 }
  vertex Scale<float> { data = a[8:], k = 0.5 }
  vertex Scale< int > @ tile 7 { data = cnt, k = -1 }
  vertex Scale<unsigned> @ tile 1 { data = w, k = 3 }
}
compute_set cat { vertex Cat @ tile 3 { ins = [a[0:2], c[1:3], reverse(a[12:16])], out = b[0, 0:8] } }
compute_set count { vertex Count @ tile 7 { n = n, step = 1 } }
function f { execute scale }
program main {
  copy "s" -> a[0:4]
  call f
  execute cat
  copy a[0:8] -> a[4:12]
  copy c -> b[1, 0:4]
  copy b[1, 0:4] -> "r"
  copy a[0:4] -> "rb"[1]
  copy "rb"[0] -> a[4:8]
  repeat 2 { execute count }
  if n { print "b" b } else { undef a }
  switch n { case 0 { call f } case 2 { sync } default { sync } }
  print "n" n
  print "u" u
}
program second { call f  print "a" a }

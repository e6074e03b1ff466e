// The tutorial-style graph of docs/pir.md: every kind of item once.
target mk2(tiles_per_ipu = 4)
codelets "tut3_codelets.cpp"
codelets "lib.cpp" ["-DWIDTH=4", "-O3"]

var v1: float[4]
var v2: float[4]
var v3: float[2, 2]
var v4: int[10] = 0
var n: uint
var buf: float[16]
const c1: float[4] = [1.0, 1.5, 2.0, 2.5]

map v1 -> tile 0
for i in 0..4 { map v2[i] -> tile i }
map v3 -> linear
map v4 -> linear(grain = 4)
map n -> tiles 0..4
map c1 -> tile 1

host_write "v3-write" -> v3
host_read  "v3-read"  <- v3
stream "v4-input-stream": int[10] from host
stream "results": float[4] to host
remote_buffer "rb": float[16] x 4

compute_set cs {
  vertex SumVertex @ tile 0 { in = v1[0:4], out = v2[0] }
  for i in 1..4 {
    vertex SumVertex @ tile i { in = v1[i:4], out = v2[i] }
  }
}

compute_set other {
  vertex Scale<float> { k = 2.5, data = v1 }
  vertex popops::ScaledAdd<float, true> @ tile 2 { a = v1, b = v2, scale = -1.5 } cycles 20
  vertex Cat { ins = [v1, v2[0:2]], out = v3 } cycles 20
}

function reduce_all {
  execute cs
}

program main {
  copy c1 -> v1
  copy "v4-input-stream" -> v4
  execute cs
  print "v2" v2
  copy v2 -> "results"
  call reduce_all
}

program second {
  repeat 10 { execute other }
  while { execute cs } n { sync }
  if n { undef v1 } else { print "x" v1 }
  switch n { case 0 { sync } case 2 { execute cs } default { call reduce_all } }
  { sync }
  copy "rb"[2] -> buf
  copy buf -> "rb"[3]
  for i in 0..2 { copy v1[i] -> v2[i] }
}

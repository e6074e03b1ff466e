// Control programs: every statement of docs/pir.md's "Programs", functions,
// several programs, compile-time loops inside programs, and vertices
// placed by the compiler (no `@ tile`) with cycle estimates.
target bow(tiles_per_ipu = 8, workers = 6)
codelets "control.cpp"

var n: int @ tile 0 = 0
var flag: int @ tile 1 = 1
var sel: uint @ tile 2 = 2
var data: half[4, 4] = [[1, 2, 3, 4], [5, 6, 7, 8], [-1, -2, -3, -4], [0.5, 0.25, 0.125, 0.0625]]
var out: half[4]
var seq: int[8]
const steps: int[2] @ tile 3 = [1, 10]

map data -> tiles 0..4
map out -> linear(grain = 2)
map seq -> linear

stream "in": int[8] from host
stream "result": half[4] to host
remote_buffer "spill": half[4] x 2

compute_set inc { vertex Add @ tile 0 { n = n, step = 1 } }
compute_set rows {
  for r in 0..4 {
    vertex RowSum<half> { in = data[r], out = out[r] } cycles 12 * (r + 1)
  }
}

function twice { execute inc  execute inc }

program main {
  copy "in" -> seq
  repeat 3 { execute inc }
  while { execute inc } flag { call twice }
  while { execute inc } !flag { call twice }
  if flag { execute rows } else { call twice }
  switch sel {
    case 0 { execute inc }
    case 2 { call twice  sync }
    default { undef out }
  }
  for i in 0..2 { copy out -> "spill"[i] }
  copy "spill"[1] -> out
  copy out -> "result"
  { print "n" n  print "out" out }
}
program other { execute rows  print "transposed" transpose(data)[1:3] }

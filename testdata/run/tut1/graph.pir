// A variant of the Poplar user guide's tutorial 1 (the faithful port is
// examples/01_programs_and_variables) on 16 tiles, with v3 spread over
// four tiles: constants, copies, slices, host handles and
// a host-to-device stream read twice from a circular host buffer.
target mk2(tiles_per_ipu = 16)
var v1: float[4]
var v2: float[4]
var v3: float[4, 4]
var v4: int[10]
const c1: float[4] = [1.0, 1.5, 2.0, 2.5]
map v1 -> tile 0
map c1 -> tile 0
for i in 0..4 { map v2[i] -> tile i }
map v3 -> tiles 0..4
map v4 -> tile 4
host_write "v3-write" -> v3
host_read "v3-read" <- v3
stream "v4-input-stream": int[10] from host
program main {
  copy c1 -> v1
  print "v1-debug" v1
  copy v1 -> v2
  print "v2-debug" v2
  copy v1[0:3] -> v3[1, 1:4]
  copy "v4-input-stream" -> v4
  print "v4-0" v4
  copy "v4-input-stream" -> v4
  print "v4-1" v4
}

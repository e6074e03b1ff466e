// A MultiVertex over 8 elements with 6 workers, and a vector list whose
// second vector lives on another tile (received by exchange).
target mk2(tiles_per_ipu = 4)
codelets "mv_codelets.cpp"
var w: int[8] @ tile 0
var a: float[3] @ tile 1 = [1.0, 2.0, 3.0]
var b: float[4] @ tile 2 = [4.0, 5.0, 6.0, 7.0]
var y: float[5] @ tile 1
compute_set cs {
  vertex WorkerIds @ tile 0 { out = w }
  vertex Cat @ tile 1 { ins = [a, b[0:2]], out = y }
}
program main { execute cs  print "w" w  print "y" y }

// Vertex types with an enum template argument named as Poplar names them
// (the qualified enumerator) and by the enumerator's value: both resolve,
// to the types popc names by enumerator.
target mk2(tiles_per_ipu = 2)
codelets "enum_codelets.cpp"
var x: float[3] @ tile 0 = [1.5, -2.0, 3.0]
var twice: float[3] @ tile 0
var square: float[3] @ tile 1
var same: float[3] @ tile 1
compute_set apply {
  vertex lib::Apply<lib::Kind::TWICE, float> { in = x, out = twice }
  vertex lib::Apply<1, float> { in = x, out = square }
  vertex lib::Apply<lib::Kind::SQUARE, float> { in = x, out = same }
}
program main {
  execute apply
  print "twice" twice
  print "square" square
  print "square-again" same
}

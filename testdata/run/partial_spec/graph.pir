/* Partial specialisation end to end: V<float,true> has a 'scale' field
   only its specialisation declares; V<int,true> is fully specialised. */
target mk2(tiles_per_ipu = 2)
codelets "spec_codelets.cpp"
var xf: float[4] @ tile 0 = [1.0, 2.0, 3.0, 4.0]
var xi: int[4] @ tile 1 = [1, 2, 3, 4]
var pf: float[4] @ tile 0
var sf: float[4] @ tile 0
var pi: int[4] @ tile 1
var ni: int[4] @ tile 1
compute_set cs {
  vertex V<float, false> @ tile 0 { in = xf, out = pf }
  vertex V<float, true> @ tile 0 { in = xf, out = sf, scale = 2.5 }
  vertex V<int, false> @ tile 1 { in = xi, out = pi }
  vertex V<int, true> @ tile 1 { in = xi, out = ni }
}
program main { execute cs  print "plus one" pf  print "scaled" sf  print "int plus one" pi  print "negated" ni }

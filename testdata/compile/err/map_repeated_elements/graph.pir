// A mapping places each element once: a view that repeats elements (here a
// zero stride) is refused before its elements are enumerated (found by the
// PIR fuzzer, which used 3333333333 repeats and ran out of memory).
var v: float[4]
map affine(v, 2, [[8, 0]]) -> tile 0

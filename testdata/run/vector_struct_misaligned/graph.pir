// A float4 member of a struct read through a pointer 4 bytes into an
// aligned edge: popc checks alignment only through vector pointers, so the
// member is misaligned on the host. Adding two such members must give the
// element-wise sums on both devices; it killed poplar-run (SIGSEGV) while
// popc's 128-bit loads were marked aligned and folded into `addps`.
target mk2(tiles_per_ipu = 2)
codelets "wrapped.cpp"
var a: float[12] @ tile 0 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
var o: float[4] @ tile 0
compute_set cs {
  vertex Wrapped @ tile 0 { in = a, out = o }
}
program main { execute cs  print "o" o }

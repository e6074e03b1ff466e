// Seven worker contexts: ids 0 to 5 of each MultiVertex run on contexts 0
// to 5 and the seventh idles (worker id 6 used to run past the matmul
// vertex's rows: a memory access outside the tile).
target mk2(tiles_per_ipu = 4, workers = 7)
var a: float[12] @ linear = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
var b: float[12] @ linear = 2.0
var m: float[5, 3] @ linear = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12], [13, 14, 15]]
var n: float[3, 7] @ linear = 0.5
program main {
  c = a + b
  print "a + b" c
  s = reduce(m, add, dims = [1])
  print "row sums" s
  p = matmul(m, n)
  print "m n" p
}

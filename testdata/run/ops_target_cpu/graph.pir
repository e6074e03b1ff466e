// The `cpu` target has one worker context: a MultiVertex still runs for
// worker ids 0 to 5 (numWorkers() is 6 on every target), one after another
// on it. The library's vertices split their work by numWorkers(), so
// running only id 0 used to leave five sixths of every result unwritten.
target cpu
var a: float[12] @ tile 0 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
var b: float[12] @ tile 0 = 2.0
var m: float[5, 3] @ tile 0 = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12], [13, 14, 15]]
var n: float[3, 7] @ tile 0 = 0.5
program main {
  c = a + b
  print "a + b" c
  s = reduce(m, add, dims = [1])
  print "row sums" s
  p = matmul(m, n)
  print "m n" p
}

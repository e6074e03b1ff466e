// Operations inside repeat, if/else, while (defining the predicate) and a
// function called twice: the expansion keeps every body's statements in place.
target mk2(tiles_per_ipu = 4)
var x: float[4, 2] @ linear = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
var n: int @ tile 0 = 3
var one: int @ tile 0 = 1
function f {
  s = reduce(x, add, dims = [0])
  print "s" s
}
program main {
  repeat 2 { x *= 2.0 }
  call f
  if one { x += 1.0 } else { fill x 0.0 }
  while { flag = n > 0 } flag {
    n -= 1
    y = reduce(x, max, dims = [1])
    print "y" y
  }
  call f
}

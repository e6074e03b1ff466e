var m: float[3, 4] @ tile 0
var off: float[1] @ tile 0
var o2: int[2] @ tile 0
var s: float[2, 2] @ tile 0
program main {
  a = dynamic_slice(m, off, dims = [0], sizes = [1])
  b = dynamic_slice(m, o2, dims = [0, 1], sizes = [2, 5])
  dynamic_update(m, s, o2, dims = [0, 1], sizes = [2, 3])
  dynamic_updat(m, s, o2, dims = [0], sizes = [1])
}

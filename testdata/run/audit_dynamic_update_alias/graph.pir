// Audit 2026-11 (dynamic_update_src_alias): dynamic_update(t, t[0:2], ...) reads the update before writing: {{1,2},{1,2},{3,4},{7,8}}.
target mk2(tiles_per_ipu = 1)
var t: float[4, 2] = [[1.0,2.0],[3.0,4.0],[5.0,6.0],[7.0,8.0]]
const off: int[1] @ tile 0 = [1]
map t -> tile 0
program main {
  dynamic_update(t, t[0:2], off, dims = [0], sizes = [2])
  print "t" t
}

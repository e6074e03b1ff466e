// Tutorial 4 of the Poplar user guide (profiling output): m5 = (m1 x m2) x m3
// with m1 900x600, m2 600x300 and m3 300x200, each mapped linearly, then the
// profile summary. The tutorial calls poplin::matMul twice; here a
// hand-written codelet (matmul_codelets.cpp) computes each product in blocks
// of 12 rows by 30 (then 20) columns, one block per tile on tiles 0..749,
// each result block mapped to the tile that computes it. The tutorial never
// writes its inputs; here host handles let the run give them values, and
// program `check` (not in the tutorial) prints two corners of the result.
target mk2
codelets "matmul_codelets.cpp"
var m1: float[900, 600]
var m2: float[600, 300]
var m3: float[300, 200]
var m4: float[900, 300]
var m5: float[900, 200]
map m1 -> linear
map m2 -> linear
map m3 -> linear
for rb in 0..75 {
  for cb in 0..10 {
    map m4[rb * 12:rb * 12 + 12, cb * 30:cb * 30 + 30] -> tile rb * 10 + cb
    map m5[rb * 12:rb * 12 + 12, cb * 20:cb * 20 + 20] -> tile rb * 10 + cb
  }
}
host_write "m1" -> m1
host_write "m2" -> m2
host_write "m3" -> m3
compute_set m4_matmul {
  for rb in 0..75 {
    for cb in 0..10 {
      vertex MatMulBlock @ tile rb * 10 + cb {
        a = m1[rb * 12:rb * 12 + 12], b = m2[:, cb * 30:cb * 30 + 30],
        out = m4[rb * 12:rb * 12 + 12, cb * 30:cb * 30 + 30], rows = 12, cols = 30
      }
    }
  }
}
compute_set m5_matmul {
  for rb in 0..75 {
    for cb in 0..10 {
      vertex MatMulBlock @ tile rb * 10 + cb {
        a = m4[rb * 12:rb * 12 + 12], b = m3[:, cb * 20:cb * 20 + 20],
        out = m5[rb * 12:rb * 12 + 12, cb * 20:cb * 20 + 20], rows = 12, cols = 20
      }
    }
  }
}
program main {
  execute m4_matmul
  execute m5_matmul
}
program check {
  print "m5[0:2, 0:3]" m5[0:2, 0:3]
  print "m5[898:900, 197:200]" m5[898:900, 197:200]
}

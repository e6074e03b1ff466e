// Unknown tensors, compute sets, functions, loop variables and target keys
// get the closest declared name as a suggestion.
target mk2(tiles_pre_ipu = 4)
var data: float[4]
var other: float[4]
compute_set add_cs { }
function helper { }
program main {
  copy dat -> other
  execute add_sc
  call halper
}
for i in 0..2 {
  map data[j] -> tile 0
}
stream "input": float[4] from host
program load {
  copy "inptu" -> data
}

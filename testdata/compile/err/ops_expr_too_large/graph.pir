// relu (like min, max and abs) spells its operand twice in the generated codelet: 14
// nested ones would spell 2^14 copies of `a`, refused before the text is made.
target mk2(tiles_per_ipu = 2)
var a: float[4] @ tile 0 = 1
var acc: float[4] @ tile 0 = 2
program main {
  b = relu(relu(relu(relu(relu(relu(relu(relu(relu(relu(relu(relu(relu(a)))))))))))))
}

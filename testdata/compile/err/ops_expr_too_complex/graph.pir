// 40 nested half sigmoids are within 64 levels, but each spells about eight
// levels of C++ in the codelet: popc's parser, run on the class alone,
// finds it past its nesting limit, and the error points here.
target mk2(tiles_per_ipu = 2)
var a: half[4] @ tile 0 = 1
var acc: half[4] @ tile 0 = 2
program main {
  b = sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(a)))))))))))))))))))))))))))))))))))))))
}

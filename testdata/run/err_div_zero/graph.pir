// Integer division by zero in a codelet.
target mk2(tiles_per_ipu = 2)
codelets "div_codelets.cpp"
var a: int @ tile 1 = 7
var b: int @ tile 1 = 0
var q: int @ tile 1
compute_set divCS { vertex Divide @ tile 1 { a = a, b = b, q = q } }
program main { execute divCS }

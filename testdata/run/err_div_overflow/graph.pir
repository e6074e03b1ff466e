// LONG_MIN / -1 in a codelet: a trap of its own, not a division by zero.
target mk2(tiles_per_ipu = 2)
codelets "div_codelets.cpp"
var a: long @ tile 1 = -9223372036854775808
var b: long @ tile 1 = -1
var q: long @ tile 1
compute_set divCS { vertex Divide @ tile 1 { a = a, b = b, q = q } }
program main { execute divCS }

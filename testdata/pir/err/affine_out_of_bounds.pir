var v: float[4]
map affine(v, 2, [[3, 1]]) -> tile 0

var v: float[4]
map v[1, 2] -> tile 0

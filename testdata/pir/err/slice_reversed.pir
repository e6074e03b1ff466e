var v: float[8]
map v[5:2] -> tile 0

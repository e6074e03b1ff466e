var v: float[8]
map v[0:8:0] -> tile 0

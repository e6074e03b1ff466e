var v: float[4]
map v[4] -> tile 0

var v: float[4]
map v[9223372036854775807 + 1] -> tile 0

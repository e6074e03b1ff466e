var m: float[4, 6]
map reshape(m, [5, 5]) -> tile 0

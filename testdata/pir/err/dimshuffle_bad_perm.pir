var t: float[2, 3, 4]
map dimshuffle(t, [0, 0, 1]) -> tile 0

var v: float[8]
map v -> linear(grain = 0)

var v: float[4]
map shuffle(v) -> tile 0

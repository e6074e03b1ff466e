var v: float[8]
map v -> tiles 3..3

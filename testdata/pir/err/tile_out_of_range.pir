target mk2(tiles_per_ipu = 4)
var v: float[4] @ tile 4

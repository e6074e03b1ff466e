target mk2(ipus = 64, tiles_per_ipu = 4000000000)
var x: float[4]
map x -> tile 0

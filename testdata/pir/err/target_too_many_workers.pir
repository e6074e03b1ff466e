target mk2(workers = 100)
var x: float[4]
map x -> tile 0

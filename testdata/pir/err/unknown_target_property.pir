// A misspelt target property: the error suggests the closest and lists them.
target mk2(tiles_per_ipu = 4)
var x: float[target.num_tile]

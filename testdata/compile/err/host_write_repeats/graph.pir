// A host write handle must name each element once: a broadcast view
// would write one element twice.
target mk2(tiles_per_ipu = 4)
var v: float[4]
map v -> tile 0
host_write "twice" -> broadcast(v, 2)
program main { print "v" v }

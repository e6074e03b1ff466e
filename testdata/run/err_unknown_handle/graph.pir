// Host data of the an unknown handle name.
target mk2(tiles_per_ipu = 2)
var v: float[4] @ tile 0
host_write "v-write" -> v
program main { print "v" v }

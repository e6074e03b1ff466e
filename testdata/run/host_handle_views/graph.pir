// Host handles on views: a write into the middle 2x2 block of a 4x4
// tensor, reads of its transpose and of every other element of a row.
target mk2(tiles_per_ipu = 4)
var m: float[4, 4] = 0.0
map m -> tiles 0..4
host_write "middle" -> m[1:3, 1:3]
host_read "transposed" <- transpose(m)
host_read "row1-odd" <- m[1, 1:4:2]
program main { print "m" m }

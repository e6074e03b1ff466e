target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var a: float[8]
map a[0:6] -> tile 1
program main { print "a" a }

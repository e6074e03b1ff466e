target mk2(tiles_per_ipu = 4)
codelets "nowhere.cpp"
var a: float[4] @ tile 0
program main { print "a" a }

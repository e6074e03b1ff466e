target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var a: float[4] @ tile 0
var b: float[4] @ tile 1
program main { copy a -> concat(b[0:2], b[0:2]) }

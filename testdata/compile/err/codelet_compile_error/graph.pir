target mk2(tiles_per_ipu = 4)
codelets "bad.cpp"
var a: float[4] @ tile 0
var s: float @ tile 0
compute_set cs { vertex Bad @ tile 0 { in = a, out = s } }
program main { execute cs }

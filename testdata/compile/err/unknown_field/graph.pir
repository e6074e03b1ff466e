target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var a: float[4] @ tile 0
var s: float @ tile 0
compute_set cs { vertex SumVertex @ tile 0 { in = a, out = s, bias = 1.0 } }
program main { execute cs }

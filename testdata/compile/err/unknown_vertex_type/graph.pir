target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var a: float[4] @ tile 0
var s: float @ tile 0
compute_set cs { vertex SumVertx @ tile 0 { in = a, out = s } }
program main { execute cs }

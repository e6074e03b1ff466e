target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var a: float[4] @ tile 0
var s: float @ tile 0
compute_set cs { vertex SumVertex @ tile 0 { in = [a[0:2], a[2:4]], out = s } }
program main { execute cs }

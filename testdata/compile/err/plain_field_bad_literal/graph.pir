target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var n: int @ tile 0
compute_set cs { vertex Count @ tile 0 { n = n, step = -1 } }
program main { execute cs }

target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var a: float[4] @ tile 0
var y: float[4] @ tile 0
compute_set cs { vertex Cat @ tile 0 { ins = a, out = y } }
program main { execute cs }

target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var a: float[4] @ tile 0
var k: float @ tile 0
compute_set cs { vertex Scale<float> @ tile 0 { data = a, k = k } }
program main { execute cs }

target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
const a: float[4] @ tile 0 = 1.0
compute_set cs { vertex Scale<float> @ tile 0 { data = a, k = 2.0 } }
program main { execute cs }

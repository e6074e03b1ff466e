// Each item of a vector of one-element edges is one element, not a slice.
target mk2(tiles_per_ipu = 4)
codelets "../../../run/scalar_edges/edges_codelets.cpp"
var a: float[4] @ tile 0
var y: float[2] @ tile 0
compute_set cs { vertex Gather @ tile 0 { picks = [a[0], a[1:3]], weights = [a[2], a[3]], out = [y[0], y[1]] } }
program main { execute cs }

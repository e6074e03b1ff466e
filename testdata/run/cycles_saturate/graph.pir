// A vertex whose cycle estimate is 2^63 - 1, run three times: the modelled
// cycle totals saturate at 2^64 - 1 instead of wrapping.
target mk2(tiles_per_ipu = 2)
codelets "../err_max_cycles/control_codelets.cpp"
var n: int @ tile 0 = 0
compute_set inc { vertex Add @ tile 0 { n = n, step = 1 } cycles 9223372036854775807 }
program main { repeat 3 { execute inc } print "n" n }

// A runaway loop (the flag never clears) stopped by --max-cycles on sim.
target mk2(tiles_per_ipu = 2)
codelets "control_codelets.cpp"
var n: int @ tile 0 = 0
var one: int @ tile 0 = 1
compute_set inc { vertex Add @ tile 0 { n = n, step = 1 } }
program main { while { execute inc } one { print "n" n } }

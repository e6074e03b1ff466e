// Audit 2026-11: a run stopped by --max-cycles still prints its summary (and
// writes its profile and trace) up to where it stopped, marked partial, and
// fails with its error. The runaway loop of err_max_cycles.
target mk2(tiles_per_ipu = 2)
codelets "control_codelets.cpp"
var n: int @ tile 0 = 0
var one: int @ tile 0 = 1
compute_set inc { vertex Add @ tile 0 { n = n, step = 1 } }
program main { while { execute inc } one { print "n" n } }

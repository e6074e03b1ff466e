// Audit 2026-11 (report_stale_execution_profile): graph A, run with autoReport
// into a folder before graph B (B.pir) is compiled into the same folder.
target mk2(tiles_per_ipu = 4)
var a: float[1000]
map a -> linear
program main { repeat 50 { a = a + 1.0 } }

// Audit 2026-11 (report_stale_execution_profile): graph B, compiled with
// autoReport into the folder that holds graph A's profiles (A.pir).
target mk2(tiles_per_ipu = 4)
var bbbbbb: int[8]
map bbbbbb -> linear
program main { bbbbbb = bbbbbb * 2 }

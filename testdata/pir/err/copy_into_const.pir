const c: float[2] = 0
var v: float[2]
program main { copy v -> c }

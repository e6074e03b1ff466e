// Operands and result larger than the whole device are refused before the
// product is planned and expanded row by row.
var a: float[16000, 16000]
var b: float[16000, 16000]
program main { c = matmul(a, b) }

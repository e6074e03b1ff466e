var a: float[4]
var b: float[3]
program main { copy a -> b }

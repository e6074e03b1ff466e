var a: float[4]
var b: int[4]
program main { copy a -> b }

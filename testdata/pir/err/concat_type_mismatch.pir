var a: float[2]
var b: int[2]
map concat(a, b) -> tile 0

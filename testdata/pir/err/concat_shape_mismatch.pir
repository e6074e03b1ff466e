var a: float[2, 3]
var b: float[2, 4]
map concat(a, b) -> tile 0

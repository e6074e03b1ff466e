var x: float[4]
var ÿş: int

var x: float[4]
var y: float[4] $

// Target presets and overrides, every element type with its literals, and
// the mapping forms with later maps overriding earlier ones.
target mk1(ipus = 2, tiles_per_ipu = 3, bytes_per_tile = 65536, clock_mhz = 1000, exchange_bytes_per_cycle = 8)

var b: bool[3] = [true, false, true]
var c: char[2] = [-128, 127]
var uc: uchar[2] = [0, 255]
var s: short[2] = [-32768, 32767]
var us: ushort[2] = 65535
var i: int[2] = [-2147483648, 2147483647]
var u: uint[2] = [0, 4294967295]
var l: long = -9223372036854775808
var ul: ulong = 18446744073709551615
var h: half[3] = [65504, 0.1, -inf]
var f: float[2, 3] = [[1e-3, 2.5e10, nan], [0, -0.0, 3]]
var scalar: float

map b -> linear
map c -> tile 5
map uc -> tiles 2..4
map s -> linear(grain = 2)
map us[0] -> tile 1
map us[1] -> tile 1
map i -> tile 0
map i[1] -> tile 4
map u -> tile 0
map l -> tile 0
map ul -> tile 0
map h -> linear
for r in 0..2 { map f[r] -> tile r * 3 + 2 }
map scalar -> tile 5

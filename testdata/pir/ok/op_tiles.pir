// `tiles a..b { … }`: the operations of the block place their work on
// those tiles; blocks nest, and a list of ranges is one set of tiles.
target mk2(ipus = 2, tiles_per_ipu = 4)
var a: float[4] @ tiles 0..4
program main {
  tiles 4..8 {
    b = a + 1.0
    tiles 5..6, 7..8 { c = b * b }
    copy a -> b
  }
  tiles 0..1, 2..4 { fill a 0.0 }
  d = a + b
}

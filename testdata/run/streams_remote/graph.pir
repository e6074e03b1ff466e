// Streams in both directions and a remote buffer: a host-to-device stream
// read three times from a 10-element circular buffer, blocks stored into
// and loaded from remote buffer repeats, a device-to-host stream.
target mk2(tiles_per_ipu = 4)
var a: float[4] @ tile 0
var b: float[4] @ tile 1
stream "in": float[4] from host
stream "out": float[4] to host
remote_buffer "rb": float[4] x 3
program main {
  copy "in" -> a
  copy a -> "rb"[0]
  copy "in" -> a
  copy a -> "rb"[2]
  copy "rb"[0] -> b
  print "b" b
  copy b -> "out"
  copy "in" -> a
  copy a -> "out"
}

// Audit 2026-11 (stream_name_with_equals): `--stream 'a=b=[1,2]'` cut the
// name at its first `=` ("unknown handle 'a'"); names holding `=` are now
// reached, splitting where the name is a known one.
target mk2(tiles_per_ipu = 1)
var y: float[2]
var z: float[2]
map y -> tile 0
map z -> tile 0
stream "a=b": float[2] from host
host_write "w=1" -> z
host_read "r=2" <- z
program main { copy "a=b" -> y  print "y" y }

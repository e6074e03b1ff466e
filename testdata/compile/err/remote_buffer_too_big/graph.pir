// A remote buffer whose size wraps 64 bits: a compile error, not an abort
// of poplar-run (the size is overflow-checked against the host-memory limit).
target mk2(tiles_per_ipu = 2)
remote_buffer "rb": float[4000000000] x 4000000000
program main { }

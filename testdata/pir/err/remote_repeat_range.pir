var a: float[4]
remote_buffer "rb": float[4] x 2
program main { copy "rb"[2] -> a }

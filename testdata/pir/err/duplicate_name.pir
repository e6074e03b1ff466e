var x: float[4]
compute_set x {}

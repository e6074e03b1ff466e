const c: float[2]

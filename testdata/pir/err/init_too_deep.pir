var v: float[2] = [[1.0], [2.0]]

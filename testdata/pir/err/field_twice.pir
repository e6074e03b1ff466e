var v: float[2]
compute_set cs { vertex V { a = v, a = v } }

var v: float[4]
for i in 0..2 { map v[i / (i - i)] -> tile 0 }

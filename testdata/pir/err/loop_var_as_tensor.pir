var v: float[4]
for i in 0..2 { map i -> tile 0 }

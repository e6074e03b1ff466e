var x float[4]

var v: uchar[2] = [255, 256]

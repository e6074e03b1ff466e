var t: float[2, 3, 4]
map transpose(t) -> tile 0

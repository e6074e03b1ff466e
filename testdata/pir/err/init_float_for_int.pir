var v: int = 1.5

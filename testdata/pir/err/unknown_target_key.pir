target mk2(tiles = 4)

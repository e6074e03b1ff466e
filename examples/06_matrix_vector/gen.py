"""Writes the tutorial's host data, as its host program fills it:
hInput[col] = col and hMatrix[row * numCols + col] = row * col, for the
guide's 40x50 run, as raw little-endian float32 files."""
import struct

ROWS, COLS = 40, 50
with open("inputVector.bin", "wb") as f:
    f.write(b"".join(struct.pack("<f", c) for c in range(COLS)))
with open("inputMatrix.bin", "wb") as f:
    f.write(b"".join(struct.pack("<f", r * c) for r in range(ROWS) for c in range(COLS)))

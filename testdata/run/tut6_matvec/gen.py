"""Writes the tutorial 6 case's host data and its expected output.

The matrix and vector hold small integers, so every product and partial sum
is exact in float and the result does not depend on summation order.
"""
import struct

R, C = 40, 50
m = [[float(((r * 13 + c * 5) % 9) - 4) for c in range(C)] for r in range(R)]
x = [float((c % 7) - 3) * 0.5 for c in range(C)]

# .npy version 1.0, little-endian float32, C order.
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (R, C)
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open("matrix.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(b"".join(struct.pack("<f", v) for row in m for v in row))
with open("vector.bin", "wb") as f:
    f.write(b"".join(struct.pack("<f", v) for v in x))

def g(v):
    s = "%g" % v
    return s

y = [sum(m[r][c] * x[c] for c in range(C)) for r in range(R)]
with open("expected.stdout", "w") as f:
    f.write("outputVector: {" + ",".join(g(v) for v in y) + "}\n")

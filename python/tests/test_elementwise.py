"""The elementwise functions of popops::expr beyond arithmetic, through
Python: maths functions and tests of floats, bitwise operators, shifts and
bit counts of integers, against numpy, on both devices; and the type rule
(bitwise operations refuse floats)."""

from __future__ import annotations

import math
from typing import Callable, Dict

import numpy as np
import pytest

import poplar

A = np.array(
    [0.0, -0.0, 0.5, -1.25, 3.0, 100.0, 1e-3, -7.5, np.inf, -np.inf, np.nan, 2.5, -0.75, 0.999, -2.5, 1e20],
    dtype=np.float32,
)
B = np.array([1.0, -1.0, 2.0, 0.5, -3.0, 0.25, 4.0, -2.0, 1.0, -1.0, 1.0, -0.5, 0.0, -0.0, 7.0, 3.0], np.float32)


def run(device: poplar.Device, build: Callable[[poplar.Graph], Dict[str, poplar.Tensor]]) -> Dict[str, np.ndarray]:
    g = poplar.Graph(device.target)
    prog = poplar.Sequence()
    with prog:
        outs = build(g)
    for k, t in outs.items():
        g.create_host_read(k, t)
    e = poplar.Engine(g, [prog], device=device)
    e.run()
    return {k: e.read(k) for k in outs}


def constant(g: poplar.Graph, values: np.ndarray, name: str) -> poplar.Tensor:
    t = g.add_constant(values.dtype, list(values.shape), values, name)
    g.set_tile_mapping(t, 0)
    return t


def test_float_functions_match_numpy(device: poplar.Device) -> None:
    def build(g: poplar.Graph) -> Dict[str, poplar.Tensor]:
        a, b = constant(g, A, "a"), constant(g, B, "b")
        return {
            "sin": a.sin(), "cos": a.cos(), "tan": a.tan(), "arcsin": a.arcsin(), "cbrt": a.cbrt(),
            "expm1": a.expm1(), "exp2": a.exp2(), "log1p": a.log1p(), "rint": a.rint(), "round": a.round(),
            "trunc": a.trunc(), "erf": a.erf(), "arctan2": a.arctan2(b),
            "isfinite": a.isfinite(), "isinf": a.isinf(), "isnan": a.isnan(),
        }

    got = run(device, build)
    with np.errstate(all="ignore"):
        want = {
            "sin": np.sin(A), "cos": np.cos(A), "tan": np.tan(A), "arcsin": np.arcsin(A), "cbrt": np.cbrt(A),
            "expm1": np.expm1(A), "exp2": np.exp2(A), "log1p": np.log1p(A), "rint": np.rint(A),
            # C's round: ties away from zero (numpy's round ties to even).
            "round": np.where(np.isfinite(A), np.sign(A) * np.floor(np.abs(A) + np.float32(0.5)), A),
            "trunc": np.trunc(A), "arctan2": np.arctan2(A, B),
            "isfinite": np.isfinite(A), "isinf": np.isinf(A), "isnan": np.isnan(A),
        }
    for k, w in want.items():
        if k in ("isfinite", "isinf", "isnan", "rint", "round", "trunc"):
            np.testing.assert_array_equal(got[k], w, err_msg=k)
        else:
            # numpy's float32 maths is not the host libm's to the last bit.
            np.testing.assert_allclose(got[k], w.astype(np.float32), rtol=2e-6, atol=1e-37, err_msg=k)
    erf = np.array([math.erf(x) if not math.isnan(x) else math.nan for x in A.astype(np.float64)], np.float32)
    np.testing.assert_allclose(got["erf"], erf, rtol=2e-7, atol=1e-7)
    assert got["isnan"].dtype == np.bool_


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int16, np.uint8, np.int64])
def test_bitwise_operators_and_shifts_match_numpy(device: poplar.Device, dtype: type) -> None:
    info = np.iinfo(dtype)
    iv = np.array([7, -7, 0, -1, 12345, info.min, info.max, 256 % (int(info.max) + 1), 0x55, 1], np.int64)
    iv = iv.astype(dtype)
    jv = np.array([0, 1, 3, 7, 5, 2, 4, 6, 1, 0], dtype=dtype)

    def build(g: poplar.Graph) -> Dict[str, poplar.Tensor]:
        i, j = constant(g, iv, "i"), constant(g, jv, "j")
        return {
            "and": i & j, "or": i | j, "xor": i ^ j, "not": ~i, "xnor": i.bitwise_xnor(j),
            "shl": i << j, "shr": i >> j, "shr_logical": i.shift_right_logical(j),
            "and_const": i & 6, "rshift_const": 100 >> j,
            "popcount": i.popcount(), "clz": i.count_leading_zeros(),
        }

    got = run(device, build)
    bits = 8 * np.dtype(dtype).itemsize
    unsigned = np.dtype(f"uint{bits}").type
    u = iv.astype(unsigned)
    want = {
        "and": iv & jv, "or": iv | jv, "xor": iv ^ jv, "not": ~iv, "xnor": ~(iv ^ jv),
        "shl": iv << jv, "shr": iv >> jv, "shr_logical": (u >> jv.astype(unsigned)).astype(dtype),
        "and_const": iv & dtype(6), "rshift_const": (np.array(100).astype(dtype) >> jv).astype(dtype),
        "popcount": np.array([bin(int(x)).count("1") for x in u], dtype=dtype),
        "clz": np.array([bits - int(x).bit_length() for x in u], dtype=dtype),
    }
    for k, w in want.items():
        assert got[k].dtype == np.dtype(dtype), k
        np.testing.assert_array_equal(got[k], w.astype(dtype), err_msg=k)


def test_shift_counts_past_the_width_shift_every_bit_out(sim: poplar.Device) -> None:
    iv = np.array([5, -5, 5, -5], np.int32)
    jv = np.array([32, 32, 40, -1], np.int32)

    def build(g: poplar.Graph) -> Dict[str, poplar.Tensor]:
        i, j = constant(g, iv, "i"), constant(g, jv, "j")
        return {"shl": i << j, "shr": i >> j, "shr_logical": i.shift_right_logical(j)}

    got = run(sim, build)
    np.testing.assert_array_equal(got["shl"], [0, 0, 0, 0])
    np.testing.assert_array_equal(got["shr"], [0, -1, 0, -1])
    np.testing.assert_array_equal(got["shr_logical"], [0, 0, 0, 0])


def test_bitwise_operators_refuse_floats_and_maths_refuses_integers() -> None:
    g = poplar.Graph(poplar.Target.ipu_model("ipu2", tiles_per_ipu=8))
    a = g.add_variable(np.float32, [4], "a")
    i = g.add_variable(np.int32, [4], "i")
    g.set_tile_mapping(a, 0)
    g.set_tile_mapping(i, 0)
    prog = poplar.Sequence()
    with prog:
        with pytest.raises(TypeError, match="`bitwise_and` needs integer operands, not `float`"):
            a & a
        with pytest.raises(TypeError, match="`shift_left` needs integer operands"):
            a << 1
        with pytest.raises(TypeError, match="`bitwise_not` needs an integer operand"):
            ~a
        with pytest.raises(TypeError, match="`sin` needs a `float` or `half` operand, not `int`"):
            i.sin()


def test_variance_conversions_match_numpy(device: poplar.Device) -> None:
    var = np.array([0.0, 0.25, 1.0, 4.0, 1e-6, 100.0, np.inf, np.nan], np.float32)
    isd = np.array([1.0, 2.0, 0.5, 1e-3, 4.0, -3.0, np.inf, 0.0], np.float32)
    eps = np.float32(1e-5)

    def build(g: poplar.Graph) -> Dict[str, poplar.Tensor]:
        v, s = constant(g, var, "var"), constant(g, isd, "isd")
        e = constant(g, np.array(eps, np.float32), "eps")  # a scalar: it broadcasts
        return {
            "to_isd": v.variance_to_inv_std_dev(e),
            "to_isd_const": v.variance_to_inv_std_dev(1e-5),
            "to_var": s.inv_std_dev_to_variance(e),
            "to_var_half": s.cast(np.float16).inv_std_dev_to_variance(0.5),
        }

    got = run(device, build)
    with np.errstate(all="ignore"):
        to_isd = (np.float32(1) / np.sqrt(var + eps)).astype(np.float32)
        to_var = (np.float32(1) / (isd * isd) - eps).astype(np.float32)
        h = isd.astype(np.float16).astype(np.float32)
        to_var_half = (np.float32(1) / (h * h) - np.float32(0.5)).astype(np.float16)
    np.testing.assert_array_equal(got["to_isd"], to_isd)
    np.testing.assert_array_equal(got["to_isd_const"], to_isd)
    np.testing.assert_array_equal(got["to_var"], to_var)
    np.testing.assert_array_equal(got["to_var_half"], to_var_half)
    g = poplar.Graph(device.target)
    with poplar.Sequence(), pytest.raises(TypeError, match="variance_to_inv_std_dev"):
        i = constant(g, np.array([1, 2], np.int32), "i")
        i.variance_to_inv_std_dev(i)

"""poprand through Python (statistics, determinism, seeds, errors) and the
elementwise operators added with it, against numpy, on both devices."""

from __future__ import annotations

import math
from typing import Dict

import numpy as np
import pytest

import poplar

N = 100_000


def small_target() -> poplar.Target:
    return poplar.Target.ipu_model("ipu2", tiles_per_ipu=8)


def run_random(device: poplar.Device) -> Dict[str, np.ndarray]:
    g = poplar.Graph(device.target)
    ref = g.add_variable(np.float32, [N // 100, 100], "ref")
    g.map_linearly(ref)
    seed = g.add_constant(np.uint32, [2], [7, 9], "seed")
    g.set_tile_mapping(seed, 0)
    x = g.add_constant(np.float16, [N // 100, 100], 2.0, "x")
    g.map_linearly(x)
    rows = g.add_variable(np.float32, [N // 100, 1], "rows")
    g.map_linearly(rows)
    prog = poplar.Sequence()
    outs = {
        "uniform": g.uniform(ref, np.float32, 2.0, 5.0, prog, seed=seed, seed_modifier=1),
        "uniform_again": g.uniform(ref, np.float32, 2.0, 5.0, prog, seed=seed, seed_modifier=1),
        "uniform_other": g.uniform(ref, np.float32, 2.0, 5.0, prog, seed=seed, seed_modifier=2),
        "normal": g.normal(ref, np.float32, -1.0, 0.5, prog, seed=seed),
        "normal_half": g.normal(ref, "half", 0.0, 1.0, prog, seed=seed, seed_modifier=3),
        "truncated": g.truncated_normal(ref, np.float32, 0.0, 1.0, 1.0, prog, seed=seed, seed_modifier=4),
        "bernoulli": g.bernoulli(ref, np.int32, 0.75, prog, seed=seed, seed_modifier=5),
        "dropout": g.dropout(x, ref, 0.25, 4.0, prog, seed=seed, seed_modifier=6),
        # Whole rows: a mask of shape [rows, 1] broadcast along each row.
        "shaped": g.shaped_dropout(x, rows, 0.5, 3.0, prog, seed=seed, seed_modifier=7),
        "free0": g.uniform(ref, np.float32, 0.0, 1.0, prog),
        "free1": g.uniform(ref, np.float32, 0.0, 1.0, prog),
    }
    for k, t in outs.items():
        g.create_host_read(k, t)
    e = poplar.Engine(g, [prog], device=device)
    e.run()
    return {k: e.read(k).ravel() for k in outs}


@pytest.fixture(scope="module")
def results() -> Dict[str, Dict[str, np.ndarray]]:
    t = small_target()
    return {
        "sim": run_random(poplar.Device.ipu_model(tiles_per_ipu=t.tiles_per_ipu)),
        "cpu": run_random(poplar.Device.cpu()),
    }


def test_distributions_have_their_moments(results: Dict[str, Dict[str, np.ndarray]]) -> None:
    r = results["sim"]
    u = r["uniform"]
    assert u.min() >= 2.0 and u.max() <= 5.0
    assert abs(u.mean() - 3.5) < 5 * math.sqrt(0.75 / N)
    assert abs(u.var() - 0.75) < 0.02 * 0.75
    n = r["normal"]
    assert abs(n.mean() + 1.0) < 5 * 0.5 / math.sqrt(N)
    assert abs(n.var() - 0.25) < 0.02 * 0.25
    h = r["normal_half"]
    assert h.dtype == np.float16
    assert abs(float(h.astype(np.float64).mean())) < 5 / math.sqrt(N)
    assert abs(float(h.astype(np.float64).var()) - 1.0) < 0.02
    t = r["truncated"]
    assert t.min() >= -1.0 and t.max() <= 1.0
    a = 1.0
    want = 1 - 2 * a * math.exp(-a * a / 2) / math.sqrt(2 * math.pi) / math.erf(a / math.sqrt(2))
    assert abs(t.var() - want) < 0.02 * want
    b = r["bernoulli"]
    assert b.dtype == np.int32 and set(np.unique(b)) <= {0, 1}
    assert abs(b.mean() - 0.75) < 5 * math.sqrt(0.75 * 0.25 / N)
    d = r["dropout"]
    assert set(np.unique(d)) <= {0.0, 8.0}
    assert abs((d != 0).mean() - 0.25) < 5 * math.sqrt(0.25 * 0.75 / N)

    s = r["shaped"].reshape(N // 100, 100)
    assert s.dtype == np.float16
    assert set(np.unique(s)) <= {0.0, 6.0}
    assert (s == s[:, :1]).all(), "each row is kept or dropped whole"
    kept = (s[:, 0] != 0).mean()
    assert abs(kept - 0.5) < 5 * math.sqrt(0.25 / (N // 100))


def test_values_are_deterministic(results: Dict[str, Dict[str, np.ndarray]]) -> None:
    for k in results["sim"]:
        np.testing.assert_array_equal(results["sim"][k].view(np.uint8), results["cpu"][k].view(np.uint8))
    r = results["sim"]
    np.testing.assert_array_equal(r["uniform"], r["uniform_again"])
    assert not np.array_equal(r["uniform"], r["uniform_other"])
    assert not np.array_equal(r["free0"], r["free1"])


def test_bad_parameters_raise() -> None:
    g = poplar.Graph(small_target())
    ref = g.add_variable(np.float32, [4], "ref")
    g.set_tile_mapping(ref, 0)
    prog = poplar.Sequence()
    with pytest.raises(ValueError, match="probability 1.5"):
        g.bernoulli(ref, np.float32, 1.5, prog)
    with pytest.raises(ValueError, match="greater than max"):
        g.uniform(ref, np.float32, 3.0, 1.0, prog)
    with pytest.raises(ValueError, match="keep probability"):
        g.dropout(ref, ref, 1.5, 1.0, prog)
    with pytest.raises(ValueError, match="keep probability"):
        g.shaped_dropout(ref, ref, 0.0, 1.0, prog)
    wide = g.add_variable(np.float32, [2], "wide")
    g.set_tile_mapping(wide, 0)
    with pytest.raises(ValueError, match="does not broadcast"):
        g.shaped_dropout(ref, wide, 0.5, 1.0, prog)
    with pytest.raises(TypeError, match="float` or `half"):
        g.normal(ref, np.int32, 0.0, 1.0, prog)
    bad = g.add_variable(np.float32, [2], "bad")
    g.set_tile_mapping(bad, 0)
    with pytest.raises(TypeError, match="seed"):
        g.uniform(ref, np.float32, 0.0, 1.0, prog, seed=bad)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_new_elementwise_operators_match_numpy(device: poplar.Device, dtype: type) -> None:
    g = poplar.Graph(device.target)
    av = np.array([1.5, -2.5, 0.0, 7.25, -0.0, np.nan, -7.0, 2.0], dtype=dtype)
    bv = np.array([2.0, 2.0, -1.0, -3.0, 1.0, 1.0, 3.0, -0.5], dtype=dtype)
    a = g.add_constant(dtype, [8], av, "a")
    b = g.add_constant(dtype, [8], bv, "b")
    g.set_tile_mapping(a, 0)
    g.set_tile_mapping(b, 0)
    prog = poplar.Sequence()
    with prog:
        outs = {
            "where": poplar.where(a > b, a, b),
            "rem": a % b,
            "sign": a.sign(),
            "floor": a.floor(),
            "ceil": a.ceil(),
            "and": (a > b).logical_and(a < 3.0),
            "or": (a > b).logical_or(a < 0.0),
            "not": (a > b).logical_not(),
        }
    outs["gelu_erf"] = g.nonlinearity("gelu_erf", a, prog)
    for k, t in outs.items():
        g.create_host_read(k, t)
    e = poplar.Engine(g, [prog], device=device)
    e.run()
    with np.errstate(invalid="ignore"):
        gt = av > bv
        want = {
            "where": np.where(gt, av, bv),
            "rem": np.fmod(av, bv),
            # PopLibs' signum: 0 for NaN (numpy's sign gives NaN).
            "sign": np.nan_to_num(np.sign(av), nan=0.0).astype(dtype),
            "floor": np.floor(av),
            "ceil": np.ceil(av),
            "and": gt & (av < 3.0),
            "or": gt | (av < 0.0),
            "not": ~gt,
        }
    for k, w in want.items():
        np.testing.assert_array_equal(e.read(k), w, err_msg=k)
    x = av.astype(np.float64)
    erf = np.array([math.erf(v * 0.7071067811865476) if not math.isnan(v) else math.nan for v in x])
    gelu = ((1 + erf) * 0.5 * x).astype(dtype)
    tol = 1e-6 if dtype == np.float32 else 1e-3
    np.testing.assert_allclose(e.read("gelu_erf").astype(np.float64), gelu, rtol=tol, atol=tol)


def test_integer_remainder_takes_the_sign_of_the_dividend(device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    iv = np.array([7, -7, 7, -7, 0, 9], dtype=np.int32)
    jv = np.array([3, 3, -3, -3, 5, 4], dtype=np.int32)
    i = g.add_constant(np.int32, [6], iv, "i")
    j = g.add_constant(np.int32, [6], jv, "j")
    g.set_tile_mapping(i, 0)
    g.set_tile_mapping(j, 0)
    prog = poplar.Sequence()
    with prog:
        r = i % j
        s = (i - 1).sign()
    g.create_host_read("r", r)
    g.create_host_read("s", s)
    e = poplar.Engine(g, [prog], device=device)
    e.run()
    np.testing.assert_array_equal(e.read("r"), np.fmod(iv, jv))
    np.testing.assert_array_equal(e.read("s"), np.sign(iv - 1))


def test_logical_operators_refuse_floats() -> None:
    g = poplar.Graph(small_target())
    a = g.add_variable(np.float32, [4], "a")
    g.set_tile_mapping(a, 0)
    prog = poplar.Sequence()
    with prog:
        with pytest.raises(TypeError, match="`logical_and` needs `bool` operands, not `float`"):
            a.logical_and(a)
        with pytest.raises(TypeError, match="condition"):
            poplar.where(a, a, a)


def splitmix_draw(seed: int, modifier: int, i: int, j: int = 0) -> int:
    """Draw `j` of element `i`, as docs/pir-ops.md ("Random numbers") defines it."""
    mask = (1 << 64) - 1
    g = 0x9E3779B97F4A7C15

    def mix(z: int) -> int:
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    key = mix(seed ^ mix((g * (modifier + 1)) & mask))
    return mix((key + g * (16 * i + j + 1)) & mask)


def test_values_follow_the_documented_generator(device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    ref = g.add_variable(np.float32, [3, 7], "ref")
    g.map_linearly(ref)
    seed = g.add_constant(np.uint32, [2], [0xDEADBEEF, 0x12345678], "seed")
    g.set_tile_mapping(seed, 0)
    prog = poplar.Sequence()
    u = g.uniform(ref, np.float32, -1.5, 2.5, prog, seed=seed, seed_modifier=77)
    b = g.bernoulli(ref, np.int32, 0.375, prog, seed=seed, seed_modifier=78)
    g.create_host_read("u", u)
    g.create_host_read("b", b)
    e = poplar.Engine(g, [prog], device=device)
    e.run()
    s = 0xDEADBEEF | (0x12345678 << 32)
    want_u = np.array(
        [np.float32(-1.5) + np.float32(4.0) * (np.float32(splitmix_draw(s, 77, i) >> 40) * np.float32(2.0**-24))
         for i in range(21)],
        dtype=np.float32,
    )
    want_b = np.array([int((splitmix_draw(s, 78, i) >> 32) < round(0.375 * 2**32)) for i in range(21)], np.int32)
    np.testing.assert_array_equal(e.read("u").ravel(), want_u)
    np.testing.assert_array_equal(e.read("b").ravel(), want_b)

"""Issue 26's re-audit of the Python entry points: every way Python writes
a tensor that overlaps what it reads gives numpy's answer (operands are
read before the output is written), on both devices and bit for bit the
same; free-text names reach the report page as text."""

from __future__ import annotations

import numpy as np

import poplar


def test_overlapping_writes_give_numpy_results(device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    a = g.add_variable(np.float32, [8], "a")
    b = g.add_variable(np.float32, [8], "b")
    c = g.add_variable(np.float32, [8], "c")
    m = g.add_variable(np.float32, [4, 4], "m")
    for name, t in (("a", a), ("b", b), ("c", c), ("m", m)):
        g.map_linearly(t)
        g.create_host_write(name, t)
        g.create_host_read(name + "_out", t)
    prog = poplar.Sequence()
    with prog:
        shifted = a[1:8]
        shifted += a[0:7]
        even = c[0:8:2]
        even *= c[1:8:2]
    prog.add(poplar.Copy(b[0:6], b[2:8]))
    g.reduce(m, [0], prog, out=m[0], update=True)
    product = g.matmul(m, m.T, prog)
    g.create_host_read("product", product)
    e = poplar.Engine(g, [prog], device=device)
    av = np.arange(8, dtype=np.float32)
    bv = np.arange(8, dtype=np.float32) * 3
    cv = np.arange(8, dtype=np.float32) + 1
    mv = np.arange(16, dtype=np.float32).reshape(4, 4) / 4
    for name, v in (("a", av), ("b", bv), ("c", cv), ("m", mv)):
        e.write(name, v)
    e.run()
    want_a = av.copy()
    want_a[1:] += av[:-1]
    want_b = bv.copy()
    want_b[2:] = bv[:-2]
    want_c = cv.copy()
    want_c[::2] = cv[::2] * cv[1::2]
    want_m = mv.copy()
    want_m[0] = mv[0] + mv.sum(0)
    np.testing.assert_array_equal(e.read("a_out"), want_a)
    np.testing.assert_array_equal(e.read("b_out"), want_b)
    np.testing.assert_array_equal(e.read("c_out"), want_c)
    np.testing.assert_allclose(e.read("m_out"), want_m, rtol=1e-6)
    np.testing.assert_allclose(e.read("product"), want_m @ want_m.T, rtol=1e-5)


def test_collectives_into_their_own_input() -> None:
    outs = []
    target = poplar.Target.ipu_model("ipu2", num_ipus=3, tiles_per_ipu=4)
    for d in (poplar.Device.ipu_model("ipu2", num_ipus=3, tiles_per_ipu=4), poplar.Device.cpu()):
        g = poplar.Graph(target, replication_factor=3)
        x = g.add_variable(np.float32, [6], "x")
        g.map_linearly(x)
        g.create_host_write("x", x)
        g.create_host_read("x_out", x)
        prog = poplar.Sequence()
        total = g.all_reduce(x[0:5], prog, op="add")
        prog.add(poplar.Copy(total, x[1:6]))
        e = poplar.Engine(g, [prog], device=d)
        xv = np.arange(18, dtype=np.float32).reshape(3, 6)
        e.write("x", xv)
        e.run()
        want = xv.copy()
        want[:, 1:] = xv[:, 0:5].sum(0)
        got = e.read("x_out")
        np.testing.assert_array_equal(got, want)
        outs.append(got.tobytes())
    assert outs[0] == outs[1]


def test_names_reach_the_report_as_text(device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    t = g.add_variable(np.float32, [4], "t{{SCRIPT}}{{STYLE}}")
    g.map_linearly(t)
    g.create_host_write("w{{DATA}}", t)
    prog = poplar.Sequence()
    with prog:
        t += 1
    e = poplar.Engine(g, [prog], device=device)
    e.write("w{{DATA}}", np.zeros(4, dtype=np.float32))
    e.run()
    page = e.report_html(title="{{SCRIPT}}{{DATA}}")
    assert page.count("use strict") == 1
    assert page.lstrip().lower().startswith("<!doctype html")

"""The Python package's bindings, both devices, the error paths and the
dtype matrix. Each result is checked against numpy or against the same
graph run by the command line."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any, Dict, List, Tuple

import numpy as np
import numpy.typing as npt
import pytest

import poplar
from conftest import ROOT, poplar_run


def build_axpy(device: poplar.Device, n: int = 32) -> Tuple[poplar.Graph, poplar.Program]:
    g = poplar.Graph(device.target)
    x = g.add_variable(np.float32, [n], "x")
    y = g.add_variable(np.float32, [n], "y")
    g.map_linearly(x)
    g.map_linearly(y)
    g.create_host_write("x", x)
    g.create_host_write("y", y)
    prog = poplar.Sequence()
    with prog:
        r = 2.5 * x + y - 1
        s = (r * r).sqrt().maximum(x)
    g.create_host_read("r", r)
    g.create_host_read("s", s)
    return g, prog


def test_targets_and_devices() -> None:
    t = poplar.Target.ipu_model("ipu1")
    assert (t.arch, t.num_tiles, t.num_worker_contexts) == ("ipu1", 1216, 6)
    assert poplar.Target.ipu_model("ipu2", num_ipus=2, tiles_per_ipu=8).num_tiles == 16
    assert poplar.Device.cpu().kind == "cpu"
    assert poplar.Device.ipu_model().kind == "sim"
    with pytest.raises(poplar.PoplarError, match="unknown IPU architecture 'ipu9'"):
        poplar.Target.ipu_model("ipu9")


def test_ipu_link_options() -> None:
    t = poplar.Target.ipu_model(num_ipus=4, tiles_per_ipu=4, options={"ipuLinkConfiguration": "barleyTwist"})
    assert (t.ipu_link_configuration, t.ipu_link_topology) == ("barleyTwist", "mesh")
    assert poplar.Target.ipu_model(num_ipus=32, tiles_per_ipu=2).ipu_link_configuration == "slidingWindow"
    with pytest.raises(ValueError, match="did you mean 'ipuLinkTopology'"):
        poplar.Target.ipu_model(num_ipus=2, options={"ipuLinkTopolgy": "line"})
    # IPU 0 reaches IPUs 1 and 2 under a mesh's barleyTwist, not 3.
    device = poplar.Device.ipu_model(num_ipus=4, tiles_per_ipu=4, options={"ipuLinkConfiguration": "barleyTwist"})
    g = poplar.Graph(t)
    a = g.add_variable(np.float32, [8], "a")
    b = g.add_variable(np.float32, [8], "b")
    g.set_tile_mapping(a, 0)
    g.set_tile_mapping(b, 12)
    with pytest.raises(poplar.CompileError, match="IPU 0 sends to IPUs 1, 2 only"):
        poplar.Engine(g, [poplar.Copy(a, b)], device=device)


def test_elementwise_operators_match_numpy(device: poplar.Device) -> None:
    g, prog = build_axpy(device)
    e = poplar.Engine(g, [prog], device=device)
    x = np.linspace(-4, 4, 32, dtype=np.float32)
    y = np.arange(32, dtype=np.float32) / 7
    e.write("x", x)
    e.write("y", y)
    e.run()
    r = (np.float32(2.5) * x + y) - np.float32(1)
    np.testing.assert_array_equal(e.read("r"), r)
    np.testing.assert_allclose(e.read("s"), np.maximum(np.sqrt(r * r), x), rtol=1e-6)


def test_comparisons_and_in_place_operators(device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    a = g.add_variable(np.int32, [6], "a")
    g.map_linearly(a)
    g.create_host_write("a", a)
    g.create_host_read("a_out", a)
    prog = poplar.Sequence()
    with prog:
        eq = a == 3
        ne = a != 3
        a += 10
        a *= 2
    g.create_host_read("eq", eq)
    g.create_host_read("ne", ne)
    e = poplar.Engine(g, {"main": prog}, device=device)
    v = np.arange(6, dtype=np.int32)
    e.write("a", v)
    e.run("main")
    np.testing.assert_array_equal(e.read("eq"), v == 3)
    np.testing.assert_array_equal(e.read("ne"), v != 3)
    np.testing.assert_array_equal(e.read("a_out"), (v + 10) * 2)
    assert len({a, a}) == 1
    with pytest.raises(ValueError, match="no program called 'mian' \\(programs: main\\)"):
        e.run("mian")
    with pytest.raises(ValueError, match="not an identifier"):
        poplar.Engine(g, {"my prog": prog})


def test_sim_and_cpu_agree_bit_for_bit() -> None:
    out = []
    for d in (poplar.Device.ipu_model(tiles_per_ipu=16), poplar.Device.cpu()):
        g = poplar.Graph(poplar.Target.ipu_model(tiles_per_ipu=16))
        a = g.add_variable(np.float32, [16, 8], "a")
        b = g.add_variable(np.float32, [8, 4], "b")
        g.map_linearly(a)
        g.map_linearly(b)
        g.create_host_write("a", a)
        g.create_host_write("b", b)
        prog = poplar.Sequence()
        c = g.matmul(a, b, prog)
        t = g.nonlinearity("tanh", c, prog)
        total = g.reduce(t, [0], prog)
        g.create_host_read("total", total)
        e = poplar.Engine(g, [prog], device=d)
        rng = np.random.default_rng(7)
        e.write("a", rng.standard_normal((16, 8)).astype(np.float32))
        e.write("b", rng.standard_normal((8, 4)).astype(np.float32))
        e.run()
        out.append(e.read("total"))
    assert out[0].tobytes() == out[1].tobytes()


def test_matmul_operator_and_reduce_match_numpy(sim: poplar.Device) -> None:
    g = poplar.Graph(sim.target)
    a = g.add_variable(np.float32, [12, 5], "a")
    b = g.add_variable(np.float32, [5, 3], "b")
    g.map_linearly(a)
    g.map_linearly(b)
    g.create_host_write("a", a)
    g.create_host_write("b", b)
    prog = poplar.Sequence()
    with prog:
        c = a @ b
    m = g.reduce(c, [1], prog, op="max")
    g.create_host_read("c", c)
    g.create_host_read("m", m)
    e = poplar.Engine(g, [prog], device=sim)
    av = np.arange(60, dtype=np.float32).reshape(12, 5) / 10
    bv = np.arange(15, dtype=np.float32).reshape(5, 3) - 7
    e.write("a", av)
    e.write("b", bv)
    e.run()
    np.testing.assert_allclose(e.read("c"), av @ bv, rtol=1e-5)
    np.testing.assert_allclose(e.read("m"), (av @ bv).max(axis=1), rtol=1e-5)


def test_views(sim: poplar.Device) -> None:
    g = poplar.Graph(sim.target)
    t = g.add_variable(np.float32, [4, 6], "t")
    assert t.shape == (4, 6) and t.dtype == "float32" and t.ndim == 2 and len(t) == 4
    assert t[1:3].shape == (2, 6)
    assert t[:, ::2].shape == (4, 3)
    assert t[2].shape == (6,)
    assert t.T.shape == (6, 4)
    assert t.reshape([3, 8]).shape == (3, 8)
    assert t.flatten().shape == (24,)
    assert poplar.concat([t, t[0:1]], 0).shape == (5, 6)
    assert t[0].broadcast(3, 0).shape == (18,)
    assert t[0:2].intersects(t[1]) and not t[0].intersects(t[1])
    with pytest.raises(IndexError):
        t[9]
    with pytest.raises(IndexError):
        t.reshape([5, 5])


def test_views_move_the_right_elements(device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    t = g.add_variable(np.int32, [4, 6], "t")
    g.map_linearly(t)
    g.create_host_write("t", t)
    out = g.add_variable(np.int32, [6, 2], "out")
    g.map_linearly(out)
    g.create_host_read("out", out)
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        t[:, ::0]
    prog = poplar.Copy(t[1:3].reverse(1).T, out)
    e = poplar.Engine(g, [prog], device=device)
    tv = np.arange(24, dtype=np.int32).reshape(4, 6)
    e.write("t", tv)
    e.run()
    np.testing.assert_array_equal(e.read("out"), tv[1:3, ::-1].T)


@pytest.mark.parametrize(
    "key",
    [
        (slice(None, None, -1),),
        (slice(None), slice(None, None, -1)),
        (slice(3, 0, -2), slice(5, None, -4)),
        (slice(3, 0, -1), 2),
        (2, slice(4, 1, -3)),
        (slice(None, None, -3), slice(1, 5, 2)),
        (slice(None, -1), slice(-4, None)),
        (-1, slice(-2, -6, -1)),
        (slice(1, 100), slice(-100, 3)),
        (slice(100, None, -2), slice(None, -100, -1)),
    ],
)
def test_subscripts_read_as_numpys(key: Tuple[Any, ...], device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    t = g.add_variable(np.int32, [4, 6], "t")
    g.map_linearly(t)
    g.create_host_write("t", t)
    tv = np.arange(24, dtype=np.int32).reshape(4, 6)
    want = tv[key]
    view = t[key]
    assert view.shape == want.shape
    out = g.add_variable(np.int32, list(want.shape), "out")
    g.map_linearly(out)
    g.create_host_read("out", out)
    e = poplar.Engine(g, [poplar.Copy(view, out)], device=device)
    e.write("t", tv)
    e.run()
    np.testing.assert_array_equal(e.read("out"), want)


def test_subscripts_fail_as_numpys(device: poplar.Device) -> None:
    t = poplar.Graph(device.target).add_variable(np.int32, [4, 3], "t")
    tv = np.zeros((4, 3))
    for key in [(slice(1, 3, -1),), (slice(4, None),), (slice(-1, 0),)]:
        assert t[key].shape == tv[key].shape == (0, 3)
    with pytest.raises(IndexError, match="index -5 is out of range for dimension 0 of size 4"):
        t[-5]
    with pytest.raises(IndexError, match="index 3 is out of range for dimension 1 of size 3"):
        t[0, 3]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        t[::0]


DTYPES = ["float32", "float16", "int32", "uint32", "int16", "uint16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtype_round_trip(dtype: str, device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    t = g.add_variable(dtype, [3, 5], "t")
    g.map_linearly(t)
    g.create_host_write("in", t)
    g.create_host_read("out", t)
    e = poplar.Engine(g, [poplar.Sequence()], device=device)
    v = (np.arange(15).reshape(3, 5) % 7).astype(dtype)
    e.write("in", v)
    got = e.read("out")
    assert got.dtype == np.dtype(dtype) and got.shape == (3, 5)
    np.testing.assert_array_equal(got, v)
    other = "float64" if dtype != "float64" else "int32"
    with pytest.raises(TypeError, match="'in' holds " + dtype):
        e.write("in", v.astype(other))
    with pytest.raises(ValueError, match=r"'in' has shape \[3, 5\]"):
        e.write("in", np.zeros(4, dtype=dtype))


def test_numpy_dtype_objects_and_poplar_names() -> None:
    g = poplar.Graph(poplar.Target.ipu_model(tiles_per_ipu=4))
    assert g.add_variable(np.float16, [2]).dtype == "float16"
    assert g.add_variable("half", [2]).dtype == "float16"
    assert g.add_variable(np.dtype("int16"), [2]).dtype == "int16"
    with pytest.raises(TypeError, match="unsupported dtype 'complex64'"):
        g.add_variable(np.complex64, [2])


def test_unknown_handle_is_a_value_error(sim: poplar.Device) -> None:
    g, prog = build_axpy(sim)
    e = poplar.Engine(g, [prog], device=sim)
    with pytest.raises(ValueError, match="no host handle, stream or remote buffer called 'z'"):
        e.read("z")


CODELET = textwrap.dedent(
    """
    #include <poplar/Vertex.hpp>
    using namespace poplar;
    class Scale : public Vertex {
    public:
      Input<Vector<float>> in;
      Output<Vector<float>> out;
      float k;
      bool compute() {
        for (unsigned i = 0; i < in.size(); ++i) out[i] = k * in[i];
        return true;
      }
    };
    class Trap : public Vertex {
    public:
      Input<Vector<float>> in;
      bool compute() { return in[100000] > 0; }
    };
    """
)


def test_codelets_from_text_vertices_and_fields(device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    g.add_codelets(CODELET)
    a = g.add_variable(np.float32, [8], "a")
    b = g.add_variable(np.float32, [8], "b")
    last = device.target.num_tiles - 1
    g.set_tile_mapping(a, last)
    g.set_tile_mapping(b, last)
    cs = g.add_compute_set("scale")
    g.add_vertex(cs, "Scale", {"in": a, "out": b, "k": 3}, tile=last)
    g.create_host_write("a", a)
    g.create_host_read("b", b)
    e = poplar.Engine(g, [poplar.Execute(cs)], device=device)
    e.write("a", np.arange(8, dtype=np.float32))
    e.run()
    np.testing.assert_array_equal(e.read("b"), 3 * np.arange(8, dtype=np.float32))


def test_graph_errors_name_what_is_wrong() -> None:
    g = poplar.Graph(poplar.Target.ipu_model(tiles_per_ipu=4))
    g.add_codelets(CODELET)
    cs = g.add_compute_set("cs")
    with pytest.raises(poplar.GraphError, match="unknown vertex type 'Scal'; did you mean 'Scale'"):
        g.add_vertex(cs, "Scal")
    v = g.add_vertex(cs, "Scale")
    with pytest.raises(poplar.GraphError, match="has no field 'inn'; did you mean 'in'"):
        g.connect(v, "inn", g.add_variable(np.float32, [2]))
    with pytest.raises(TypeError, match="holds float but the tensor holds int"):
        g.connect(v, "in", g.add_variable(np.int32, [2]))
    with pytest.raises(poplar.CompileError, match=r"<source>:\d+:\d+: error"):
        g.add_codelets("class Broken : public poplar::Vertex { bool compute() { return x; } };")
    a = g.add_variable(np.float32, [4])
    with pytest.raises(poplar.PoplarError, match="inside `with program:`"):
        a + a


def test_a_trap_names_its_tile_and_vertex(sim: poplar.Device) -> None:
    g = poplar.Graph(sim.target)
    g.add_codelets(CODELET)
    a = g.add_variable(np.float32, [4], "a")
    g.set_tile_mapping(a, 2)
    cs = g.add_compute_set("oops")
    g.add_vertex(cs, "Trap", {"in": a}, tile=2)
    e = poplar.Engine(g, [poplar.Execute(cs)], device=sim)
    with pytest.raises(poplar.RunError, match=r"tile 2.*Trap|Trap.*tile 2"):
        e.run()


def test_control_flow(device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    acc = g.add_variable(np.int32, [4], "acc")
    sel = g.add_variable(np.int32, [], "sel")
    g.map_linearly(acc)
    g.set_tile_mapping(sel, 0)
    g.create_host_write("acc", acc)
    g.create_host_write("sel", sel)
    g.create_host_read("acc_out", acc)
    step = poplar.Sequence()
    with step:
        bumped = acc + 1
    step.add(poplar.Copy(bumped, acc))
    double = poplar.Sequence()
    with double:
        twice = acc * 2
    double.add(poplar.Copy(twice, acc))
    prog = poplar.Sequence(
        poplar.Repeat(5, step),
        poplar.If(sel, double),
        poplar.Switch(sel, {0: step, 1: double}, default=poplar.Sequence()),
    )
    e = poplar.Engine(g, [prog], device=device)
    for s, want in [(0, 6), (1, 20)]:
        e.write("acc", np.zeros(4, dtype=np.int32))
        e.write("sel", np.array(s, dtype=np.int32))
        e.run()
        np.testing.assert_array_equal(e.read("acc_out"), np.full(4, want, dtype=np.int32))


def test_functions_run_where_they_are_called(device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    a = g.add_variable(np.int32, [4], "a")
    g.map_linearly(a)
    g.create_host_write("a", a)
    g.create_host_read("a_out", a)
    bump = poplar.Sequence()
    with bump:
        a += 3
    f = g.add_function(bump)
    e = poplar.Engine(g, [poplar.Sequence(poplar.Call(f), poplar.Repeat(2, poplar.Call(f)))], device=device)
    e.write("a", np.zeros(4, dtype=np.int32))
    e.run()
    np.testing.assert_array_equal(e.read("a_out"), np.full(4, 9, dtype=np.int32))


def test_streams_read_arrays_in_place_and_call_functions(device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    t = g.add_variable(np.float32, [4], "t")
    g.map_linearly(t)
    inp = g.add_host_to_device_fifo("in", np.float32, 4)
    out = g.add_device_to_host_fifo("out", np.float32, 4)
    body = poplar.Sequence(poplar.Copy(inp, t))
    with body:
        u = t * 10
    body.add(poplar.Copy(u, out))
    e = poplar.Engine(g, [poplar.Repeat(2, body)], device=device)
    src = np.arange(8, dtype=np.float32)
    seen = []
    e.connect_stream("in", src)
    e.connect_stream("out", lambda a: seen.append(a.copy()))
    e.run()
    np.testing.assert_array_equal(np.concatenate(seen), 10 * src)
    # A to-device callable, and the in-place buffer written by the device.
    dst = np.zeros(4, dtype=np.float32)
    e.connect_stream("in", lambda: np.ones(4, dtype=np.float32))
    e.connect_stream("out", dst)
    e.run()
    np.testing.assert_array_equal(dst, np.full(4, 10, dtype=np.float32))
    with pytest.raises(TypeError, match="stream 'in' moves float32; the array is int64"):
        e.connect_stream("in", np.zeros(4, dtype=np.int64))
    with pytest.raises(poplar.StreamError, match="C-contiguous and writeable"):
        e.connect_stream("in", np.zeros(8, dtype=np.float32)[::2])


def test_a_callback_error_stops_the_run(sim: poplar.Device) -> None:
    g = poplar.Graph(sim.target)
    t = g.add_variable(np.float32, [4], "t")
    g.map_linearly(t)
    inp = g.add_host_to_device_fifo("in", np.float32, 4)
    e = poplar.Engine(g, [poplar.Copy(inp, t)], device=sim)

    def bad() -> Any:
        raise RuntimeError("no data today")

    e.connect_stream("in", bad)
    with pytest.raises(poplar.RunError, match="no data today"):
        e.run()


def test_executables_serialize_and_pir_round_trips(sim: poplar.Device, tmp_path: Any, capfd: Any) -> None:
    g, prog = build_axpy(sim)
    x = np.arange(32, dtype=np.float32)
    results = []
    e = poplar.Engine(g, [prog], device=sim)
    exe = poplar.Executable.deserialize(e.serialize_executable())
    pir = poplar.compile_pir(g.to_pir([prog]))
    for engine in (e, poplar.Engine(exe, device=sim), poplar.Engine(pir, device=sim)):
        engine.write("x", x)
        engine.write("y", x)
        engine.run()
        results.append((engine.read("s").tobytes(), engine.execution_profile()["simulation"]["cycles"]))
    assert results[0] == results[1] == results[2]
    with pytest.raises(poplar.CompileError, match="not a poplar-rs executable"):
        poplar.Executable.deserialize(b"garbage")
    with pytest.raises(poplar.CompileError, match=r"^<pir>:1:1: error"):
        poplar.compile_pir("graph {\n  nonsense\n}\n")


def test_same_cycles_and_output_as_the_command_line(sim: poplar.Device, tmp_path: Any, capfd: Any) -> None:
    runner = poplar_run()
    if runner is None:
        pytest.skip("skipped: poplar-run not built (cargo build --release)")
    g = poplar.Graph(sim.target)
    a = g.add_constant(np.float32, [6], np.arange(6) / 4, "a")
    g.map_linearly(a)
    prog = poplar.Sequence()
    with prog:
        b = (a * a + 1).tanh()
    prog.add(poplar.PrintTensor("b", b))
    path = tmp_path / "g.pir"
    path.write_text(g.to_pir([prog]))
    e = poplar.Engine(g, [prog], device=sim)
    e.run()
    printed = capfd.readouterr().out
    profile = tmp_path / "p.json"
    cli = subprocess.run(
        [runner, str(path), "--device", "sim", "--profile", str(profile)], capture_output=True, text=True
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout == printed
    import json

    cli_cycles = json.loads(profile.read_text())["simulation"]["cycles"]
    assert cli_cycles == e.execution_profile()["simulation"]["cycles"]


def test_profiles_and_report(sim: poplar.Device) -> None:
    g, prog = build_axpy(sim)
    e = poplar.Engine(g, [prog], device=sim)
    e.write("x", np.zeros(32, dtype=np.float32))
    e.write("y", np.zeros(32, dtype=np.float32))
    e.run()
    graph, execution = poplar.profiles(e)
    assert execution is not None and execution.total_cycles > 0
    assert graph.num_tiles == 16 and sum(graph.memory_by_tile) > 0
    assert sum(execution.compute_sets.values()) > 0
    assert "Total cycles" in e.summary() or "cycles" in e.summary()
    report = poplar.Report(e.report_html())
    assert report._repr_html_().lstrip().lower().startswith("<!doctype html")
    try:
        import pandas  # noqa: F401
    except ImportError:
        return
    assert len(execution.to_dataframe("compute_set")) == len(execution.compute_sets)
    assert len(graph.to_dataframe("tile")) == 16


def test_the_gil_is_released_while_a_program_runs(sim: poplar.Device) -> None:
    g = poplar.Graph(sim.target)
    a = g.add_variable(np.float32, [256], "a")
    g.map_linearly(a)
    body = poplar.Sequence()
    with body:
        b = a * 1.0001
    body.add(poplar.Copy(b, a))
    e = poplar.Engine(g, [poplar.Repeat(3000, body)], device=sim)
    ticks = [0]
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    th = threading.Thread(target=count)
    th.start()
    start = time.time()
    e.run()
    took = time.time() - start
    stop.set()
    th.join()
    if took > 0.05:
        assert ticks[0] > 5, (took, ticks)


def test_ctrl_c_stops_a_run() -> None:
    script = textwrap.dedent(
        """
        import numpy as np, poplar, signal, sys
        # As an interactive Python has it (a background job inherits SIGINT ignored).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        d = poplar.Device.ipu_model(tiles_per_ipu=4)
        g = poplar.Graph(d.target)
        a = g.add_variable(np.float32, [16], "a")
        g.map_linearly(a)
        body = poplar.Sequence()
        with body:
            b = a + 1
        body.add(poplar.Copy(b, a))
        e = poplar.Engine(g, [poplar.Repeat(2**31, body)], device=d)
        print("running", flush=True)
        try:
            e.run()
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            e2 = poplar.Engine(g, [poplar.Repeat(3, body)], device=d)
            e2.run()
            print("ran again", flush=True)
        """
    )
    import signal

    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None
    assert p.stdout.readline().strip() == "running"
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert "interrupted" in out and "ran again" in out, (out, err)


def test_import_names_the_rebuild_on_a_mismatched_build() -> None:
    script = textwrap.dedent(
        """
        import sys, importlib
        import poplar._poplar as native
        native.ABI = 999
        sys.modules.pop("poplar")
        try:
            importlib.import_module("poplar")
        except ImportError as e:
            print(e)
        """
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert "speaks ABI 999" in r.stdout and "pip install ./python" in r.stdout, r


def test_pir_files_compile_by_path_as_the_command_line_runs_them(capfd: Any) -> None:
    """Tutorial 3's PIR (codelets found beside the file): what it prints and
    its cycles are those of its expected command-line output."""
    folder = os.path.join(ROOT, "examples", "03_writing_vertex_code")
    exe = poplar.compile_pir(os.path.join(folder, "graph.pir"))
    e = poplar.Engine(exe)
    e.load(poplar.Device.ipu_model())
    e.run()
    want = open(os.path.join(folder, "expected.stdout")).read()
    assert capfd.readouterr().out == want.splitlines(keepends=True)[0]
    total = [line for line in want.splitlines() if "Total cycles:" in line][0]
    assert f"{e.execution_profile()['simulation']['cycles']:,}" in total


@pytest.mark.parametrize("kind", ["sim", "cpu"])
def test_replicated_graph_with_collectives(kind: str) -> None:
    """Four replicas, each with its own input from its replication index,
    combined by every collective; checked against numpy in the documented
    order (group order, left to right)."""
    r = 4
    target = poplar.Target.ipu_model("ipu2", num_ipus=r, tiles_per_ipu=4)
    device = poplar.Device.ipu_model("ipu2", num_ipus=r, tiles_per_ipu=4) if kind == "sim" else poplar.Device.cpu()
    g = poplar.Graph(target, replication_factor=r)
    assert g.replication_factor == r
    assert g.target.num_tiles == 4
    idx = g.add_replication_index_constant("idx")
    g.set_tile_mapping(idx, 0)
    x = g.add_variable(np.float32, [4], "x")
    g.map_linearly(x)
    g.create_host_write("x", x)
    prog = poplar.Sequence()
    with prog:
        y = x * (idx.cast(np.float32) + 1)
    s = g.all_reduce(y, prog, op="add")
    m = g.all_reduce(y, prog, op="max", group="consecutive", group_size=2)
    a = g.all_gather(y[0:1], prog, group="orthogonal", group_size=2)
    rs = g.reduce_scatter(y, prog, op="add")
    b = g.replica_broadcast(y, prog, root=3)
    for name, t in [("s", s), ("m", m), ("a", a), ("rs", rs), ("b", b)]:
        g.create_host_read(name, t)
    e = poplar.Engine(g, [prog], device=device)
    base = np.array([1.0, 0.1, -2.5, 3.0], dtype=np.float32)
    e.write("x", base)
    e.run()
    ys = [base * np.float32(i + 1) for i in range(r)]
    total = ys[0]
    for v in ys[1:]:
        total = total + v
    assert e.read("s").shape == (r, 4)
    np.testing.assert_array_equal(e.read("s"), np.stack([total] * r))
    pairs = [np.maximum(ys[0], ys[1])] * 2 + [np.maximum(ys[2], ys[3])] * 2
    np.testing.assert_array_equal(e.read("m"), np.stack(pairs))
    np.testing.assert_array_equal(e.read("a")[1], np.stack([ys[1][0:1], ys[3][0:1]]))
    np.testing.assert_array_equal(e.read("rs").reshape(r), total)
    np.testing.assert_array_equal(e.read("b"), np.stack([ys[3]] * r))
    # One copy per replica is taken too.
    e.write("x", np.stack([base] * r))
    with pytest.raises(ValueError, match="or 4 copies, one per replica"):
        e.write("x", np.zeros(3, dtype=np.float32))
    with pytest.raises(poplar.PoplarError, match="does not divide"):
        poplar.Graph(poplar.Target.ipu_model("ipu2", num_ipus=3, tiles_per_ipu=4), replication_factor=2)


@pytest.mark.parametrize("until", [False, True])
@pytest.mark.parametrize("limit,runs", [(5, 4), (1, 0)])
def test_repeat_while_loops_run_as_poplars(until: bool, limit: int, runs: int, device: poplar.Device) -> None:
    # The condition counts its runs in `n`; the body counts in `b`.
    g = poplar.Graph(device.target)
    n = g.add_variable(np.int32, [1], "n")
    b = g.add_variable(np.int32, [1], "b")
    lim = g.add_constant(np.int32, [1], [limit], "limit")
    for t in (n, b, lim):
        g.set_tile_mapping(t, 0)
    g.create_host_read("n", n)
    g.create_host_read("b", b)
    cond = poplar.Sequence()
    with cond:
        n += 1
        pred = (n == lim) if until else (n < lim)
    body = poplar.Sequence()
    with body:
        b += 1
    loop = poplar.RepeatWhileFalse if until else poplar.RepeatWhileTrue
    prog = poplar.Sequence()
    g.fill(prog, n, 0)
    g.fill(prog, b, 0)
    prog.add(loop(cond, pred, body))
    e = poplar.Engine(g, [prog], device=device)
    e.run()
    assert (int(e.read("n")[0]), int(e.read("b")[0])) == (runs + 1, runs)


def test_compile_progress_names_each_pass(sim: poplar.Device) -> None:
    g, prog = build_axpy(sim)
    steps: List[str] = []
    poplar.Engine(g, [prog], device=sim, progress=steps.append)
    assert steps[-1] == "link" and "map_tiles" in steps and "lower_tile" in steps
    steps.clear()
    poplar.compile_pir(g.to_pir([prog]), progress=steps.append)
    assert steps[-1] == "link" and "map_tiles" in steps
    with pytest.raises(TypeError, match="progress must be"):
        poplar.compile_pir(g.to_pir([prog]), progress=3)  # type: ignore[arg-type]


def test_compile_progress_draws_only_when_asked_or_on_a_terminal(monkeypatch: Any) -> None:
    from poplar import _progress

    assert _progress.for_compile(False) is None
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert _progress.for_compile(None) is None  # not a terminal
    assert _progress.for_compile(True) is not None


@pytest.mark.parametrize("with_tqdm", [True, False])
def test_compile_progress_bar_appears_after_the_delay(with_tqdm: bool, monkeypatch: Any) -> None:
    from poplar import _progress

    if with_tqdm:
        pytest.importorskip("tqdm")
    else:
        monkeypatch.setitem(sys.modules, "tqdm", None)  # import fails: plain text
    out = io.StringIO()
    quick = _progress._Bar(out, delay=60.0)
    quick("map_tiles")
    quick(None)
    assert out.getvalue() == ""
    slow = _progress._Bar(out, delay=0.0)
    slow("map_tiles")
    slow("link")
    shown = out.getvalue()
    slow(None)
    assert "poplar: compiling" in shown and "link" in shown
    if not with_tqdm:
        assert "step 2: link" in shown and out.getvalue().endswith("\r\x1b[K")


def replicated_stream_graph(r: int) -> Tuple[poplar.Graph, poplar.Program]:
    """Per replica, twice: out = in + b + 100 * replica, where `in` is the
    replica's own stream and `b` a broadcast one."""
    g = poplar.Graph(poplar.Target.ipu_model("ipu2", num_ipus=r, tiles_per_ipu=4), replication_factor=r)
    idx = g.add_replication_index_constant("idx")
    g.set_tile_mapping(idx, 0)
    x = g.add_variable(np.int32, [2], "x")
    y = g.add_variable(np.int32, [2], "y")
    g.set_tile_mapping(x, 0)
    g.set_tile_mapping(y, 1)
    inp = g.add_host_to_device_fifo("in", np.int32, 2)
    b = g.add_host_to_device_fifo("b", np.int32, 2, mode="broadcast")
    out = g.add_device_to_host_fifo("out", np.int32, 2)
    body = poplar.Sequence(poplar.Copy(inp, x), poplar.Copy(b, y))
    with body:
        z = x + y + idx.cast(np.int32) * 100
    body.add(poplar.Copy(z, out))
    return g, poplar.Repeat(2, body)


@pytest.mark.parametrize("kind", ["sim", "cpu"])
def test_replicated_streams_connect_per_replica(kind: str) -> None:
    r = 3
    g, prog = replicated_stream_graph(r)
    device = poplar.Device.ipu_model("ipu2", num_ipus=r, tiles_per_ipu=4) if kind == "sim" else poplar.Device.cpu()
    e = poplar.Engine(g, [prog], device=device)
    ins = [np.arange(4, dtype=np.int32) + 10 * i for i in range(r)]
    outs = [np.full(4, -1, dtype=np.int32) for _ in range(r)]
    for i in range(r):
        e.connect_stream("in", ins[i], replica=i)
        e.connect_stream("out", outs[i], replica=i)
    calls = []

    def broadcast() -> npt.NDArray[Any]:
        calls.append(len(calls))
        return np.array([1000, 1001], dtype=np.int32) + 2 * (len(calls) - 1)

    e.connect_stream("b", broadcast)
    e.run()
    assert len(calls) == 2  # once per copy, not once per replica
    for i in range(r):
        np.testing.assert_array_equal(outs[i], ins[i] + np.arange(1000, 1004) + 100 * i)
    # Per-replica functions: to the device and back to the host.
    seen: Dict[int, List[npt.NDArray[Any]]] = {i: [] for i in range(r)}
    for i in range(r):
        e.connect_stream("in", lambda i=i: np.array([i, i], dtype=np.int32), replica=i)
        e.connect_stream("out", lambda a, i=i: seen[i].append(a.copy()), replica=i)
    e.connect_stream("b", np.zeros(2, dtype=np.int32), replica=0)
    e.run()
    for i in range(r):
        np.testing.assert_array_equal(np.concatenate(seen[i]), np.full(4, 101 * i, dtype=np.int32))
    # Wrong indices and forms.
    with pytest.raises(poplar.StreamError, match="connect each replica's with its index"):
        e.connect_stream("in", ins[0])
    with pytest.raises(IndexError, match="there is no replica 3"):
        e.connect_stream("in", ins[0], replica=3)
    with pytest.raises(IndexError, match="replica -1 does not exist"):
        e.connect_stream("out", outs[0], replica=-1)
    with pytest.raises(poplar.StreamError, match="broadcast to every replica"):
        e.connect_stream("b", ins[0], replica=1)
    with pytest.raises(TypeError, match="stream 'in' moves int32; the array is float32"):
        e.connect_stream("in", np.zeros(2, dtype=np.float32), replica=1)
    # A replica left unconnected stops the run, naming it.
    f = poplar.Engine(g, [prog], device=device)
    for i in range(r):
        f.connect_stream("out", outs[i], replica=i)
        if i != 2:
            f.connect_stream("in", ins[i], replica=i)
    f.connect_stream("b", ins[0][:2].copy())
    with pytest.raises(poplar.RunError, match="replica 2: stream 'in' is not connected"):
        f.run()


def test_replica_zero_of_a_graph_of_one_replica(device: poplar.Device) -> None:
    g = poplar.Graph(device.target)
    x = g.add_variable(np.float32, [3], "x")
    g.set_tile_mapping(x, 0)
    inp = g.add_host_to_device_fifo("in", np.float32, 3)
    out = g.add_device_to_host_fifo("out", np.float32, 3)
    e = poplar.Engine(g, [poplar.Sequence(poplar.Copy(inp, x), poplar.Copy(x, out))], device=device)
    got = np.zeros(3, dtype=np.float32)
    e.connect_stream("in", lambda: np.array([1, 2, 3], dtype=np.float32), replica=0)
    e.connect_stream("out", got, replica=0)
    e.run()
    np.testing.assert_array_equal(got, [1, 2, 3])
    with pytest.raises(IndexError, match="the graph has one replica, index 0"):
        e.connect_stream("in", got, replica=1)
    with pytest.raises(ValueError, match="mode is 'replicate' or 'broadcast', not 'all'"):
        g.add_host_to_device_fifo("in2", np.float32, 3, mode="all")


@pytest.mark.parametrize("kind", ["sim", "cpu"])
def test_remote_buffers_against_numpy(kind: str) -> None:
    """Two replicas, a buffer of 3 repeats of 4 floats: rows read at offsets
    chosen when the program runs, doubled, written back at other offsets
    and at a fixed one."""
    r, repeats = 2, 3
    target = poplar.Target.ipu_model("ipu2", num_ipus=r, tiles_per_ipu=4)
    device = poplar.Device.ipu_model("ipu2", num_ipus=r, tiles_per_ipu=4) if kind == "sim" else poplar.Device.cpu()
    g = poplar.Graph(target, replication_factor=r)
    rb = g.add_remote_buffer("rb", np.float32, 4, repeats=repeats)
    assert (rb.name, rb.num_elements, rb.repeats) == ("rb", 4, 3)
    x = g.add_variable(np.float32, [2, 4], "x")
    src = g.add_variable(np.uint32, [2], "src")
    dst = g.add_variable(np.uint32, [2], "dst")
    for t in (x, src, dst):
        g.set_tile_mapping(t, 0)
    g.create_host_write("src", src)
    g.create_host_write("dst", dst)
    prog = poplar.Sequence(poplar.Copy(rb, x, src))
    with prog:
        x *= 2
    prog.add(poplar.Copy(x, rb, dst))
    prog.add(poplar.Copy(x[0], rb, 0))
    e = poplar.Engine(g, [prog], device=device)
    data = np.arange(r * repeats * 4, dtype=np.float32).reshape(r, repeats, 4)
    e.write("rb", data)
    e.copy_to_remote_buffer("rb", np.full(4, 7, dtype=np.float32), 1, replica=1)
    data[1, 1] = 7
    np.testing.assert_array_equal(e.copy_from_remote_buffer("rb", 1, replica=1), data[1, 1])
    e.write("src", np.array([2, 1], dtype=np.uint32))
    e.write("dst", np.array([1, 2], dtype=np.uint32))
    e.run()
    want = data.copy()
    for i in range(r):
        rows = 2 * data[i, [2, 1]]
        want[i, 1], want[i, 2] = rows[0], rows[1]
        want[i, 0] = rows[0]
    assert e.read("rb").shape == (r, repeats, 4)
    np.testing.assert_array_equal(e.read("rb"), want)
    for i in range(r):
        for k in range(repeats):
            np.testing.assert_array_equal(e.copy_from_remote_buffer("rb", k, replica=i), want[i, k])
    with pytest.raises(TypeError, match=r"holds float32 \(float\); the array is int32"):
        e.copy_to_remote_buffer("rb", np.zeros(4, dtype=np.int32), 0)
    with pytest.raises(ValueError, match="a repeat of remote buffer 'rb' has 4 elements"):
        e.copy_to_remote_buffer("rb", np.zeros(5, dtype=np.float32), 0)
    with pytest.raises(IndexError, match="there is no repeat 3"):
        e.copy_from_remote_buffer("rb", 3)
    with pytest.raises(IndexError, match="there is no replica 2"):
        e.copy_from_remote_buffer("rb", 0, replica=2)
    with pytest.raises(ValueError, match="no remote buffer called 'src'"):
        e.copy_from_remote_buffer("src", 0)
    with pytest.raises(TypeError, match="the offset must be an integer tensor"):
        poplar.Copy(rb, x[0], x[0][0:1])
    with pytest.raises(poplar.GraphError, match="source has 4 elements and destination has 8"):
        poplar.Copy(x[0], rb, src)
    with pytest.raises(TypeError, match="an offset is for a copy to or from a remote buffer"):
        poplar.Copy(x[0], x[1], src)
    with pytest.raises(IndexError, match="repeat 3 of remote buffer 'rb' is out of range"):
        poplar.Copy(rb, x[0], 3)


def test_virtual_graph_per_ipu_keeps_operations_on_its_tiles() -> None:
    """One virtual graph per IPU of a two-IPU target: each one's operations
    land on its IPU's tiles (numbered from 0 through the virtual graph),
    match numpy, and give the same bits on sim and cpu."""
    target = poplar.Target.ipu_model("ipu2", num_ipus=2, tiles_per_ipu=4)
    rng = np.random.default_rng(7)
    inputs = [
        (rng.standard_normal((8, 6)).astype(np.float32), rng.standard_normal((6, 5)).astype(np.float32))
        for _ in range(2)
    ]
    results = []
    for device in (poplar.Device.ipu_model(num_ipus=2, tiles_per_ipu=4), poplar.Device.cpu()):
        g = poplar.Graph(target)
        ipus = [g.create_virtual_graph(i * 4, (i + 1) * 4) for i in range(2)]
        assert (ipus[1].target.num_tiles, ipus[1].target.num_ipus) == (4, 1)
        prog = poplar.Sequence()
        for i, vg in enumerate(ipus):
            a = vg.add_variable(np.float32, [8, 6], f"a{i}")
            b = vg.add_variable(np.float32, [6, 5], f"b{i}")
            vg.map_linearly(a)
            vg.set_tile_mapping(b, 3)
            assert [k for k, runs in enumerate(g.tile_mapping(b)) if runs] == [i * 4 + 3]
            g.create_host_write(f"a{i}", a)
            g.create_host_write(f"b{i}", b)
            c = vg.matmul(a, b, prog)
            with prog:
                d = c + c
            r = vg.reduce(d, [0], prog)
            for t in (c, d, r):
                on = [k for k, runs in enumerate(g.tile_mapping(t)) if runs]
                assert on and all(k // 4 == i for k in on), on
                assert len(vg.tile_mapping(t)) == 4 and any(vg.tile_mapping(t))
            g.create_host_read(f"r{i}", r)
        e = poplar.Engine(g, [prog], device=device)
        for i, (av, bv) in enumerate(inputs):
            e.write(f"a{i}", av)
            e.write(f"b{i}", bv)
        e.run()
        got = [e.read(f"r{i}") for i in range(2)]
        for (av, bv), r in zip(inputs, got):
            np.testing.assert_allclose(r, (2 * (av @ bv)).sum(axis=0), rtol=1e-5, atol=1e-5)
        results.append(got)
    for s, c in zip(*results):
        assert s.tobytes() == c.tobytes()


def test_virtual_graph_errors() -> None:
    g = poplar.Graph(poplar.Target.ipu_model("ipu2", num_ipus=2, tiles_per_ipu=4))
    with pytest.raises(poplar.PoplarError, match="empty"):
        g.create_virtual_graph(3, 3)
    with pytest.raises(IndexError, match="has 8 tiles"):
        g.create_virtual_graph(4, 9)
    half = g.create_virtual_graph(4, 8)
    with pytest.raises(IndexError, match="which has 4 tiles"):
        half.create_virtual_graph(2, 5)
    odd = g.create_virtual_graph([1, 3])
    assert (odd.target.num_ipus, odd.target.num_tiles) == (2, 4)
    t = half.add_variable(np.float32, [2])
    with pytest.raises(poplar.GraphError, match="0 to 3"):
        half.set_tile_mapping(t, 4)
    r = poplar.Graph(poplar.Target.ipu_model("ipu2", num_ipus=4, tiles_per_ipu=4)).create_replicated_graph(2)
    assert (r.replication_factor, r.target.num_ipus) == (2, 2)

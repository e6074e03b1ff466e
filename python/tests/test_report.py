"""`Engine.get_report()` and the `Block` program: the lightweight
profiler's records as Python objects, checked against the execution
profile's own list and the run's cycles, and the progress bar of a real
compile."""

from __future__ import annotations

import io
import sys
from typing import Any, Dict, Tuple

import numpy as np
import pytest

import poplar


def staged(device: poplar.Device, options: Dict[str, str], progress: bool = False) -> Tuple[poplar.Engine, poplar.Tensor]:
    """`all` { repeat 3 { `stage1`: acc += 1; `stage2`: acc *= 2 } } and a
    stream copy into `acc` before it."""
    g = poplar.Graph(device.target)
    acc = g.add_variable(np.int32, [4], "acc")
    g.map_linearly(acc)
    inp = g.add_host_to_device_fifo("in", np.int32, 4)
    g.create_host_read("acc_out", acc)
    one = poplar.Sequence()
    with one:
        bumped = acc + 1
    one.add(poplar.Copy(bumped, acc))
    two = poplar.Sequence()
    with two:
        doubled = acc * 2
    two.add(poplar.Copy(doubled, acc))
    body = poplar.Sequence(poplar.Block(one, "stage1"), poplar.Block(two, "stage2"))
    prog = poplar.Sequence(poplar.Copy(inp, acc), poplar.Block(poplar.Repeat(3, body), "all"))
    e = poplar.Engine(g, [prog], options=options, device=device, progress=progress)
    e.connect_stream("in", np.arange(4, dtype=np.int32))
    return e, acc


def test_blocks_the_filter_matches_are_reported(sim: poplar.Device) -> None:
    e, _ = staged(sim, {"profiler.blocks.filter": "stage.|all", "profiler.blocks.implicitFlush": "false"})
    e.run()
    np.testing.assert_array_equal(e.read("acc_out"), (((np.arange(4) + 1) * 2 + 1) * 2 + 1) * 2)
    report = e.get_report()
    assert report.num_tiles == 16 and report.num_ipus == 1
    assert report.num_compute_sets >= 2 and report.num_vertices >= 2
    assert report.poplar_version.startswith("poplar-rs ")
    blocks = report.blocks(0)
    names = [b.program for b in blocks]
    assert names == ["all"] + ["stage1", "stage2"] * 3
    for b in blocks:
        assert b.is_common() and not b.is_stream_copy() and not b.is_overflow()
        assert b.program_type == "Block" and b.tile == 0
        assert b.cycles_from < b.cycles_to
    outer, inner = blocks[0], blocks[1:]
    assert all(outer.cycles_from <= b.cycles_from and b.cycles_to <= outer.cycles_to for b in inner)
    assert all(a.cycles_to <= b.cycles_from for a, b in zip(inner, inner[1:]))
    assert outer.cycles_to <= e.execution_profile()["simulation"]["cycles"]
    # The same records as the execution profile's own list.
    listed = [(r["cyclesFrom"], r["cyclesTo"]) for r in e.execution_profile()["blocks"] if r["tile"] == 0]
    assert listed == [(b.cycles_from, b.cycles_to) for b in blocks]
    # Only one tile of the IPU records them.
    assert report.blocks(1) == []


def test_a_report_is_a_snapshot_and_repeats_on_any_run(sim: poplar.Device) -> None:
    opts = {"profiler.blocks.filter": "stage1", "profiler.blocks.implicitFlush": "false"}
    e, _ = staged(sim, opts)
    e.run()
    first = e.get_report()
    e.run()
    assert len(first.blocks(0)) == 3 and len(e.get_report().blocks(0)) == 6
    again, _ = staged(poplar.Device.ipu_model(tiles_per_ipu=16), opts)
    again.run()
    spans = [(b.cycles_from, b.cycles_to) for b in again.get_report().blocks(0)]
    assert spans == [(b.cycles_from, b.cycles_to) for b in first.blocks(0)]


def test_stream_copies_and_flushes(sim: poplar.Device) -> None:
    e, _ = staged(sim, {"profiler.blocks.filter": "stage1", "debug.instrumentExternalExchange": "true"})
    e.run()
    blocks = e.get_report().blocks(0)
    copies = [b for b in blocks if b.is_stream_copy() and not b.is_block_flush()]
    assert [b.program_type for b in copies] == ["StreamCopyBegin", "StreamCopyMid", "StreamCopyEnd"]
    assert {b.program for b in copies} == {"in"}
    flushes = [b for b in blocks if b.is_block_flush()]
    assert flushes and all(b.program == "BlockFlush" and b.is_stream_copy() for b in flushes)
    assert len(flushes) == 3 * 3  # each iteration of the loop, three phases


def test_a_full_buffer_records_an_overflow(sim: poplar.Device) -> None:
    opts = {
        "profiler.blocks.filter": "stage.",
        "profiler.blocks.implicitFlush": "false",
        "profiler.blocks.bufferSize": "48",
    }
    e, _ = staged(sim, opts)
    e.run()
    blocks = e.get_report().blocks(0)
    assert [b.program for b in blocks[:2]] == ["stage1", "stage2"]
    assert blocks[-1].is_overflow() and blocks[-1].program == "Overflow"


def test_report_errors(sim: poplar.Device) -> None:
    e, _ = staged(sim, {"profiler.blocks.filter": "all"})
    e.run()
    with pytest.raises(IndexError, match="tile 16 is outside the target's 16 tiles"):
        e.get_report().blocks(16)
    cpu, _ = staged(poplar.Device.cpu(), {"profiler.blocks.filter": "all"})
    cpu.run()
    report = cpu.get_report()
    assert report.num_tiles == 1  # the CPU target is one tile
    with pytest.raises(poplar.PoplarError, match="cpu device models no cycles"):
        report.blocks(0)
    unloaded = poplar.Engine(poplar.Graph(sim.target), [poplar.Sequence()])
    with pytest.raises(poplar.PoplarError, match="not loaded on a device"):
        unloaded.get_report()


def test_progress_bar_of_a_real_compile(monkeypatch: Any) -> None:
    """A compile's own passes drive the bar (its delay set to nothing)."""
    from poplar import _progress

    monkeypatch.setattr(_progress, "DELAY", 0.0)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the plain line
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    device = poplar.Device.ipu_model(tiles_per_ipu=16)
    e, _ = staged(device, {}, progress=True)
    shown = err.getvalue()
    assert "poplar: compiling" in shown
    assert ": map_tiles" in shown and ": link" in shown
    assert shown.endswith("\r\x1b[K")  # cleared at the end
    e.run()

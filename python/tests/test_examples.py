"""The Python tutorials (python/examples) print what their PIR and C++
versions print.

Each example runs as a script (``sys.executable``, in its own process, as
a user runs it), and its output is checked against the tutorial folder's
expected files (examples/0N_*/expected.stdout for the PIR version,
expected-host.stdout for the C++ one), with the differences each script's
docstring names and nothing else: Python's ``PrintTensor`` prints in
Poplar's layout as the C++ API does, the Python API numbers programs
(``prog0``, ``prog1``) where PIR names them, and the "Vertex Code" size is
popc's build of the codelets, not part of the graph.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Dict, List

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(ROOT, "python", "examples")
TUTORIALS = os.path.join(ROOT, "examples")
TIMEOUT_S = 180


def expected(folder: str, name: str) -> List[str]:
    with open(os.path.join(TUTORIALS, folder, name), encoding="utf-8") as f:
        return f.read().splitlines()


def run(script: str, *args: str) -> List[str]:
    """Runs python/examples/<script> and returns its stdout's lines; fails on a non-zero exit."""
    pytest.importorskip("numpy")  # the package's one third-party dependency
    # The package under test is not optional: a missing or broken install
    # fails here with its own message.
    probe = subprocess.run([sys.executable, "-c", "import poplar"], capture_output=True, text=True)
    assert probe.returncode == 0, f"`import poplar` fails (pip install ./python):\n{probe.stderr}"
    proc = subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, script), *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        cwd=ROOT,
    )
    assert proc.returncode == 0, (
        f"{script} exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    )
    return proc.stdout.splitlines()


def mask_vertex_code(lines: List[str]) -> List[str]:
    pattern = r"(Vertex Code \(shared segment, not in tile memory\): )[\d,]+ B"
    return [re.sub(pattern, r"\1N B", x) for x in lines]


def rename_programs(lines: List[str], names: Dict[str, str]) -> List[str]:
    """PIR's program names as the Python engine numbers them."""
    out = []
    for line in lines:
        if line == ", ".join(names) + ".":
            line = ", ".join(names.values()) + "."
        for pir, py in names.items():
            line = line.replace(f"Program {pir}:", f"Program {py}:")
        out.append(line)
    return out


def summary_lines(lines: List[str], names: Dict[str, str]) -> List[str]:
    """A poplar-run summary, from "Target:", as the Python run prints it."""
    return mask_vertex_code(rename_programs(lines[lines.index("Target:") :], names))


def test_tut1_programs_and_variables() -> None:
    out = run("tut1_programs_and_variables.py")
    assert out == expected("01_programs_and_variables", "expected-host.stdout")


def test_tut2_using_poplibs() -> None:
    out = run("tut2_using_poplibs.py")
    host = expected("02_using_poplibs", "expected-host.stdout")
    assert out[: len(host)] == host
    assert out[len(host) :] == [
        "v3 as numpy: [[5.0, 4.5], [4.0, 3.5]]",
        "v4 as numpy: [[9.0, 7.5], [6.0, 4.5]]",
        "v5 as numpy: [[5.0, 3.5], [5.0, 3.5]]",
    ]


def test_tut3_vertex_code() -> None:
    out = run("tut3_vertex_code.py")
    host = expected("03_writing_vertex_code", "expected-host.stdout")
    assert out[: len(host)] == host
    assert out[len(host)] == "as numpy: [7.  6.  4.5 2.5]"
    assert re.fullmatch(r"cycles: \d+", out[len(host) + 1])


def test_tut4_profiling() -> None:
    out = run("tut4_profiling.py")
    pir = expected("04_profiling", "expected.stdout")
    host = expected("04_profiling", "expected-host.stdout")
    # Program `check`: two corners of m5, every element 22500, in Poplar's layout.
    corner = ["  [22500.000 22500.000 22500.000]"] * 2
    assert out[:8] == ["m5[0:2, 0:3]: [", *corner, "]", "m5[898:900, 197:200]: [", *corner, "]"]
    assert pir[:8] == ["m5[0:2, 0:3]: {", *[" {22500,22500,22500},", " {22500,22500,22500}"], "}",
                       "m5[898:900, 197:200]: {", " {22500,22500,22500},", " {22500,22500,22500}", "}"]
    # The summary: graph.pir's run's, figure for figure.
    got = mask_vertex_code(out[8 : len(out) - len(host)])
    assert got == summary_lines(pir, {"main": "prog0", "check": "prog1"})
    # Then host.cpp's graph through graph.matmul.
    assert out[len(out) - len(host) :] == host


def test_tut5_machine_learning() -> None:
    out = run("tut5_machine_learning.py")
    epochs = 5
    figures = out[: 5 * epochs]
    history = []
    for e in range(epochs):
        block = figures[5 * e : 5 * e + 5]
        assert block[0] == f"epoch: {e + 1}", figures
        values = []
        for line, name in zip(block[1:], ("train loss", "train accuracy", "test loss", "test accuracy")):
            m = re.fullmatch(rf"{name}: ([0-9.e+-]+)", line)
            assert m, f"{line!r} is not '{name}: %g'"
            values.append(float(m.group(1)))
        history.append(values)
    losses = [h[0] for h in history]
    assert all(b < a for a, b in zip(losses, losses[1:])), f"the training loss did not fall: {losses}"
    assert history[-1][3] >= 0.9, f"test accuracy {history[-1][3]} below 90%"
    agreement = r"device against numpy: losses within \S+ relative, parameters within \S+"
    assert any(re.fullmatch(agreement, x) for x in out)
    stripped = [x.strip() for x in out]
    headings = ("Target:", "Memory Usage:", "Programs executed:", "Cycles by vertex type:")
    for heading in (*headings, "Cycles by compute set:"):
        assert heading in stripped, f"the profile summary has no '{heading}'"
    saved = [x for x in out if x.startswith("report saved to ")]
    assert len(saved) == 1, out[-5:]
    path = saved[0][len("report saved to ") :]
    with open(path, encoding="utf-8") as f:
        page = f.read()
    assert "<html" in page.lower() and "tutorial 5" in page
    # The cpu device trains to the same figures, digit for digit.
    on_cpu = run("tut5_machine_learning.py", "--cpu")
    assert on_cpu[: 5 * epochs] == figures


def test_tut6_matrix_vector() -> None:
    out = run("tut6_matrix_vector.py")
    assert out == expected("06_matrix_vector", "expected-host.stdout")


def test_tut7_matrix_vector_opt() -> None:
    out = run("tut7_matrix_vector_opt.py")
    estimator = subprocess.run(
        [sys.executable, "estimate.py"],
        capture_output=True,
        text=True,
        cwd=os.path.join(TUTORIALS, "07_matrix_vector_opt"),
        check=True,
    ).stdout.splitlines()
    assert estimator[0] == "Best split chosen:" and estimator[1].startswith("colsAxisSplit=5,")
    assert out[: len(estimator)] == estimator
    pir = expected("07_matrix_vector_opt", "expected.stdout")
    rest = out[len(estimator) :]
    start = pir.index("Target:")
    assert rest[:start] == pir[:start]  # the `out` stream, 10,000 values
    assert mask_vertex_code(rest[start:]) == summary_lines(pir, {"fill": "prog0", "main": "prog1"})

"""Tutorial 4 (profiling output) in Python, in both of the folder's versions.

Part 1 builds the graph of examples/04_profiling/graph.pir: m5 = (m1 x m2)
x m3 with m1 900x600, m2 600x300 and m3 300x200 mapped linearly, each
product computed in blocks of 12 rows by 30 (then 20) columns by the
folder's hand-written MatMulBlock codelet, one block per tile on tiles
0..749. Like the PIR run (``--write m1=1 --write m2=0.5 --write m3=0.25
--run main --run check --summary``) it writes the inputs from numpy
arrays, runs ``main`` then ``check`` (which prints two corners of m5, every
element 600 x 0.5 x 300 x 0.25 = 22500), and prints the profile summary.

Part 2 builds the graph of host.cpp: the same two products at 90x60,
60x30 and 30x20 through ``graph.matmul`` (``poplin::matMul``), with small
integer inputs so the products are exact; it checks m5 against numpy's,
prints the sum of its elements and the first lines of the summary.

What it prints, against the folder's expected files:

- Part 1 prints what expected.stdout holds, with three differences the
  Python API imposes: ``PrintTensor`` prints the corners in Poplar's
  layout (``[22500.000 ...]``) where PIR's ``print`` uses poplar-run's
  (``{22500,...}``); the summary names the programs ``prog0, prog1``
  where PIR names them ``main, check`` (the Python API has no way to
  name a program); and the "Vertex Code" size is whatever popc's build
  of the codelet comes to (it is not part of the graph).
  The cycles and memory figures are the PIR run's.
- Part 2 prints what expected-host.stdout holds.
"""

import os
import sys

import numpy as np

import poplar

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "..", "..", "examples", "04_profiling")


def pir_version() -> None:
    """graph.pir's graph: hand-written block products, then the summary."""
    device = poplar.Device.ipu_model()
    graph = poplar.Graph(device.target)
    graph.add_codelets(os.path.join(FOLDER, "matmul_codelets.cpp"))

    m1 = graph.add_variable(np.float32, [900, 600], "m1")
    m2 = graph.add_variable(np.float32, [600, 300], "m2")
    m3 = graph.add_variable(np.float32, [300, 200], "m3")
    m4 = graph.add_variable(np.float32, [900, 300], "m4")
    m5 = graph.add_variable(np.float32, [900, 200], "m5")
    # PIR's `map t -> linear`: equal runs of single elements (grain 1).
    for m in (m1, m2, m3):
        graph.map_linearly(m, min_elements_per_tile=1, grain_size=1)
    for rb in range(75):
        rows = slice(rb * 12, rb * 12 + 12)
        for cb in range(10):
            graph.set_tile_mapping(m4[rows, cb * 30 : cb * 30 + 30], rb * 10 + cb)
            graph.set_tile_mapping(m5[rows, cb * 20 : cb * 20 + 20], rb * 10 + cb)
    for name, m in (("m1", m1), ("m2", m2), ("m3", m3)):
        graph.create_host_write(name, m)

    # One MatMulBlock per block of the result: rows x k of a, k x cols of
    # b, each field a flat (row-major) view.
    def products(
        cs: poplar.ComputeSet, a: poplar.Tensor, b: poplar.Tensor, out: poplar.Tensor, cols: int
    ) -> None:
        for rb in range(75):
            rows = slice(rb * 12, rb * 12 + 12)
            for cb in range(10):
                block = slice(cb * cols, cb * cols + cols)
                graph.add_vertex(
                    cs,
                    "MatMulBlock",
                    {
                        "a": a[rows].flatten(),
                        "b": b[:, block].flatten(),
                        "out": out[rows, block].flatten(),
                        "rows": 12,
                        "cols": cols,
                    },
                    tile=rb * 10 + cb,
                )

    m4_matmul = graph.add_compute_set("m4_matmul")
    products(m4_matmul, m1, m2, m4, 30)
    m5_matmul = graph.add_compute_set("m5_matmul")
    products(m5_matmul, m4, m3, m5, 20)

    main = poplar.Sequence(poplar.Execute(m4_matmul), poplar.Execute(m5_matmul))
    check = poplar.Sequence(
        poplar.PrintTensor("m5[0:2, 0:3]", m5[0:2, 0:3]),
        poplar.PrintTensor("m5[898:900, 197:200]", m5[898:900, 197:200]),
    )

    engine = poplar.Engine(graph, [main, check], device=device)
    engine.write("m1", np.full((900, 600), 1.0, dtype=np.float32))
    engine.write("m2", np.full((600, 300), 0.5, dtype=np.float32))
    engine.write("m3", np.full((300, 200), 0.25, dtype=np.float32))
    engine.run(0)
    engine.run(1)
    print(engine.summary(), end="")


def host_version() -> int:
    """host.cpp's graph: graph.matmul (poplin::matMul), checked against numpy."""
    n, k, m, p = 90, 60, 30, 20
    device = poplar.Device.ipu_model()
    graph = poplar.Graph(device.target)

    m1 = graph.add_variable(np.float32, [n, k], "m1")
    m2 = graph.add_variable(np.float32, [k, m], "m2")
    m3 = graph.add_variable(np.float32, [m, p], "m3")
    for t in (m1, m2, m3):
        graph.map_linearly(t)  # poputil::mapTensorLinearly's defaults
    for name, t in (("m1", m1), ("m2", m2), ("m3", m3)):
        graph.create_host_write(name, t)

    prog = poplar.Sequence()
    with prog:
        m4 = m1 @ m2  # the same as graph.matmul(m1, m2, prog)
    m5 = graph.matmul(m4, m3, prog, name="m5")
    graph.create_host_read("m5", m5)

    engine = poplar.Engine(graph, [prog], options={"debug.instrument": True}, device=device)
    h1 = (np.arange(n * k) % 7 - 2).astype(np.float32).reshape(n, k)
    h2 = (np.arange(k * m) % 5 - 1).astype(np.float32).reshape(k, m)
    h3 = (np.arange(m * p) % 3).astype(np.float32).reshape(m, p)
    engine.write("m1", h1)
    engine.write("m2", h2)
    engine.write("m3", h3)
    engine.run(0)
    h5 = engine.read("m5")

    want = (h1.astype(np.float64) @ h2) @ h3
    bad = np.argwhere(want != h5)
    if len(bad):
        i, j = bad[0]
        print(f"m5[{i}][{j}] = {h5[i, j]:g}, the host computes {want[i, j]:g}")
        return 1
    print(f"m5 checked against the host; the sum of its elements is {float(h5.astype(np.float64).sum()):g}")
    summary = engine.summary()
    for line in summary.splitlines()[:7]:
        print(line)
    print("Memory Usage: reported" if "Memory Usage:" in summary else "no memory usage")
    return 0


def main() -> int:
    pir_version()
    return host_version()


if __name__ == "__main__":
    sys.exit(main())

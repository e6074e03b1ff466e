"""Tutorial 2 (using PopLibs) in Python.

The graph of examples/02_using_poplibs/host.cpp: two 2x2 float matrices
with the tutorial's tile mappings, filled from two constants, then three
element-wise additions, v3 = v1 + v2, v4 = v3 + v2 and v5 = v1 + v2^T.
``popops::add`` is Python's ``+`` on two tensors inside ``with prog:``
(a ``popops::map`` appended to ``prog``, its result mapped like its first
operand); ``v2.T`` is the transposed view, no data copied. graph.pir
spells the same additions out as ElementwiseAdd vertices.

Prints what host.cpp prints (expected-host.stdout): v3, v4 and v5 in
Poplar's layout, then the three results again as numpy arrays, read back
through host handles (not in the C++ version).
"""

import numpy as np

import poplar


def main() -> None:
    device = poplar.Device.ipu_model()
    graph = poplar.Graph(device.target)

    v1 = graph.add_variable(np.float32, [2, 2], "v1")
    v2 = graph.add_variable(np.float32, [2, 2], "v2")
    for i in range(2):
        for j in range(2):
            graph.set_tile_mapping(v1[i, j], i * 2 + j)
            graph.set_tile_mapping(v2[i, j], j * 2 + i)
    c1 = graph.add_constant(np.float32, [4], [1.0, 1.5, 2.0, 2.5], "c1")
    c2 = graph.add_constant(np.float32, [4], [4.0, 3.0, 2.0, 1.0], "c2")
    graph.set_tile_mapping(c1, 0)
    graph.set_tile_mapping(c2, 0)

    prog = poplar.Sequence()
    prog.add(poplar.Copy(c1, v1.flatten()))
    prog.add(poplar.Copy(c2, v2.flatten()))
    with prog:
        v3 = v1 + v2
    prog.add(poplar.PrintTensor("v3", v3))
    with prog:
        v4 = v3 + v2
    prog.add(poplar.PrintTensor("v4", v4))
    with prog:
        v5 = v1 + v2.T
    prog.add(poplar.PrintTensor("v5", v5))

    for name, t in (("v3", v3), ("v4", v4), ("v5", v5)):
        graph.create_host_read(name, t)

    engine = poplar.Engine(graph, [prog], device=device)
    engine.run(0)

    for name in ("v3", "v4", "v5"):
        print(f"{name} as numpy: {engine.read(name).tolist()}")


if __name__ == "__main__":
    main()

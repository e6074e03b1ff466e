"""Tutorial 3 (writing vertex code) in Python: the codelet file is compiled
by popc when it is added, four SumVertex vertices each sum a slice of v1
into one element of v2, and the result comes back as a numpy array.
Prints what examples/03_writing_vertex_code/host.cpp prints, then the
array and the profile.
"""

import os

import numpy as np

import poplar

HERE = os.path.dirname(os.path.abspath(__file__))
CODELETS = os.path.join(HERE, "..", "..", "examples", "03_writing_vertex_code", "tut3_codelets.cpp")


def main() -> None:
    device = poplar.Device.ipu_model()
    graph = poplar.Graph(device.target)
    graph.add_codelets(CODELETS)

    v1 = graph.add_variable(np.float32, [4], "v1")
    v2 = graph.add_variable(np.float32, [4], "v2")
    c1 = graph.add_constant(np.float32, [4], [1.0, 1.5, 2.0, 2.5])
    for i in range(4):
        graph.set_tile_mapping(v1[i], i)
        graph.set_tile_mapping(v2[i], i)
    graph.set_tile_mapping(c1, 0)

    sums = graph.add_compute_set("computeSet")
    for i in range(4):
        v = graph.add_vertex(sums, "SumVertex", {"in": v1[i:], "out": v2[i]}, tile=i)
        graph.set_perf_estimate(v, 20)
    graph.create_host_read("v2", v2)

    prog = poplar.Sequence(poplar.Copy(c1, v1), poplar.Execute(sums), poplar.PrintTensor("v2", v2))
    engine = poplar.Engine(graph, [prog], device=device)
    engine.run(0)
    result = engine.read("v2")
    print("as numpy:", result)
    _, execution = poplar.profiles(engine)
    assert execution is not None
    print("cycles:", execution.total_cycles)


if __name__ == "__main__":
    main()

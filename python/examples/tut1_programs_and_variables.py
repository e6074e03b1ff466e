"""Tutorial 1 (programs and variables) in Python.

The graph of examples/01_programs_and_variables (graph.pir and host.cpp):
four variables and a constant, a sequence of copies and prints, host
write/read handles for v3, and a host-to-device stream that reads a
circular numpy buffer of 30 ints twice.

Prints what host.cpp prints (expected-host.stdout): the four
``PrintTensor`` lines, in Poplar's layout, then "h3 data:" and v3 as read
back, each element written as C++'s ``std::cout`` writes a float. The
PIR version (expected.stdout) prints the same values in poplar-run's
layout.
"""

import numpy as np

import poplar


def cpp_float(x: float) -> str:
    """A float as ``std::cout << x`` writes it (6 significant digits)."""
    return f"{x:g}"


def main() -> None:
    device = poplar.Device.ipu_model()
    graph = poplar.Graph(device.target)

    # Variables and a constant, each mapped to tiles.
    v1 = graph.add_variable(np.float32, [4], "v1")
    v2 = graph.add_variable(np.float32, [4], "v2")
    v3 = graph.add_variable(np.float32, [4, 4], "v3")
    v4 = graph.add_variable(np.int32, [10], "v4")
    c1 = graph.add_constant(np.float32, [4], [1.0, 1.5, 2.0, 2.5], "c1")
    graph.set_tile_mapping(v1, 0)
    for i in range(4):
        graph.set_tile_mapping(v2[i], i)
    graph.set_tile_mapping(v3, 0)
    graph.set_tile_mapping(v4, 0)
    graph.set_tile_mapping(c1, 0)

    # Host handles for v3 and a stream of ten ints at a time into v4.
    graph.create_host_write("v3-write", v3)
    graph.create_host_read("v3-read", v3)
    in_stream = graph.add_host_to_device_fifo("v4-input-stream", np.int32, 10)

    prog = poplar.Sequence()
    prog.add(poplar.Copy(c1, v1))
    prog.add(poplar.PrintTensor("v1-debug", v1))
    prog.add(poplar.Copy(v1, v2))
    prog.add(poplar.PrintTensor("v2-debug", v2))
    # v1.slice(0, 3) -> v3[1].slice(1, 4)
    prog.add(poplar.Copy(v1[0:3], v3[1][1:4]))
    prog.add(poplar.Copy(in_stream, v4))
    prog.add(poplar.PrintTensor("v4-0", v4))
    prog.add(poplar.Copy(in_stream, v4))
    prog.add(poplar.PrintTensor("v4-1", v4))

    engine = poplar.Engine(graph, [prog], device=device)

    h3 = np.zeros((4, 4), dtype=np.float32)
    engine.write("v3-write", h3)
    # The stream reads this buffer in place, ten ints per copy.
    h4 = np.arange(30, dtype=np.int32)
    engine.connect_stream("v4-input-stream", h4)

    engine.run(0)

    h3 = engine.read("v3-read")
    print("h3 data:")
    for row in h3:
        print("  " + "".join(cpp_float(float(x)) + " " for x in row))


if __name__ == "__main__":
    main()

"""Tutorial 6 (matrix-vector multiplication) in Python.

The graph of examples/06_matrix_vector (graph.pir and host.cpp), run as
the guide runs it, ``./matrix-vector 40 50``: the matrix and both vectors
mapped linearly (``poputil::mapTensorLinearly``), one DotProductVertex per
row (the folder's matrix-mul-codelets.cpp), row i's on tile i with the
tutorial's estimate of 20 cycles; the program copies the inputs in from
their streams, multiplies, and copies the result out to a third stream.

The streams read and write numpy arrays in place: the inputs are the
folder's inputMatrix.bin and inputVector.bin (m[row, col] = row * col,
v[col] = col), and the result lands in ``result``. The script checks it
against numpy's product, as host.cpp checks it against the host's.

Prints what host.cpp prints (expected-host.stdout): "out:" and the 40
values as ``std::cout`` writes floats, then "Multiplication result OK".
"""

import os
import sys

import numpy as np

import poplar

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "..", "..", "examples", "06_matrix_vector")
ROWS, COLS = 40, 50


def main() -> int:
    device = poplar.Device.ipu_model()
    graph = poplar.Graph(device.target)
    graph.add_codelets(os.path.join(FOLDER, "matrix-mul-codelets.cpp"))

    matrix = graph.add_variable(np.float32, [ROWS, COLS], "matrix")
    input_vector = graph.add_variable(np.float32, [COLS], "inputVector")
    output_vector = graph.add_variable(np.float32, [ROWS], "outputVector")
    graph.map_linearly(matrix)
    graph.map_linearly(input_vector)
    graph.map_linearly(output_vector)

    vector_in = graph.add_host_to_device_fifo("inputVector", np.float32, COLS)
    matrix_in = graph.add_host_to_device_fifo("inputMatrix", np.float32, ROWS * COLS)
    out = graph.add_device_to_host_fifo("out", np.float32, ROWS)

    mul_cs = graph.add_compute_set("mulCS")
    for i in range(ROWS):
        v = graph.add_vertex(
            mul_cs, "DotProductVertex", {"a": matrix[i], "b": input_vector, "out": output_vector[i]}, tile=i
        )
        graph.set_perf_estimate(v, 20)

    prog = poplar.Sequence(
        poplar.Copy(vector_in, input_vector),
        poplar.Copy(matrix_in, matrix),
        poplar.Execute(mul_cs),
        poplar.Copy(output_vector, out),
    )

    host_matrix = np.fromfile(os.path.join(FOLDER, "inputMatrix.bin"), dtype="<f4").reshape(ROWS, COLS)
    host_vector = np.fromfile(os.path.join(FOLDER, "inputVector.bin"), dtype="<f4")
    result = np.zeros(ROWS, dtype=np.float32)

    engine = poplar.Engine(graph, [prog], device=device)
    engine.connect_stream("inputVector", host_vector)
    engine.connect_stream("inputMatrix", host_matrix)
    engine.connect_stream("out", result)
    engine.run(0)

    expected = host_matrix @ host_vector
    for i in range(ROWS):
        if abs(expected[i] - result[i]) > 1e-5 * abs(expected[i]):
            print(f"row {i}: {result[i]:g} where the host computes {expected[i]:g}")
            return 1
    print("out:" + "".join(f" {float(x):g}" for x in result))
    print("Multiplication result OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Tutorial 7 (matrix-vector multiplication optimisation) in Python.

As the guide runs it, ``./matrix-vector 10000 1000`` on an IPU Model of
an mk1 IPU (1,216 tiles). First the tutorial's estimator (the folder's
estimate.py, here a function) tries every way of splitting each row into
segments and prints the best, 5 segments; then the script builds the
graph of examples/07_matrix_vector_opt/graph.pir for that split:
50,000 DotProductVertex partial sums and 10,000 ReduceVertex, with the
tutorial's tile mappings (over ``target.num_tiles``) and cycle estimates.

Like graph.pir, program ``fill`` (program 0) writes the matrix the
tutorial's host streams in (m[row, col] = row * col) with a FillMatrix
vertex per segment, and program ``main`` (program 1) is the tutorial's
sequence: the vector comes in through its stream (from the folder's
inputVector.bin, read into a numpy array), then mulCS, reduceCS, and the
result goes out to a stream that writes a numpy array.

Prints the estimator's lines (what estimate.py prints), then what
graph.pir's run prints (expected.stdout): the ``out`` stream in
poplar-run's layout and the profile summary. In the summary the programs
are named ``prog0, prog1`` where PIR names them ``fill, main`` (the
Python API cannot name a program), and the "Vertex Code" size is whatever
popc's build of the codelets comes to. mulCS takes 4,410 cycles, the
estimator's compute cost, and reduceCS 96.
"""

import os
import sys
from typing import Dict, Tuple

import numpy as np

import poplar

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "..", "..", "examples", "07_matrix_vector_opt")
ROWS, COLS = 10000, 1000


def ceil_div(a: int, b: int) -> int:
    return (a + b - 1) // b


def estimate(
    rows: int, cols: int, split: int, tiles: int, workers: int = 6, bytes_per_cycle: int = 4
) -> Tuple[int, ...]:
    """The tutorial's estimateCycles: (total, compute, exchange, reduce exchange, reduce compute)."""
    max_vertices = max(ceil_div(rows * split, tiles), 1)
    cycles_per_vertex = 5 + (ceil_div(cols, split) + 1) // 2
    compute = ceil_div(max_vertices, workers) * workers * cycles_per_vertex
    exchange = ceil_div(max_vertices, rows) * ceil_div(cols, split) * 4 // bytes_per_cycle
    max_reduce = max(ceil_div(rows, tiles), 1)
    reduce_compute = ceil_div(max_reduce, workers) * workers * (5 + (split + 1) // 2)
    reduce_exchange = max_reduce * split * 4 // bytes_per_cycle
    total = compute + exchange + reduce_compute + reduce_exchange
    return total, compute, exchange, reduce_exchange, reduce_compute


def best_split(rows: int, cols: int, tiles: int, workers: int) -> int:
    """The tutorial's calcOptimalColAxisSplit, printing what it prints."""
    costs: Dict[int, Tuple[int, ...]] = {s: estimate(rows, cols, s, tiles, workers) for s in range(1, cols)}
    best = min(costs, key=lambda s: (costs[s][0], s))
    total, compute, exchange, rx, rc = costs[best]
    print("Best split chosen:")
    print(f"colsAxisSplit={best}, total cost={total} (compute cost={compute}, exchange cost={exchange},")
    print(f"                                reduce exchange cost={rx},")
    print(f"                                reduce compute cost={rc})")
    print(f"Worst cost seen: {max(c[0] for c in costs.values())}")
    return best


def poplar_run_layout(name: str, rows: np.ndarray) -> str:
    """A stream's transfers as poplar-run's ``--read`` prints them."""
    lines = ",\n".join(" {" + ",".join(f"{float(x):g}" for x in row) + "}" for row in rows)
    return f"{name}: {{\n{lines}\n}}"


def main() -> int:
    device = poplar.Device.ipu_model("ipu1")
    tiles = int(device.target.num_tiles)
    split = best_split(ROWS, COLS, tiles, int(device.target.num_worker_contexts))

    graph = poplar.Graph(device.target)
    graph.add_codelets(os.path.join(FOLDER, "matrix-mul-codelets.cpp"))

    matrix = graph.add_variable(np.float32, [ROWS, COLS], "matrix")
    input_vector = graph.add_variable(np.float32, [COLS], "inputVector")
    partials = graph.add_variable(np.float32, [ROWS, split], "partials")
    output_vector = graph.add_variable(np.float32, [ROWS], "outputVector")
    vector_in = graph.add_host_to_device_fifo("inputVector", np.float32, COLS)
    out = graph.add_device_to_host_fifo("out", np.float32, ROWS)

    # Segment i of every row: columns [i * COLS / split, (i + 1) * COLS / split).
    def segment(i: int) -> slice:
        return slice(i * COLS // split, (i + 1) * COLS // split)

    def segment_tile(i: int, row: int) -> int:
        return (i * ROWS + row) * tiles // (split * ROWS)

    for i in range(COLS):
        graph.set_tile_mapping(input_vector[i], i * tiles // COLS)
    for i in range(split):
        for row in range(ROWS):
            graph.set_tile_mapping(matrix[row, segment(i)], segment_tile(i, row))
            graph.set_tile_mapping(partials[row, i], segment_tile(i, row))
    for row in range(ROWS):
        graph.set_tile_mapping(output_vector[row], row * tiles // ROWS)

    fill_cs = graph.add_compute_set("fillCS")
    for i in range(split):
        for row in range(ROWS):
            graph.add_vertex(
                fill_cs,
                "FillMatrix",
                {"out": matrix[row, segment(i)], "row": row, "col0": i * COLS // split},
                tile=segment_tile(i, row),
            )

    mul_cs = graph.add_compute_set("mulCS")
    for i in range(split):
        seg = segment(i)
        estimate_cycles = 5 + (seg.stop - seg.start + 1) // 2
        b = input_vector[seg]
        for row in range(ROWS):
            v = graph.add_vertex(
                mul_cs,
                "DotProductVertex",
                {"a": matrix[row, seg], "b": b, "out": partials[row, i]},
                tile=segment_tile(i, row),
            )
            graph.set_perf_estimate(v, estimate_cycles)

    reduce_cs = graph.add_compute_set("reduceCS")
    for row in range(ROWS):
        v = graph.add_vertex(
            reduce_cs,
            "ReduceVertex",
            {"in": partials[row], "out": output_vector[row]},
            tile=row * tiles // ROWS,
        )
        graph.set_perf_estimate(v, 5 + (split + 1) // 2)

    fill = poplar.Sequence(poplar.Execute(fill_cs))
    prog = poplar.Sequence(
        poplar.Copy(vector_in, input_vector),
        poplar.Execute(mul_cs),
        poplar.Execute(reduce_cs),
        poplar.Copy(output_vector, out),
    )

    host_vector = np.fromfile(os.path.join(FOLDER, "inputVector.bin"), dtype="<f4")
    result = np.zeros(ROWS, dtype=np.float32)

    engine = poplar.Engine(graph, [fill, prog], device=device)
    engine.connect_stream("inputVector", host_vector)
    engine.connect_stream("out", result)
    engine.run(0)
    engine.run(1)

    # m[row, col] = row * col and v[col] = col: row r is r * sum(col^2).
    expected = np.arange(ROWS, dtype=np.float64) * float((np.arange(COLS, dtype=np.float64) ** 2).sum())
    if not np.allclose(result, expected, rtol=1e-5):
        row = int(np.argmax(np.abs(result - expected)))
        print(f"row {row}: {result[row]:g} where the host computes {expected[row]:g}")
        return 1

    print(poplar_run_layout("out", result.reshape(1, ROWS)))
    print(engine.summary(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The tutorial's split estimator (estimateCycles / calcOptimalColAxisSplit
in the examples repository's tut6.cpp, the guide's tutorial 7), for the
guide's run: ./matrix-vector 10000 1000 on an IPU Model of an mk1 IPU
(1216 tiles, 6 workers, 4 exchange bytes per cycle). graph.pir uses the
split it prints."""


def ceil_div(a, b):
    return (a + b - 1) // b


def estimate(rows, cols, split, tiles=1216, workers=6, bytes_per_cycle=4):
    max_vertices = max(ceil_div(rows * split, tiles), 1)
    cycles_per_vertex = 5 + (ceil_div(cols, split) + 1) // 2
    compute = ceil_div(max_vertices, workers) * workers * cycles_per_vertex
    exchange = ceil_div(max_vertices, rows) * ceil_div(cols, split) * 4 // bytes_per_cycle
    max_reduce = max(ceil_div(rows, tiles), 1)
    reduce_compute = ceil_div(max_reduce, workers) * workers * (5 + (split + 1) // 2)
    reduce_exchange = max_reduce * split * 4 // bytes_per_cycle
    return compute + exchange + reduce_compute + reduce_exchange, compute, exchange, reduce_exchange, reduce_compute


rows, cols = 10000, 1000
costs = {s: estimate(rows, cols, s) for s in range(1, cols)}
best = min(costs, key=lambda s: (costs[s][0], s))
total, compute, exchange, rx, rc = costs[best]
print("Best split chosen:")
print(f"colsAxisSplit={best}, total cost={total} (compute cost={compute}, exchange cost={exchange},")
print(f"                                reduce exchange cost={rx},")
print(f"                                reduce compute cost={rc})")
print(f"Worst cost seen: {max(c[0] for c in costs.values())}")

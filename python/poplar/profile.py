"""Profiles as Python objects.

``ExecutionProfile`` (what a run on the ``sim`` device recorded) and
``GraphProfile`` (what the compiler placed where) wrap the JSON profiles
the command-line tools write, with per-tile, per-compute-set and
per-vertex-type views as plain lists and dicts, and ``to_dataframe()``
where pandas is installed. ``Report`` shows the report page inline in
Jupyter (``_repr_html_``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple


def _pandas() -> Any:
    try:
        import pandas  # type: ignore[import-untyped, unused-ignore]
    except ImportError as e:
        raise ImportError("to_dataframe() needs pandas: pip install pandas") from e
    return pandas


class ExecutionProfile:
    """A run's cycles: in total, per compute set, per tile, per vertex type."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.data = data

    @property
    def total_cycles(self) -> int:
        """Cycles of every run so far (the simulator's clock)."""
        return int(self.data["simulation"]["cycles"])

    @property
    def compute_sets(self) -> Dict[str, int]:
        """Cycles spent in each compute set, over its runs."""
        names: List[str] = self.data["computeSets"]
        return dict(zip(names, (int(c) for c in self.data["computeSetCycles"])))

    @property
    def vertex_types(self) -> Dict[str, Tuple[int, int]]:
        """(cycles, instances run) per vertex type."""
        names: List[str] = self.data["vertexTypes"]
        cycles = self.data["cyclesByVertexType"]
        runs = self.data["instancesByVertexType"]
        return {n: (int(c), int(r)) for n, c, r in zip(names, cycles, runs)}

    @property
    def tiles(self) -> List[int]:
        """Cycles each tile spent in compute sets."""
        by_cs: List[List[int]] = self.data["computeSetCyclesByTile"]
        if not by_cs:
            return []
        return [sum(row[t] for row in by_cs) for t in range(len(by_cs[0]))]

    def to_dataframe(self, by: str = "compute_set") -> Any:
        """A pandas DataFrame by ``"compute_set"``, ``"vertex_type"`` or ``"tile"``."""
        pd = _pandas()
        if by == "compute_set":
            return pd.DataFrame(list(self.compute_sets.items()), columns=["compute_set", "cycles"])
        if by == "vertex_type":
            rows = [(n, c, r) for n, (c, r) in self.vertex_types.items()]
            return pd.DataFrame(rows, columns=["vertex_type", "cycles", "instances"])
        if by == "tile":
            return pd.DataFrame({"tile": range(len(self.tiles)), "cycles": self.tiles})
        raise ValueError(f"by must be 'compute_set', 'vertex_type' or 'tile', not {by!r}")

    def __repr__(self) -> str:
        return f"ExecutionProfile(total_cycles={self.total_cycles}, compute_sets={len(self.compute_sets)})"


class GraphProfile:
    """What the compiler placed: memory per tile, vertices per compute set."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.data = data

    @property
    def num_tiles(self) -> int:
        return int(self.data["target"]["numTiles"])

    @property
    def memory_by_tile(self) -> List[int]:
        """Bytes used on each tile."""
        return [int(b) for b in self.data["memory"]["byTile"]["total"]]

    @property
    def compute_sets(self) -> Dict[str, int]:
        """Vertices in each compute set."""
        names: List[str] = self.data["computeSets"]["names"]
        counts: List[List[int]] = self.data["computeSets"]["vertexCounts"]
        return {n: int(sum(c)) for n, c in zip(names, counts)}

    @property
    def vertex_types(self) -> List[str]:
        return list(self.data["vertexTypes"]["names"])

    def to_dataframe(self, by: str = "tile") -> Any:
        """A pandas DataFrame by ``"tile"`` (memory) or ``"compute_set"`` (vertices)."""
        pd = _pandas()
        if by == "tile":
            return pd.DataFrame({"tile": range(len(self.memory_by_tile)), "bytes": self.memory_by_tile})
        if by == "compute_set":
            return pd.DataFrame(list(self.compute_sets.items()), columns=["compute_set", "vertices"])
        raise ValueError(f"by must be 'tile' or 'compute_set', not {by!r}")

    def __repr__(self) -> str:
        used = sum(self.memory_by_tile)
        return f"GraphProfile(num_tiles={self.num_tiles}, bytes_used={used})"


class Report:
    """The report page of a run; Jupyter displays it inline."""

    def __init__(self, html: str) -> None:
        self.html = html

    def _repr_html_(self) -> str:
        return self.html

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html)


def profiles(engine: Any) -> Tuple[GraphProfile, Optional[ExecutionProfile]]:
    """The graph profile and, once it has run on ``sim``, the execution profile."""
    graph = GraphProfile(engine.graph_profile())
    try:
        execution: Optional[ExecutionProfile] = ExecutionProfile(engine.execution_profile())
    except ValueError:
        execution = None
    return graph, execution

"""kg: turn machine-learning paper abstracts into a knowledge graph.

>>> import kg
>>> G = kg.load_graph("out")                       # doctest: +SKIP
>>> kg.analytics.top_entities(G, "Dataset", n=5)    # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"
__all__ = ["load_graph", "__version__"]

if TYPE_CHECKING:
    from pathlib import Path

    import networkx as nx


def load_graph(
    out_dir: str | Path, *, top: int | None = None, papers: bool = True
) -> nx.MultiDiGraph:
    """Return the graph of a build as a networkx MultiDiGraph.

    Nodes are keyed by their ``key`` and carry ``label`` (Paper, Method, Task, Dataset,
    Metric, Result) and the properties of the build; edges are keyed by relationship type.
    Reads ``OUTDIR/graph.json``, or the build's tables when it has no graph.json (a big
    build) or a filter is given: ``top=N`` keeps the N best-supported entities of each
    type, ``papers=False`` leaves out Paper and Result nodes (edges are kept when both
    ends are).
    """
    from kg.exporters.jsonio import read_build_graph

    return read_build_graph(out_dir, top=top, papers=papers)


def __getattr__(name: str):
    if name == "analytics":  # ``kg.analytics`` without importing it eagerly
        import importlib

        return importlib.import_module("kg.analytics")
    raise AttributeError(f"module 'kg' has no attribute {name!r}")

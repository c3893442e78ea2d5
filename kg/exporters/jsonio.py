"""JSON outputs: ``extractions.jsonl`` (one record per paper) and node-link ``graph.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

import networkx as nx

from kg.errors import KgError

__all__ = ["write_record", "write_graph_json", "read_graph_json", "read_build_graph"]


def write_record(fh: IO[str], record: dict[str, Any]) -> None:
    """Append one paper record as a JSON line."""
    fh.write(json.dumps(record, ensure_ascii=False))
    fh.write("\n")


def write_graph_json(G: nx.MultiDiGraph, path: str | Path) -> None:
    """Write ``G`` as networkx node-link JSON (``nx.node_link_graph`` reads it back)."""
    data = nx.node_link_data(G, edges="edges")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False)


def read_graph_json(path: str | Path) -> nx.MultiDiGraph:
    """Read a ``graph.json`` written by :func:`write_graph_json`."""
    with open(path, encoding="utf-8") as fh:
        return nx.node_link_graph(json.load(fh), edges="edges", multigraph=True, directed=True)


def read_build_graph(out_dir: str | Path) -> nx.MultiDiGraph:
    """Return the graph of the build in ``out_dir`` (its ``graph.json``)."""
    out_dir = Path(out_dir)
    path = out_dir / "graph.json" if out_dir.is_dir() else out_dir
    if not path.is_file():
        raise KgError(f"no graph.json in {out_dir}; run `kg build ... -o {out_dir}` first")
    return read_graph_json(path)

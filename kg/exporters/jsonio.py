"""JSON outputs: ``extractions.jsonl`` (one record per paper) and node-link ``graph.json``."""

from __future__ import annotations

import heapq
import json
from pathlib import Path
from typing import IO, Any

import networkx as nx

from kg.errors import KgError
from kg.graph.model import ENTITY_LABELS
from kg.graph.store import TABLES, GraphSource, GraphTables, graph_source, to_networkx

__all__ = [
    "write_record",
    "write_graph_json",
    "read_graph_json",
    "read_build_graph",
    "read_build_source",
]


def write_record(fh: IO[str], record: dict[str, Any]) -> None:
    """Append one paper record as a JSON line."""
    fh.write(json.dumps(record, ensure_ascii=False))
    fh.write("\n")


def write_graph_json(G: nx.MultiDiGraph | GraphSource, path: str | Path) -> None:
    """Write ``G`` (a graph, or a build's tables streamed) as networkx node-link JSON
    (``nx.node_link_graph`` reads it back)."""
    source = graph_source(G)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('{"directed": true, "multigraph": true, "graph": {"name": "kg"}, "nodes": [')
        for i, (key, data) in enumerate(source.nodes()):
            fh.write(("," if i else "") + json.dumps({**data, "id": key}, ensure_ascii=False))
        fh.write('], "edges": [')
        for i, (u, v, rtype, data) in enumerate(source.edges()):
            item = {**data, "source": u, "target": v, "key": rtype}
            fh.write(("," if i else "") + json.dumps(item, ensure_ascii=False))
        fh.write("]}")


def read_graph_json(path: str | Path) -> nx.MultiDiGraph:
    """Read a ``graph.json`` written by :func:`write_graph_json`."""
    with open(path, encoding="utf-8") as fh:
        return nx.node_link_graph(json.load(fh), edges="edges", multigraph=True, directed=True)


def read_build_graph(
    out_dir: str | Path, *, top: int | None = None, papers: bool = True
) -> nx.MultiDiGraph:
    """Return the graph of the build in ``out_dir`` as networkx.

    Reads ``graph.json`` when the build wrote one and no filter is asked for; otherwise
    builds the graph from the build's tables, keeping the ``top`` best-supported entities
    of each type (all when ``None``) and, with ``papers``, the Paper and Result nodes.
    """
    out_dir = Path(out_dir)
    path = out_dir / "graph.json" if out_dir.is_dir() else out_dir
    if path.is_file() and top is None and papers:
        return read_graph_json(path)
    tables = out_dir / TABLES
    if not (out_dir.is_dir() and (tables / "entities.parquet").is_file()):
        raise KgError(
            f"no graph.json or graph tables in {out_dir}; run `kg build ... -o {out_dir}` first"
        )
    source = GraphTables(tables)
    keep = None
    if top is not None:
        kept: set[str] = set()
        for label in ENTITY_LABELS:
            best = heapq.nsmallest(top, ((-d["support"], k) for k, d in source.nodes(label)))
            kept.update(k for _, k in best)
        keep = kept

    def wanted(key: str, data: dict) -> bool:
        if data["label"] in ("Paper", "Result"):
            return papers
        return keep is None or key in keep

    return to_networkx(source, wanted)


def read_build_source(out_dir: str | Path) -> GraphSource:
    """Return the graph of the build in ``out_dir`` for streaming exports: its tables
    when it has them (memory does not grow with the build), else its ``graph.json``."""
    out_dir = Path(out_dir)
    if (out_dir / TABLES / "entities.parquet").is_file():
        return GraphTables(out_dir / TABLES)
    return graph_source(read_build_graph(out_dir))

"""The graph as tables on disk, and one read interface over it and over networkx graphs.

A build writes the graph of every paper as rows (:class:`GraphTableWriter`): Paper and
Result nodes, and each paper's edges. :func:`merge_edge_tables` then sorts the edge rows
of all papers by (type, from, to, paper) out of core and folds each edge's rows into one
(:func:`kg.graph.assemble.merge_edge`), so no stage holds the whole graph. Exporters read
through :class:`GraphTables`, or :class:`NxGraph` for a graph already in memory; both
yield ``(key, data)`` nodes and ``(u, v, type, data)`` edges, data as in ``graph.json``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from itertools import groupby
from pathlib import Path
from typing import Any, Protocol

import networkx as nx

from kg.graph.assemble import (
    CONTRADICTED,
    entity_node,
    merge_edge,
    paper_graph,
    settle_contradiction,
)
from kg.graph.model import ENTITY_LABELS, NODE_LABELS
from kg.resolve.resolver import Entity
from kg.util.tables import (
    DUCKDB_MEMORY,
    ShardWriter,
    duckdb_connection,
    glob_of,
    iter_rows,
    shard_files,
    write_table,
)

__all__ = [
    "GraphSource",
    "GraphTables",
    "GraphTableWriter",
    "TABLES",
    "NxGraph",
    "PaperSubset",
    "graph_source",
    "merge_edge_tables",
    "set_node_properties",
    "to_networkx",
]

TABLES = "tables"
"""The directory of a build (``OUT/tables``) that holds its tables."""
NODES = "nodes"
PAPER_EDGES = "paper_edges"
EDGES = "edges"
ENTITIES = "entities.parquet"
_READ_BATCH = 2_000


class GraphSource(Protocol):
    """What exporters read: nodes and edges, streamed, with their counts."""

    def nodes(self, label: str | None = None) -> Iterator[tuple[str, dict[str, Any]]]: ...

    def edges(
        self, rtype: str | None = None, *, evidence_json: bool = False
    ) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
        """``(u, v, type, data)``; with ``evidence_json``, ``data["evidence"]`` is JSON text
        (what the stores keep), which a table source passes on without decoding it."""
        ...

    def label_counts(self) -> Counter: ...

    def type_counts(self) -> Counter: ...


def _schema(**columns: str):
    """Return the pyarrow schema of string (``"s"``) and int64 (``"i"``) columns."""
    import pyarrow as pa

    kinds = {"s": pa.string(), "i": pa.int64()}
    return pa.schema([(name, kinds[kind]) for name, kind in columns.items()])


def _node_schema():
    return _schema(key="s", label="s", data="s")


def _paper_edge_schema():
    return _schema(u="s", v="s", type="s", paper="s", row="s")


def _edge_schema():
    return _schema(u="s", v="s", type="s", support="i", data="s", evidence="s")


def json_text(data: Any) -> str:
    """Return ``data`` as compact JSON, non-ASCII kept: how the tables and the stores hold
    JSON values (an edge's evidence, for one)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class GraphTableWriter:
    """Write each paper's nodes and edge rows to the tables of ``directory``."""

    def __init__(self, directory: str | Path, *, rows_per_shard: int = 10_000) -> None:
        self.directory = Path(directory)
        self._nodes = ShardWriter(
            self.directory / NODES, _node_schema(), rows_per_shard=rows_per_shard
        )
        self._edges = ShardWriter(
            self.directory / PAPER_EDGES, _paper_edge_schema(), rows_per_shard=rows_per_shard
        )

    def add_paper(self, record: dict[str, Any]) -> None:
        """Add the graph of one paper record (one line of ``extractions.jsonl``)."""
        nodes, edges = paper_graph(record)
        for node in nodes:
            self._nodes.add({"key": node["key"], "label": node["label"], "data": json_text(node)})
        for row in edges:
            self._edges.add(
                {"u": row["u"], "v": row["v"], "type": row["type"], "paper": row["paper"],
                 "row": json_text(row)}
            )  # fmt: skip

    def close(self) -> None:
        self._nodes.close()
        self._edges.close()


MERGE_ROWS = 250_000
"""Per-paper edge rows sorted at once when edges are merged; more are split into partitions
by a hash of (type, from, to), each sorted on its own, so that a big build's sorts fit in
DuckDB's 256 MB as a small one's do (docs/performance.md)."""

EDGE_ROWS_PER_SHARD = 10_000
"""Merged edges held before they are written as a shard of ``edges/``: few, as an edge
carries up to :data:`~kg.graph.assemble.MAX_EVIDENCE` evidence items, more of them the
bigger the corpus."""


def merge_edge_tables(
    directory: str | Path,
    *,
    spill_dir: str | Path | None = None,
    partition_rows: int = MERGE_ROWS,
    memory: str = DUCKDB_MEMORY,
) -> int:
    """Fold the per-paper edge rows of ``directory`` into one row per edge; return how many
    (DuckDB held to ``memory``, spilling to ``spill_dir``).

    Rows are sorted out of core by (type, the pair of ends, from, to, paper), so an
    edge's papers come in paper-id order whatever order the papers were extracted in,
    and an edge meets its reverse: of a :data:`~kg.graph.assemble.CONTRADICTED` type the
    two are settled by their evidence (:func:`~kg.graph.assemble.settle_contradiction`).
    Above ``partition_rows`` rows, the edges are merged in partitions of about that many
    rows (all rows of an edge and its reverse fall in one partition); the output depends
    only on the rows.
    """
    directory = Path(directory)
    out = ShardWriter(directory / EDGES, _edge_schema(), rows_per_shard=EDGE_ROWS_PER_SHARD)
    if not shard_files(directory / PAPER_EDGES):
        return 0
    source = f"read_parquet('{glob_of(directory / PAPER_EDGES)}')"
    with duckdb_connection(spill_dir or directory / ".spill", memory=memory) as con:
        (total,) = con.execute(f"SELECT count(*) FROM {source}").fetchone()
        parts = max(1, -(-total // max(1, partition_rows)))
        for part in range(parts):
            rows = iter_rows(
                con,
                f"SELECT least(u, v), greatest(u, v), u, v, type, row FROM {source} "
                "WHERE hash(type, least(u, v), greatest(u, v)) % $1 = $2 "
                "ORDER BY type, least(u, v), greatest(u, v), u, v, paper",
                [parts, part],
            )
            for (_, _, rtype), group in groupby(rows, key=lambda r: (r[0], r[1], r[4])):
                for (u, v), data in _fold_pair(rtype, group):
                    evidence = json_text(data.pop("evidence"))
                    out.add({"u": u, "v": v, "type": rtype, "support": data["support"],
                             "data": json_text(data), "evidence": evidence})  # fmt: skip
    out.close()
    return out.written


def _fold_pair(rtype: str, rows) -> list[tuple[tuple[str, str], dict[str, Any]]]:
    """Fold the rows of an edge and of its reverse into one edge each, settling the two
    when they contradict each other."""
    edges = []
    for (u, v), group in groupby(rows, key=lambda r: (r[2], r[3])):
        data = None
        for *_, row in group:
            data = merge_edge(data, json.loads(row))
        edges.append(((u, v), data))
    if len(edges) == 2 and rtype in CONTRADICTED:
        settle_contradiction(edges[0][1], edges[1][1])
    return edges


def set_node_properties(
    directory: str | Path, label: str, properties: Mapping[str, dict[str, Any]]
) -> int:
    """Set ``properties[key]`` on the nodes of ``label`` (Paper or Result) in the tables of
    ``directory`` (``OUT/tables``), over what they held; return how many nodes took them.
    What the build decides once the graph is whole (a result's leaderboard) is stored so.

    Each shard that holds such nodes is read and written again whole (beside it, then
    renamed), one at a time; only those nodes' data is decoded, so memory holds one
    shard's columns.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    changed = 0
    for file in shard_files(Path(directory) / NODES):
        head = pq.read_table(file, columns=["key", "label"])
        keys, labels = head.column("key").to_pylist(), head.column("label").to_pylist()
        mask = [lab == label and k in properties for k, lab in zip(keys, labels, strict=True)]
        if not any(mask):
            continue
        table = pq.read_table(file)
        data = table.column("data").combine_chunks()
        new = [json_text({**json.loads(data[i].as_py()), **properties[keys[i]]})
               for i, hit in enumerate(mask) if hit]  # fmt: skip
        column = pc.replace_with_mask(data, pa.array(mask), pa.array(new, pa.string()))
        write_table(file, table.set_column(table.schema.get_field_index("data"), "data", column))
        changed += len(new)
    return changed


def _row_groups(parquet, where: tuple[str, str] | None) -> list[int]:
    """Return the row groups of ``parquet`` that may hold rows with ``where=(column,
    value)``, by the column's min/max statistics (edge tables are sorted by type, so a
    reader of one type decodes a few row groups instead of all of them)."""
    groups = list(range(parquet.metadata.num_row_groups))
    if where is None:
        return groups
    column, value = where
    # the Parquet (leaf) column, not the arrow field: a list column before it shifts those
    paths = [parquet.metadata.schema.column(j).path for j in range(parquet.metadata.num_columns)]
    if column not in paths:
        return groups
    index = paths.index(column)
    kept = []
    for i in groups:
        stats = parquet.metadata.row_group(i).column(index).statistics
        if stats is not None and stats.has_min_max and not stats.min <= value <= stats.max:
            continue
        kept.append(i)
    return kept


def _table_files(path: Path) -> list[Path]:
    """Return the Parquet files of a table: ``path`` itself, or the shards under it."""
    return [path] if path.is_file() else shard_files(path)


class GraphTables:
    """Read the graph tables a build wrote under ``directory`` (``OUT/tables``)."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    def _batches(
        self, path: Path, columns: list[str], where: tuple[str, str] | None = None
    ) -> Iterator[dict]:
        """Yield the rows of a table file or directory, ``where=(column, value)`` filtered,
        a few thousand rows at a time: one file and one row group at once, no read-ahead
        (pyarrow's dataset scanner reads several files ahead, which grows with the graph)."""
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        wanted = columns if where is None or where[0] in columns else [*columns, where[0]]
        for file in _table_files(path):
            parquet = pq.ParquetFile(file)
            groups = _row_groups(parquet, where)
            if not groups:
                continue
            for batch in parquet.iter_batches(
                batch_size=_READ_BATCH, row_groups=groups, columns=wanted, use_threads=False
            ):
                if where is not None:
                    batch = batch.filter(pc.equal(batch.column(where[0]), where[1]))
                yield from batch.to_pylist()

    def nodes(self, label: str | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
        """Yield ``(key, data)`` of the nodes with ``label`` (all nodes when ``None``)."""
        labels = NODE_LABELS if label is None else (label,)
        for lab in labels:
            if lab in ENTITY_LABELS:
                path = self.directory / ENTITIES
                cols = ["key", "type", "name", "aliases", "support", "mention_count",
                        "proposed_count", "benchmark"]  # fmt: skip
                for row in self._batches(path, cols, ("type", lab)):
                    yield row["key"], entity_node(Entity(**row))
            else:
                for row in self._batches(self.directory / NODES, ["key", "data"], ("label", lab)):
                    yield row["key"], json.loads(row["data"])

    def edges(
        self, rtype: str | None = None, *, evidence_json: bool = False
    ) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
        """Yield ``(u, v, type, data)`` of the edges of type ``rtype`` (all when ``None``);
        with ``evidence_json``, ``data["evidence"]`` is the JSON text the table holds."""
        where = None if rtype is None else ("type", rtype)
        import pyarrow.parquet as pq

        path = self.directory / EDGES
        files = _table_files(path)
        # tables written before evidence had a column of its own keep it inside data
        column = not files or "evidence" in pq.read_schema(files[0]).names
        columns = ["u", "v", "type", "data", *(["evidence"] if column else [])]
        for row in self._batches(path, columns, where):
            data = json.loads(row["data"])
            if column:
                data["evidence"] = row["evidence"] if evidence_json else json.loads(row["evidence"])
            elif evidence_json:
                data["evidence"] = json_text(data["evidence"])
            yield row["u"], row["v"], row["type"], data

    def _counts(self, path: Path, column: str) -> Counter:
        import pyarrow.parquet as pq

        counts: Counter = Counter()
        for file in _table_files(path):
            values = pq.read_table(file, columns=[column]).column(column).value_counts()
            counts.update({v["values"]: v["counts"] for v in values.to_pylist()})
        return counts

    def label_counts(self) -> Counter:
        """Return the number of nodes per label."""
        return self._counts(self.directory / ENTITIES, "type") + self._counts(
            self.directory / NODES, "label"
        )

    def type_counts(self) -> Counter:
        """Return the number of edges per relationship type."""
        return self._counts(self.directory / EDGES, "type")


class NxGraph:
    """The :class:`GraphSource` view of a networkx graph in kg's model."""

    def __init__(self, G: nx.MultiDiGraph) -> None:
        self.G = G

    def nodes(self, label: str | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
        for key, data in self.G.nodes(data=True):
            if label is None or data["label"] == label:
                yield key, data

    def edges(
        self, rtype: str | None = None, *, evidence_json: bool = False
    ) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
        for u, v, key, data in self.G.edges(keys=True, data=True):
            if rtype is None or key == rtype:
                if evidence_json:
                    data = {**data, "evidence": json_text(data["evidence"])}
                yield u, v, key, data

    def label_counts(self) -> Counter:
        return Counter(d["label"] for _, d in self.G.nodes(data=True))

    def type_counts(self) -> Counter:
        return Counter(k for _, _, k in self.G.edges(keys=True))


class PaperSubset:
    """The part of ``source`` that ``paper_ids`` say: their Paper and Result nodes, the
    edges they support (with all their papers, as in ``source``) and the entities at the
    ends of those edges. What an update that added these papers has to load."""

    def __init__(self, source: GraphSource, paper_ids: set[str]) -> None:
        self.source = source
        self.paper_ids = set(paper_ids)
        self._keys: set[str] | None = None

    def _touched(self) -> set[str]:
        if self._keys is None:
            keys = {f"paper:{p}" for p in self.paper_ids}
            for u, v, _, _ in self.edges(evidence_json=True):
                keys.update((u, v))
            self._keys = keys
        return self._keys

    def nodes(self, label: str | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
        for key, data in self.source.nodes(label):
            if data.get("paper_id") in self.paper_ids or key in self._touched():
                yield key, data

    def edges(
        self, rtype: str | None = None, *, evidence_json: bool = False
    ) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
        for u, v, t, data in self.source.edges(rtype, evidence_json=evidence_json):
            if self.paper_ids.intersection(data["papers"]):
                yield u, v, t, data

    def label_counts(self) -> Counter:
        return Counter(d["label"] for _, d in self.nodes())

    def type_counts(self) -> Counter:
        return Counter(t for _, _, t, _ in self.edges(evidence_json=True))


def graph_source(graph: nx.MultiDiGraph | GraphSource) -> GraphSource:
    """Return ``graph`` as a :class:`GraphSource` (a networkx graph is wrapped)."""
    if isinstance(graph, nx.Graph):
        return NxGraph(graph)
    return graph


def to_networkx(source: GraphSource, keep=None) -> nx.MultiDiGraph:
    """Return ``source`` as a networkx MultiDiGraph; ``keep(key, data)`` filters nodes
    (edges are kept when both ends are)."""
    G = nx.MultiDiGraph(name="kg")
    for key, data in source.nodes():
        if keep is None or keep(key, data):
            G.add_node(key, **data)
    for u, v, rtype, data in source.edges():
        if u in G and v in G:
            G.add_edge(u, v, key=rtype, **data)
    return G

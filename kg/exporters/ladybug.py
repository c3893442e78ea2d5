"""The embedded LadybugDB store: schema DDL from the model, bulk load with ``COPY FROM``."""

from __future__ import annotations

import csv
import json
import os
import re
import tempfile
from collections import defaultdict
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import networkx as nx

from kg.errors import ExportError
from kg.graph.model import EDGE_ENDS, NODE_LABELS, NODE_PROPERTIES, edge_properties, label_of_key
from kg.graph.store import GraphSource, graph_source
from kg.tables import batched

__all__ = ["schema_ddl", "write_database", "open_database", "run_query", "DB_NAME"]

DB_NAME = "graph.lbdb"
_SAFE_LIST_ITEM = re.compile(r"^[^,\[\]{}'\"\\\n\r]*$")
_BATCH = 2000


def schema_ddl() -> list[str]:
    """Return the ``CREATE NODE/REL TABLE`` statements of kg's fixed model."""
    out = []
    for label in NODE_LABELS:
        cols = ", ".join(f"`{k}` {t}" for k, t in NODE_PROPERTIES[label].items())
        out.append(f"CREATE NODE TABLE {label}({cols}, PRIMARY KEY(key))")
    for rtype, ends in EDGE_ENDS.items():
        props = ", ".join(f"`{k}` {t}" for k, t in edge_properties(rtype).items())
        pairs = ", ".join(f"FROM {a} TO {b}" for a, b in ends)
        out.append(f"CREATE REL TABLE {rtype}({pairs}, {props})")
    return out


WRITE_BUFFER_POOL = int(os.environ.get("KG_LADYBUG_MEMORY_MB", "512")) * 2**20
"""LadybugDB's buffer pool while a build writes the store (``KG_LADYBUG_MEMORY_MB``, default
512; 0 lets LadybugDB take most of the machine's memory). Tables are loaded with one
``COPY FROM`` per :data:`COPY_ROWS` rows, so the pool need not hold a whole table."""

COPY_ROWS = int(os.environ.get("KG_LADYBUG_COPY_ROWS", "200000"))
"""Relationships per ``COPY FROM`` when a build writes the store."""
NODE_COPY_ROWS = 20_000
"""Nodes per ``COPY FROM`` (paper nodes carry their abstracts)."""


def open_database(path: str | Path, *, read_only: bool = False, buffer_pool_size: int = 0):
    """Return a connection to the LadybugDB database at ``path`` (``buffer_pool_size`` in
    bytes; 0 lets LadybugDB choose, most of the machine's memory)."""
    import ladybug

    path = Path(path)
    if path.is_dir() and (path / DB_NAME).exists():
        path = path / DB_NAME
    if read_only and not path.exists():
        raise FileNotFoundError(f"no LadybugDB database at {path}; run `kg build` first")
    db = ladybug.Database(str(path), read_only=read_only, buffer_pool_size=buffer_pool_size)
    return ladybug.Connection(db)


def run_query(path: str | Path, query: str, params: dict[str, Any] | None = None):
    """Run a Cypher query on a build's store; return ``(columns, rows)``."""
    conn = open_database(path, read_only=True)
    result = conn.execute(query, parameters=params or {})
    columns = result.get_column_names()
    rows = []
    while result.has_next():
        rows.append(result.get_next())
    return columns, rows


def _cell(value: Any, kind: str) -> Any:
    if value is None:
        return ""
    if kind == "BOOLEAN":
        return "true" if value else "false"
    return value


class _ChunkedCopy:
    """CSV rows for one table, loaded with a ``COPY FROM`` every ``rows`` rows (LadybugDB
    copies into a table that already holds rows), so no file or copy grows with the graph."""

    def __init__(self, conn, file: Path, table: str, header: list[str], *, columns=None,
                 extra: str = "", rows: int | None = None) -> None:  # fmt: skip
        self.conn, self.file, self.table, self.header = conn, file, table, header
        self.columns, self.extra, self.rows = columns, extra, rows
        self._fh = None
        self._writer = None
        self._pending = 0

    def add(self, row: list[Any]) -> None:
        if self._fh is None:
            self._fh = open(self.file, "w", encoding="utf-8", newline="")
            self._writer = csv.writer(self._fh)
            self._writer.writerow(self.header)
        self._writer.writerow(row)
        self._pending += 1
        if self._pending >= self.rows:
            self.flush()

    def flush(self) -> None:
        if self._fh is None:
            return
        self._fh.close()
        _copy(self.conn, self.table, self.file, columns=self.columns, extra=self.extra)
        self.file.unlink()
        self._fh, self._writer, self._pending = None, None, 0


def write_database(G: nx.MultiDiGraph | GraphSource, path: str | Path) -> dict[str, int]:
    """Create a LadybugDB database at ``path`` holding ``G`` (a graph or a build's tables,
    streamed one label and one relationship type at a time, copied in chunks of
    :data:`COPY_ROWS` rows); return rows loaded per table."""
    source = graph_source(G)
    conn = open_database(path, buffer_pool_size=WRITE_BUFFER_POOL)
    for stmt in schema_ddl():
        conn.execute(stmt)
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="kg-ladybug-") as tmp:
        tmpdir = Path(tmp)
        for label in NODE_LABELS:
            props = NODE_PROPERTIES[label]
            scalar = [k for k, t in props.items() if not t.endswith("[]")]
            lists = [k for k, t in props.items() if t.endswith("[]")]
            copier = _ChunkedCopy(
                conn, tmpdir / f"{label}.csv", label, scalar, columns=scalar, rows=NODE_COPY_ROWS
            )
            n = 0
            with ExitStack() as stack:
                list_files = {}
                for key in lists:  # list properties are set after the COPY, from JSON lines
                    list_files[key] = stack.enter_context(
                        open(tmpdir / f"{label}.{key}.jsonl", "w", encoding="utf-8")
                    )
                for _, data in source.nodes(label):
                    copier.add([_cell(data.get(k), props[k]) for k in scalar])
                    for key, lf in list_files.items():
                        if data.get(key):
                            lf.write(json.dumps({"k": data["key"], "v": list(data[key])}) + "\n")
                    n += 1
            copier.flush()
            for key in lists:
                with open(tmpdir / f"{label}.{key}.jsonl", encoding="utf-8") as lf:
                    for batch in batched((json.loads(line) for line in lf), _BATCH):
                        conn.execute(
                            f"UNWIND $rows AS row MATCH (n:{label} {{key: row.k}}) "
                            f"SET n.`{key}` = row.v",
                            parameters={"rows": batch},
                        )
            counts[label] = n
        for rtype, ends in EDGE_ENDS.items():
            props = list(edge_properties(rtype))
            copiers: dict[tuple[str, str], _ChunkedCopy] = {}
            n_pair: dict[tuple[str, str], int] = defaultdict(int)
            slow: list[tuple[str, str, str, str, dict]] = []
            for u, v, _, data in source.edges(rtype):
                a, b = label_of_key(u), label_of_key(v)
                if (a, b) not in ends:
                    raise ExportError(f"edge {rtype} from {a} to {b} is not in the schema")
                n_pair[(a, b)] += 1
                if not all(_SAFE_LIST_ITEM.match(p) for p in data["papers"]):
                    slow.append((a, b, u, v, data))
                    continue
                if (a, b) not in copiers:
                    opts = f", from='{a}', to='{b}'" if len(ends) > 1 else ""
                    copiers[(a, b)] = _ChunkedCopy(
                        conn, tmpdir / f"{rtype}_{a}_{b}.csv", rtype, ["from", "to", *props],
                        extra=opts, rows=COPY_ROWS,
                    )  # fmt: skip
                cells = {
                    **data,
                    "papers": "[" + ",".join(data["papers"]) + "]",
                    "evidence": json.dumps(data["evidence"], ensure_ascii=False),
                }
                copiers[(a, b)].add([u, v, *(cells.get(k, "") for k in props)])
            for copier in copiers.values():
                copier.flush()
            assignments = ", ".join(f"`{k}`: $props.`{k}`" for k in props)
            for a, b, u, v, data in slow:
                values = {k: data.get(k) for k in props}
                values["evidence"] = json.dumps(data["evidence"], ensure_ascii=False)
                conn.execute(
                    f"MATCH (a:{a} {{key: $u}}), (b:{b} {{key: $v}}) "
                    f"CREATE (a)-[:{rtype} {{{assignments}}}]->(b)",
                    parameters={"u": u, "v": v, "props": values},
                )
            for (a, b), n in n_pair.items():
                counts[f"{rtype}:{a}->{b}"] = n
    return counts


def _copy(
    conn, table: str, file: Path, *, columns: list[str] | None = None, extra: str = ""
) -> None:
    cols = "(" + ", ".join(f"`{c}`" for c in columns) + ")" if columns else ""
    options = f"header=true, quote='\"', escape='\"', parallel=false{extra}"
    conn.execute(f"COPY {table}{cols} FROM '{file.as_posix()}' ({options})")

"""The embedded LadybugDB store: schema DDL from the model, bulk load with ``COPY FROM``."""

from __future__ import annotations

import csv
import json
import re
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import networkx as nx

from kg.errors import ExportError
from kg.graph.model import EDGE_ENDS, NODE_LABELS, NODE_PROPERTIES, check_label, edge_properties

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


def open_database(path: str | Path, *, read_only: bool = False):
    """Return a connection to the LadybugDB database at ``path``."""
    import ladybug

    path = Path(path)
    if path.is_dir() and (path / DB_NAME).exists():
        path = path / DB_NAME
    if read_only and not path.exists():
        raise FileNotFoundError(f"no LadybugDB database at {path}; run `kg build` first")
    db = ladybug.Database(str(path), read_only=read_only)
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


def write_database(G: nx.MultiDiGraph, path: str | Path) -> dict[str, int]:
    """Create a LadybugDB database at ``path`` holding ``G``; return rows loaded per table."""
    conn = open_database(path)
    for stmt in schema_ddl():
        conn.execute(stmt)
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="kg-ladybug-") as tmp:
        tmpdir = Path(tmp)
        by_label: dict[str, list[tuple[str, dict]]] = defaultdict(list)
        for node, data in G.nodes(data=True):
            by_label[data["label"]].append((node, data))
        for label in NODE_LABELS:
            props = NODE_PROPERTIES[label]
            scalar = [k for k, t in props.items() if not t.endswith("[]")]
            lists = [k for k, t in props.items() if t.endswith("[]")]
            rows = by_label.get(label, [])
            file = tmpdir / f"{label}.csv"
            with open(file, "w", encoding="utf-8", newline="") as fh:
                writer = csv.writer(fh)
                writer.writerow(scalar)
                for _, data in rows:
                    writer.writerow([_cell(data.get(k), props[k]) for k in scalar])
            _copy(conn, label, file, columns=scalar)
            for key in lists:
                items = [
                    {"k": d["key"], "v": list(d.get(key) or [])} for _, d in rows if d.get(key)
                ]
                for i in range(0, len(items), _BATCH):
                    conn.execute(
                        f"UNWIND $rows AS row MATCH (n:{label} {{key: row.k}}) "
                        f"SET n.`{key}` = row.v",
                        parameters={"rows": items[i : i + _BATCH]},
                    )
            counts[label] = len(rows)
        by_pair: dict[tuple[str, str, str], list[tuple[str, str, dict]]] = defaultdict(list)
        for u, v, rtype, data in G.edges(keys=True, data=True):
            by_pair[(rtype, G.nodes[u]["label"], G.nodes[v]["label"])].append((u, v, data))
        for (rtype, a, b), edges in by_pair.items():
            check_label(a)
            check_label(b)
            if (a, b) not in EDGE_ENDS[rtype]:
                raise ExportError(f"edge {rtype} from {a} to {b} is not in the schema")
            file = tmpdir / f"{rtype}_{a}_{b}.csv"
            slow = []
            props = list(edge_properties(rtype))
            with open(file, "w", encoding="utf-8", newline="") as fh:
                writer = csv.writer(fh)
                writer.writerow(["from", "to", *props])
                for u, v, data in edges:
                    if not all(_SAFE_LIST_ITEM.match(p) for p in data["papers"]):
                        slow.append((u, v, data))
                        continue
                    cells = {
                        **data,
                        "papers": "[" + ",".join(data["papers"]) + "]",
                        "evidence": json.dumps(data["evidence"], ensure_ascii=False),
                    }
                    writer.writerow([u, v, *(cells.get(k, "") for k in props)])
            opts = f", from='{a}', to='{b}'" if len(EDGE_ENDS[rtype]) > 1 else ""
            _copy(conn, rtype, file, extra=opts)
            assignments = ", ".join(f"`{k}`: $props.`{k}`" for k in props)
            for u, v, data in slow:
                values = {k: data.get(k) for k in props}
                values["evidence"] = json.dumps(data["evidence"], ensure_ascii=False)
                conn.execute(
                    f"MATCH (a:{a} {{key: $u}}), (b:{b} {{key: $v}}) "
                    f"CREATE (a)-[:{rtype} {{{assignments}}}]->(b)",
                    parameters={"u": u, "v": v, "props": values},
                )
            counts[f"{rtype}:{a}->{b}"] = len(edges)
    return counts


def _copy(
    conn, table: str, file: Path, *, columns: list[str] | None = None, extra: str = ""
) -> None:
    cols = "(" + ", ".join(f"`{c}`" for c in columns) + ")" if columns else ""
    options = f"header=true, quote='\"', escape='\"', parallel=false{extra}"
    conn.execute(f"COPY {table}{cols} FROM '{file.as_posix()}' ({options})")

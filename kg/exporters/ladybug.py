"""The embedded LadybugDB store: schema DDL from the model, bulk load with ``COPY FROM``."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import sys
import tempfile
from collections import defaultdict
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from kg.errors import ExportError
from kg.graph.model import EDGE_ENDS, NODE_LABELS, NODE_PROPERTIES, edge_properties, label_of_key
from kg.graph.store import GraphSource, graph_source
from kg.util.buckets import CsvBuckets, bucket_of
from kg.util.tables import batched

__all__ = [
    "schema_ddl",
    "node_table_ddl",
    "rel_table_ddl",
    "forward_only_tables",
    "write_database",
    "open_database",
    "run_query",
    "DB_NAME",
]

DB_NAME = "graph.lbdb"
_SAFE_LIST_ITEM = re.compile(r"^[^,\[\]{}'\"\\\n\r]*$")
_BATCH = 2000


WRITE_BUFFER_POOL = 512 * 2**20
"""LadybugDB's buffer pool while a build writes the store (``kg build --ladybug-memory-mb``,
``KG_LADYBUG_MEMORY_MB``; 0 lets LadybugDB take most of the machine's memory)."""

WRITE_BUFFER_POOL_MAX = max(
    WRITE_BUFFER_POOL, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
)
"""What the write buffer pool may grow to (``--ladybug-memory-max-mb``): a ``COPY`` whose
checkpoint finds the pool full is taken up again with the pool doubled, up to this, as a
checkpoint's need grows with its table (docs/performance.md, LadybugDB)."""

WRITE_THREADS = 1
"""LadybugDB's threads while a build writes the store: every ``COPY`` runs with
``parallel=false``, so more threads add no speed, only buffers of their own."""

TEXT_MAX_PAPERS = 20_000
"""A store of more papers than this leaves their abstracts (``Paper.text``) out
(``--ladybug-text-max-papers``): each checkpoint rewrites a node group of papers with
their texts, which then set the store's peak. The texts stay in the other outputs."""

EVIDENCE_MAX_PAPERS: int | None = None
"""A store of more papers than this leaves the evidence of its relationships out
(``--ladybug-evidence-max-papers``; unset, every store keeps it): a checkpoint needs pool
pages in proportion to a table with its evidence. The evidence stays in the other outputs."""

FORWARD_ONLY_ABOVE: int | None = None
"""A relationship table whose CSV for one pair of labels weighs more than this many bytes
is stored forward only (``--ladybug-forward-only-above-mb``; None: an eighth of the write
buffer pool, no limit when it is unbounded): its backward lists, spread over every node
group of its targets, would be rewritten at each checkpoint until the pool ran out.
LadybugDB then refuses undirected patterns over it and a directed one walked backward from
a node an earlier clause bound, so the saved queries avoid both."""


def schema_ddl() -> list[str]:
    """Return the ``CREATE NODE/REL TABLE`` statements of kg's fixed model (both
    directions; :func:`write_database` decides per table when it writes the store)."""
    return [node_table_ddl(label) for label in NODE_LABELS] + [
        rel_table_ddl(rtype) for rtype in EDGE_ENDS
    ]


def node_table_ddl(label: str) -> str:
    """Return the ``CREATE NODE TABLE`` statement of node label ``label``."""
    cols = ", ".join(f"`{k}` {t}" for k, t in NODE_PROPERTIES[label].items())
    return f"CREATE NODE TABLE {label}({cols}, PRIMARY KEY(key))"


def rel_table_ddl(rtype: str, forward_only: bool = False) -> str:
    """Return the ``CREATE REL TABLE`` statement of relationship type ``rtype``."""
    props = ", ".join(f"`{k}` {t}" for k, t in edge_properties(rtype).items())
    pairs = ", ".join(f"FROM {a} TO {b}" for a, b in EDGE_ENDS[rtype])
    fwd = " WITH (storage_direction='fwd')" if forward_only else ""
    return f"CREATE REL TABLE {rtype}({pairs}, {props}){fwd}"


def forward_only_tables(conn) -> list[str]:
    """Return the relationship tables of an open store that are stored forward only."""
    tables = conn.execute("CALL show_tables() WHERE type = 'REL' RETURN name")
    names = []
    while tables.has_next():
        names.append(tables.get_next()[0])
    out = []
    for name in names:
        info = conn.execute(f"CALL table_info('{name}') RETURN storage_direction LIMIT 1")
        if info.has_next() and info.get_next()[0] == "fwd":
            out.append(name)
    return sorted(out)


BUCKET_NODES = 20_000
"""Nodes per bucket when a build writes the store: the nodes of a label are copied bucket by
bucket (by a hash of their key), and each relationship table one bucket of its source
nodes at a time, so that a ``COPY`` adds to the few node groups its bucket lives in."""

_MEMORY_ROWS = 20_000
"""CSV rows held in memory across all buckets before they are appended to their files."""


def open_database(
    path: str | Path, *, read_only: bool = False, buffer_pool_size: int = 0, threads: int = 0
):
    """Return a connection to the LadybugDB database at ``path`` (``buffer_pool_size`` in
    bytes; 0 lets LadybugDB choose, most of the machine's memory; ``threads`` 0: one per
    core)."""
    import ladybug

    path = Path(path)
    if path.is_dir() and (path / DB_NAME).exists():
        path = path / DB_NAME
    if read_only and not path.exists():
        raise FileNotFoundError(f"no LadybugDB database at {path}; run `kg build` first")
    db = ladybug.Database(
        str(path), read_only=read_only, buffer_pool_size=buffer_pool_size, max_num_threads=threads
    )
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


def write_database(
    G: nx.MultiDiGraph | GraphSource,
    path: str | Path,
    *,
    forward_only_above: int | None = None,
    text_max_papers: int | None = None,
    evidence_max_papers: int | None = None,
    pool: int | None = None,
    pool_max: int | None = None,
) -> LadybugWrite:
    """Create a LadybugDB database at ``path`` holding ``G`` (a graph or a build's tables,
    streamed one label and one relationship type at a time and copied in buckets of about
    :data:`BUCKET_NODES` nodes); return the rows loaded per table and the notes the writing
    left (see :class:`LadybugWrite`). A relationship table whose
    rows weigh more than ``forward_only_above`` bytes for one pair of labels (default
    :data:`FORWARD_ONLY_ABOVE`) is stored forward only; with more papers than
    ``text_max_papers`` (default :data:`TEXT_MAX_PAPERS`) their texts are left out, and
    with more than ``evidence_max_papers`` the relationships' evidence. The write buffer
    pool starts at ``pool`` bytes (:data:`WRITE_BUFFER_POOL`) and may grow to ``pool_max``
    (:data:`WRITE_BUFFER_POOL_MAX`); when it had to, a note says so. Each limit left
    None takes the module's default."""
    source = graph_source(G)
    pool = WRITE_BUFFER_POOL if pool is None else pool
    pool_max = max(pool, WRITE_BUFFER_POOL_MAX if pool_max is None else pool_max)
    forward_only_above = FORWARD_ONLY_ABOVE if forward_only_above is None else forward_only_above
    above = (pool // 8 or sys.maxsize) if forward_only_above is None else forward_only_above
    max_texts = TEXT_MAX_PAPERS if text_max_papers is None else text_max_papers
    max_evidence = EVIDENCE_MAX_PAPERS if evidence_max_papers is None else evidence_max_papers
    labels = source.label_counts()
    papers = labels.get("Paper", 0)
    conn = _Writer(path, pool, pool_max)
    try:
        for label in NODE_LABELS:
            conn.execute(node_table_ddl(label))
        n_buckets = {label: max(1, -(-n // BUCKET_NODES)) for label, n in labels.items()}
        counts: dict[str, int] = {}
        with tempfile.TemporaryDirectory(prefix="kg-ladybug-") as tmp:
            tmpdir = Path(tmp)
            for label in NODE_LABELS:
                left_out = {"text"} if label == "Paper" and _more_than(papers, max_texts) else set()
                counts[label] = _copy_nodes(
                    conn, source, label, n_buckets.get(label, 1), tmpdir, left_out=left_out
                )
            evidence = not _more_than(papers, max_evidence)
            forward = []
            for rtype, ends in EDGE_ENDS.items():
                copied, fwd = _copy_edges(conn, source, rtype, ends, n_buckets, tmpdir, above,
                                          evidence)  # fmt: skip
                counts.update(copied)
                if fwd:
                    forward.append(rtype)
    finally:
        conn.close()
    notes = list(conn.grown)
    if _more_than(papers, max_texts):
        notes.append(
            f"graph.lbdb leaves the abstracts out (Paper.text): {papers:,} papers, more than "
            f"{max_texts:,} (--ladybug-text-max-papers), would set its memory; they are in "
            "extractions.jsonl, graph.ttl and Neo4j"
        )
    if not evidence:
        notes.append(
            f"graph.lbdb leaves the relationships' evidence out: {papers:,} papers, more "
            f"than {max_evidence:,} (--ladybug-evidence-max-papers); it is in "
            "extractions.jsonl, graph.ttl, the tables and Neo4j"
        )
    if forward:
        notes.append(
            f"graph.lbdb keeps {', '.join(sorted(forward))} forward only (too big for both "
            "directions in its write buffer pool): undirected patterns over them, such as "
            "path-between, need Neo4j"
        )
    return LadybugWrite(counts, notes)


@dataclass(frozen=True)
class LadybugWrite:
    """What :func:`write_database` wrote: rows per table, and notes for the build's
    summary (the buffer pool had to grow; abstracts or evidence left out; tables kept
    forward only)."""

    counts: dict[str, int]
    notes: list[str]


SPACE_RESERVE = 8 * 2**20
"""Free bytes a ``COPY`` needs beyond twice its file (the write-ahead log holds a copy's
pages until the checkpoint): an empty store grows by about 4.7 MB on its first writes."""


def _check_space(path: Path, file: Path, what: str) -> None:
    """Refuse a ``COPY`` the device holding ``path`` has no room for: LadybugDB aborts the
    whole process on some writes that find the disk full, where an error can be reported
    and the partial output removed."""
    folder = path if path.is_dir() else path.parent
    free = shutil.disk_usage(folder).free
    need = SPACE_RESERVE + 2 * file.stat().st_size
    if free < need:
        raise OSError(
            errno.ENOSPC,
            f"No space left on device: LadybugDB needs about {need / 2**20:.0f} MB to copy "
            f"{what} into {path}, {free / 2**20:.1f} MB are free",
        )


class _Writer:
    """A connection that writes the database at ``path``, opened on first use and closed,
    database and all, after each ``COPY`` (:func:`_copy`): an open database keeps what it
    read and wrote cached beside its buffer pool. The export alone, in a process of its
    own, with a 512 MB pool, peaked at 400 / 740 / 1,260 MB on 10,000 / 71,908 / 287,632
    abstracts with one connection for all tables (7.6 / 64 / 194 s), at 351 / 566 / 889 MB
    with one per table (7.6 / 64 / 202 s), and at 351 / 548 / 788 MB with one per ``COPY``
    (8.8 / 73 / 220 s)."""

    def __init__(self, path: str | Path, pool: int, pool_max: int) -> None:
        self.path = path
        self.pool = pool
        self.pool_max = pool_max
        self.grown: list[str] = []
        self.copied: dict[str, int] = defaultdict(int)
        """Rows copied into each table so far."""
        self._conn = None

    def execute(self, query: str, parameters: dict[str, Any] | None = None):
        if self._conn is None:
            self._conn = open_database(self.path, buffer_pool_size=self.pool, threads=WRITE_THREADS)
        return self._conn.execute(query, parameters=parameters or {})

    def count(self, table: str) -> int:
        """Return the rows in ``table`` (a node or a relationship table)."""
        pattern = f"(n:{table})" if table in NODE_LABELS else f"()-[n:{table}]->()"
        (n,) = self.execute(f"MATCH {pattern} RETURN count(n)").get_next()
        return n

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
            conn.database.close()

    def grow(self, what: str) -> bool:
        """Close the database and double the pool it opens with next (up to
        ``pool_max``); return whether it grew."""
        if not 0 < self.pool < self.pool_max:
            return False
        try:
            self.close()
        except RuntimeError:
            pass  # the failed checkpoint again: opening with the bigger pool recovers it
        bigger = min(2 * self.pool, self.pool_max)
        self.grown.append(
            f"graph.lbdb's write buffer pool grew from {self.pool // 2**20:,} to "
            f"{bigger // 2**20:,} MB for {what} (--ladybug-memory-mb sets where it starts)"
        )
        self.pool = bigger
        return True


def _more_than(papers: int, limit: int | None) -> bool:
    """Return whether ``papers`` is over ``limit`` (never, when it is None): the one rule
    by which the store leaves texts or evidence out."""
    return limit is not None and papers > limit


def _copy_nodes(
    conn, source: GraphSource, label: str, buckets: int, tmpdir: Path, *, left_out: set[str]
) -> int:
    props = {k: t for k, t in NODE_PROPERTIES[label].items() if k not in left_out}
    scalar = [k for k, t in props.items() if not t.endswith("[]")]
    lists = [k for k, t in props.items() if t.endswith("[]")]
    rows = CsvBuckets(tmpdir, label, scalar, memory_rows=_MEMORY_ROWS)
    n = 0
    with ExitStack() as stack:
        list_files = {}
        for key in lists:  # list properties are set after the COPY, from JSON lines
            list_files[key] = stack.enter_context(
                open(tmpdir / f"{label}.{key}.jsonl", "w", encoding="utf-8")
            )
        for _, data in source.nodes(label):
            rows.add(bucket_of(data["key"], buckets), None,
                     [_cell(data.get(k), props[k]) for k in scalar])  # fmt: skip
            for key, lf in list_files.items():
                if data.get(key):
                    lf.write(json.dumps({"k": data["key"], "v": list(data[key])}) + "\n")
            n += 1
    for _, file, n_rows in rows.files():
        _copy(conn, label, file, n_rows, columns=scalar)
        file.unlink()
    for key in lists:
        with open(tmpdir / f"{label}.{key}.jsonl", encoding="utf-8") as lf:
            for batch in batched((json.loads(line) for line in lf), _BATCH):
                conn.execute(
                    f"UNWIND $rows AS row MATCH (n:{label} {{key: row.k}}) SET n.`{key}` = row.v",
                    parameters={"rows": batch},
                )
    return n


def _copy_edges(
    conn,
    source: GraphSource,
    rtype: str,
    ends,
    n_buckets: dict[str, int],
    tmpdir: Path,
    forward_only_above: int,
    evidence: bool = True,
) -> tuple[dict[str, int], bool]:
    """Create the table of ``rtype`` (forward only when the rows of one pair of labels weigh
    more than ``forward_only_above`` bytes) and copy its relationships in (their
    ``evidence`` null unless ``evidence``); return the rows copied and whether the table
    is forward only."""
    props = list(edge_properties(rtype))
    rows = CsvBuckets(tmpdir, rtype, ["from", "to", *props], memory_rows=_MEMORY_ROWS)
    n_pair: dict[tuple[str, str], int] = defaultdict(int)
    slow: list[tuple[str, str, str, str, dict]] = []
    for u, v, _, data in source.edges(rtype, evidence_json=True):
        if not evidence:  # a copy: a networkx source yields its own dicts
            data = {k: value for k, value in data.items() if k != "evidence"}
        a, b = label_of_key(u), label_of_key(v)
        if (a, b) not in ends:
            raise ExportError(f"edge {rtype} from {a} to {b} is not in the schema")
        n_pair[(a, b)] += 1
        if not all(_SAFE_LIST_ITEM.match(p) for p in data["papers"]):
            slow.append((a, b, u, v, data))
            continue
        cells = {**data, "papers": "[" + ",".join(data["papers"]) + "]"}
        rows.add(bucket_of(u, n_buckets.get(a, 1)), (a, b),
                 [u, v, *(cells.get(k, "") for k in props)])  # fmt: skip
    weight = rows.sizes()
    forward_only = max(weight.values(), default=0) > forward_only_above
    conn.execute(rel_table_ddl(rtype, forward_only))
    direction = "forward only" if forward_only else "both directions"
    for (a, b), file, n_rows in rows.files():
        what = f"{rtype} ({a} -> {b}, {weight[(a, b)] / 2**20:.0f} MB of CSV in all, {direction})"
        _copy(conn, rtype, file, n_rows, what=what,
              extra=f", from='{a}', to='{b}'" if len(ends) > 1 else "")  # fmt: skip
        file.unlink()
    assignments = ", ".join(f"`{k}`: $props.`{k}`" for k in props)
    for a, b, u, v, data in slow:
        values = {k: data.get(k) for k in props}
        conn.execute(
            f"MATCH (a:{a} {{key: $u}}), (b:{b} {{key: $v}}) "
            f"CREATE (a)-[:{rtype} {{{assignments}}}]->(b)",
            parameters={"u": u, "v": v, "props": values},
        )
    return {f"{rtype}:{a}->{b}": n for (a, b), n in n_pair.items()}, forward_only


def _copy(
    conn: _Writer,
    table: str,
    file: Path,
    rows: int,
    *,
    columns: list[str] | None = None,
    extra: str = "",
    what: str = "",
) -> None:
    cols = "(" + ", ".join(f"`{c}`" for c in columns) + ")" if columns else ""
    options = f"header=true, quote='\"', escape='\"', parallel=false{extra}"
    query = f"COPY {table}{cols} FROM '{file.as_posix()}' ({options})"
    what = what or table
    _check_space(Path(conn.path), file, what)
    while True:
        try:
            conn.execute(query)
            break
        except RuntimeError as err:
            if "No space left on device" in str(err):
                raise OSError(errno.ENOSPC, f"LadybugDB could not write {what}: {err}") from err
            if "buffer pool is full" not in str(err) or not conn.grow(what):
                raise ExportError(  # conn.grow changed no pool
                    f"LadybugDB could not copy {what} from a "
                    f"{file.stat().st_size / 2**20:.1f} MB bucket, with a "
                    f"{conn.pool // 2**20} MB buffer pool: {err}; a bigger "
                    "--ladybug-memory-max-mb (or, for a relationship table, a smaller "
                    "--ladybug-forward-only-above-mb) may let it through"
                ) from err
            # opened again with the bigger pool: the COPY's rows are either all there (it
            # committed, only its checkpoint failed) or none (copy them again)
            held = conn.count(table) - conn.copied[table]
            if held not in (0, rows):
                raise ExportError(
                    f"LadybugDB holds {held:,} of the {rows:,} rows of a failed COPY into "
                    f"{what}; build again with a bigger --ladybug-memory-mb"
                ) from err
            query = "CHECKPOINT" if held else query
    conn.copied[table] += rows
    conn.close()  # the checkpoint is done: what the database cached goes with it

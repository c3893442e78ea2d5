"""Merges: one key folded into another, the rule that did it and the papers behind it;
written beside the canonical entities (``merges.parquet``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Merge:
    """One key folded into another: the rule that did it, its score, and the papers behind it
    (those that define the acronym, or that use the merged name; at most
    :data:`MERGE_PAPERS` of them, ``paper_count`` all of them)."""

    source: str
    target: str
    reason: str
    rule: str = ""
    score: float = 1.0
    papers: tuple[str, ...] = ()
    paper_count: int = 0
    key: str = ""  # the canonical key the source ended in (filled once resolution is done)


MERGE_PAPERS = 20
"""How many of the papers behind a merge its record lists."""

MERGES_SCHEMA_FIELDS = (
    ("source", "string"),
    ("target", "string"),
    ("key", "string"),
    ("rule", "string"),
    ("reason", "string"),
    ("score", "double"),
    ("papers", "list<string>"),
    ("paper_count", "int64"),
)
"""The columns of ``merges.parquet``: each merge with the canonical ``key`` it ended in."""


def merges_path(entities_path: str | Path) -> Path:
    """Return where the merges of the entities at ``entities_path`` are written."""
    return Path(entities_path).with_name("merges.parquet")


def apart_path(entities_path: str | Path) -> Path:
    """Return where the pairs a rule proposed but resolution kept apart are written (the
    same columns as the merges; ``reason`` says why they stayed apart)."""
    return Path(entities_path).with_name("apart.parquet")


def write_merges(merges: list[Merge], path: str | Path) -> None:
    """Write ``merges`` to ``path`` (Parquet, :data:`MERGES_SCHEMA_FIELDS`)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    kinds = {"string": pa.string(), "double": pa.float64(), "int64": pa.int64(),
             "list<string>": pa.list_(pa.string())}  # fmt: skip
    schema = pa.schema([(n, kinds[k]) for n, k in MERGES_SCHEMA_FIELDS])
    rows = [{**asdict(m), "papers": list(m.papers)} for m in merges]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, compression="zstd")


def read_merges(path: str | Path, keys: Iterable[str] | None = None) -> list[Merge]:
    """Return the merges written by :func:`write_merges` (none when there is no file),
    only those that ended in one of ``keys`` when given."""
    keys = None if keys is None else sorted(set(keys))
    if not Path(path).exists() or keys == []:
        return []
    import pyarrow.parquet as pq

    filters = None if keys is None else [("key", "in", keys)]
    rows = pq.read_table(path, filters=filters).to_pylist()
    return [Merge(**{**r, "papers": tuple(r["papers"])}) for r in rows]

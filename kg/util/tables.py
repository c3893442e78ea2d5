"""Columnar tables on disk: Parquet shards written as a build goes, read back with DuckDB.

Every stage of a build that has to see the whole corpus (resolution, merging edges,
the exports) reads these files instead of holding the corpus in memory. DuckDB runs
the queries that group or sort across shards, under a memory limit, spilling to a
temporary directory when a query needs more.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = [
    "ShardWriter",
    "write_table",
    "shard_files",
    "glob_of",
    "duckdb_connection",
    "iter_rows",
    "DUCKDB_MEMORY",
    "release_memory",
    "batched",
]

DUCKDB_MEMORY = "256MB"
"""DuckDB's memory limit in a build (``kg build --duckdb-memory``, ``KG_DUCKDB_MEMORY``
changes it); it spills past it."""


ROW_GROUP = 10_000
"""Rows per Parquet row group: what a reader of the tables decodes at once."""


def write_table(path: str | Path, rows, schema=None) -> None:
    """Write ``rows`` (dicts with the fields of the pyarrow ``schema``, or a pyarrow table)
    as one Parquet file.

    The file appears under its name only once it is complete (written beside it, then
    renamed), so a killed writer never leaves a partial file where readers look.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    table = rows if isinstance(rows, pa.Table) else pa.Table.from_pylist(rows, schema=schema)
    part = path.with_name(path.name + ".partial")
    pq.write_table(table, part, compression="zstd", row_group_size=ROW_GROUP)
    os.replace(part, path)


class ShardWriter:
    """Append rows to numbered Parquet shards of one table (``part-00000.parquet``, ...).

    Rows are buffered and written as a shard every ``rows_per_shard`` rows (and by
    :meth:`close`); numbering continues after the shards already in ``directory``.
    """

    def __init__(self, directory: str | Path, schema, *, rows_per_shard: int = 50_000) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.schema = schema
        self.rows_per_shard = rows_per_shard
        self._rows: list[dict[str, Any]] = []
        self._next = len(shard_files(self.directory))
        self.written = 0

    def add(self, row: dict[str, Any]) -> None:
        self._rows.append(row)
        if len(self._rows) >= self.rows_per_shard:
            self.flush()

    def extend(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            self.add(row)

    def flush(self) -> None:
        """Write the buffered rows as the next shard (nothing when there are none)."""
        if not self._rows:
            return
        write_table(self.directory / f"part-{self._next:05d}.parquet", self._rows, self.schema)
        self.written += len(self._rows)
        self._next += 1
        self._rows = []

    def close(self) -> None:
        self.flush()


def shard_files(directory: str | Path) -> list[Path]:
    """Return the complete shards of a table directory, in order."""
    directory = Path(directory)
    return sorted(directory.glob("part-*.parquet")) if directory.is_dir() else []


def glob_of(directory: str | Path) -> str:
    """Return the DuckDB file pattern of a table directory's shards."""
    return (Path(directory) / "part-*.parquet").as_posix()


@contextmanager
def duckdb_connection(spill_dir: str | Path | None = None, *, memory: str = DUCKDB_MEMORY):
    """Yield an in-memory DuckDB connection limited to ``memory``, spilling to ``spill_dir``."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        con.execute(f"SET memory_limit = '{memory}'")
        con.execute("SET threads = 2")
        con.execute("SET preserve_insertion_order = false")
        con.execute("SET enable_progress_bar = false")
        if spill_dir is not None:
            Path(spill_dir).mkdir(parents=True, exist_ok=True)
            con.execute("SET temp_directory = ?", [str(spill_dir)])
        yield con
    finally:
        con.close()


def iter_rows(con, query: str, params: list | None = None, *, batch: int = 10_000) -> Iterator:
    """Yield the rows of a DuckDB query as tuples, fetching ``batch`` rows at a time."""
    result = con.execute(query, params or [])
    while True:
        rows = result.fetchmany(batch)
        if not rows:
            return
        yield from rows


def release_memory() -> None:
    """Collect garbage and hand freed heap memory back to the system (glibc's
    ``malloc_trim``), so one stage's transient memory does not add to the next one's."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc: the allocator keeps what it keeps


def batched(items: Iterable, size: int) -> Iterator[list]:
    """Yield lists of ``size`` items (the last may be shorter) from a stream.

    Examples
    --------
    >>> list(batched(range(5), 2))
    [[0, 1], [2, 3], [4]]
    """
    batch: list = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch

"""Resolution of a few papers held in memory (tests, notebooks): the same rules as a build's
:func:`~kg.resolve.resolver.resolve_table`, on a temporary table."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kg.resolve.acronyms import LongForms
from kg.resolve.curation import Curation
from kg.resolve.local import LocalEntity, local_rows, locals_schema
from kg.resolve.resolver import Entity, Resolution, resolve_table

__all__ = ["Resolver"]


class Resolver:
    """Collect the local entities of papers in memory, then resolve them (small inputs).

    Call :meth:`add` once per paper, then :meth:`resolve`. Builds stream the same
    resolution from a Parquet table with :func:`resolve_table` instead.
    """

    def __init__(
        self,
        *,
        fuzzy_threshold: float = 95.0,
        fuzzy_min_length: int = 20,
        long_forms: LongForms | None = None,
    ) -> None:
        self.fuzzy_threshold = fuzzy_threshold
        self.fuzzy_min_length = fuzzy_min_length
        self.long_forms = long_forms
        self._rows: list[dict] = []
        self._papers = 0

    def add(self, entities: list[LocalEntity], paper: str | None = None) -> None:
        """Record one paper's local entities (``paper`` is its id; a counter by default)."""
        self._rows += local_rows(paper if paper is not None else f"#{self._papers}", entities)
        self._papers += 1

    def resolve(self, curation: Curation | None = None) -> Resolution:
        """Return the canonical entities with the merges made (held in a temporary table),
        and ``curation`` applied."""
        import pyarrow as pa

        from kg.util.tables import duckdb_connection

        with duckdb_connection() as con:
            rows = pa.Table.from_pylist(self._rows, schema=locals_schema())
            con.register("kg_rows", rows)
            con.execute("CREATE TEMP TABLE kg_locals AS SELECT * FROM kg_rows")
            tmp = Path(tempfile.mkdtemp(prefix="kg-resolve-"))
            resolution = resolve_table(
                con,
                "kg_locals",
                tmp / "entities.parquet",
                fuzzy_threshold=self.fuzzy_threshold,
                fuzzy_min_length=self.fuzzy_min_length,
                curation=curation,
                long_forms=self.long_forms,
            )
        entities = resolution.entities  # read once, then drop the temporary file
        shutil.rmtree(tmp, ignore_errors=True)
        return _MemoryResolution(resolution.canonical, resolution.merges, None,
                                 resolution.curated, resolution.apart, held=entities)  # fmt: skip


@dataclass
class _MemoryResolution(Resolution):
    held: dict[str, Entity] = field(default_factory=dict)

    def iter_entities(self, *, batch: int = 10_000) -> Iterator[Entity]:
        yield from (self.held[k] for k in sorted(self.held))

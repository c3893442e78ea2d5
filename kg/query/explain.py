"""Why an entity of a build is what it is: its names, support and the merges behind it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import KgError
from kg.resolve.merges import Merge, read_merges

__all__ = ["Explanation", "explain"]


@dataclass
class Explanation:
    """One canonical entity and the merges that made it (rule, score, papers behind each)."""

    entity: dict[str, Any]
    merges: list[Merge] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.entity,
            "merges": [{**asdict(m), "papers": list(m.papers)} for m in self.merges],
        }


def explain(build: str | Path, what: str, *, limit: int = 10) -> list[Explanation]:
    """Return the entities of the build in ``build`` that ``what`` names: the one whose key
    it is, else those with it as name or alias (case-insensitive), best-supported first.

    Reads ``tables/entities.parquet`` and ``tables/merges.parquet``; writes nothing.
    """
    from kg.graph.store import ENTITIES, TABLES
    from kg.resolve.merges import merges_path
    from kg.util.tables import duckdb_connection

    path = Path(build) / TABLES / ENTITIES
    if not path.is_file():
        raise KgError(
            f"{build} has no {TABLES}/{ENTITIES}: give the folder of a kg build "
            "(kg build ... -o FOLDER)"
        )
    source = "read_parquet(?)"
    with duckdb_connection() as con:
        cur = con.execute(
            f"SELECT * FROM {source} WHERE key = ? OR lower(name) = lower(?) OR "
            "list_contains(list_transform(aliases, lambda a: lower(a)), lower(?)) "
            "ORDER BY key <> ?, support DESC, key LIMIT ?",
            [str(path), what, what, what, what, limit],
        )
        columns = [d[0] for d in cur.description]
        rows = [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]
    if rows and rows[0]["key"] == what:
        rows = rows[:1]
    behind: dict[str, list[Merge]] = {}
    for m in read_merges(merges_path(path), keys=[r["key"] for r in rows]):
        behind.setdefault(m.key, []).append(m)
    return [Explanation(r, behind.get(r["key"], [])) for r in rows]

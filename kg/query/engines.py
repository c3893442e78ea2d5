"""Run Cypher on either store: Neo4j (through the driver) or a build's embedded LadybugDB."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

from kg.errors import KgError

__all__ = ["Engine", "LadybugEngine", "Neo4jEngine", "QueryResult", "run_saved"]


@dataclass(frozen=True)
class QueryResult:
    """Column names and rows (tuples of plain values) of a query."""

    columns: list[str]
    rows: list[tuple[Any, ...]]

    def records(self) -> list[dict[str, Any]]:
        """Return the rows as dictionaries keyed by column."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


class Engine(Protocol):
    """Something that runs a Cypher query with parameters."""

    name: str

    def run(self, query: str, params: dict[str, Any] | None = None) -> QueryResult: ...


class LadybugEngine:
    """The embedded LadybugDB store of a build (``OUTDIR/graph.lbdb``), read-only."""

    name = "ladybug"

    def __init__(self, path: str | Path) -> None:
        from kg.exporters.ladybug import open_database

        self.path = Path(path)
        self._conn = open_database(self.path, read_only=True)

    def run(self, query: str, params: dict[str, Any] | None = None) -> QueryResult:
        """Run ``query``; raise ``KgError`` with LadybugDB's message when it fails."""
        try:
            result = self._conn.execute(query, parameters=params or {})
        except RuntimeError as exc:
            raise KgError(f"LadybugDB ({self.path}): {exc}") from exc
        columns = result.get_column_names()
        rows = []
        while result.has_next():
            rows.append(tuple(_plain(v) for v in result.get_next()))
        return QueryResult(columns, rows)


def _plain(value: Any) -> Any:
    """LadybugDB sums integers as 128-bit decimals; give them back as int (or float)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


class Neo4jEngine:
    """A Neo4j database reached through a ``neo4j.Driver``; queries run as reads."""

    name = "neo4j"

    def __init__(self, driver, database: str | None = None) -> None:
        self.driver = driver
        self.database = database

    def run(self, query: str, params: dict[str, Any] | None = None) -> QueryResult:
        """Run ``query`` in a managed read transaction (retried on transient errors)."""
        from neo4j.exceptions import Neo4jError

        def work(tx):
            result = tx.run(query, params or {})
            return list(result.keys()), [tuple(record.values()) for record in result]

        try:
            with self.driver.session(database=self.database) as session:
                columns, rows = session.execute_read(work)
        except Neo4jError as exc:
            raise KgError(f"Neo4j: {exc.message or exc}") from exc
        return QueryResult(columns, rows)


def run_saved(engine: Engine, name: str, params: dict[str, Any] | None = None) -> QueryResult:
    """Run the saved query ``name`` on ``engine`` with ``params`` over its defaults."""
    from kg.query.saved import get_query

    query = get_query(name)
    return engine.run(query.text_for(engine.name), query.bind(params or {}))

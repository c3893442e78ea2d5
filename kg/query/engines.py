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
        """Run ``query``; raise ``KgError`` with LadybugDB's message when it fails, and
        :class:`~kg.query.guard.QueryRefused` for a query that writes or reaches out
        (:func:`~kg.query.guard.check_cypher`)."""
        from kg.query.guard import check_cypher

        check_cypher(query)
        try:
            result = self._conn.execute(query, parameters=params or {})
        except RuntimeError as exc:
            hint = ""
            if "storage type 'fwd'" in str(exc) or "get bwd data" in str(exc):
                from kg.exporters.ladybug import forward_only_tables

                tables = ", ".join(forward_only_tables(self._conn))
                hint = (
                    f" This build is big enough that its store keeps {tables}"
                    " forward only: give the pattern a direction, e.g. (p:Paper)-[r]->(e),"
                    " or ask Neo4j (`kg load neo4j`, then `kg query --neo4j`)."
                )
            if "Cannot find property board_" in str(exc):
                hint = (
                    " The store was written by a kg that did not place results on"
                    " leaderboards (the board_* properties of Result nodes): build it again."
                )
            raise KgError(f"LadybugDB ({self.path}): {exc}{hint}") from exc
        columns = result.get_column_names()
        rows = []
        while result.has_next():
            rows.append(tuple(_plain(v) for v in result.get_next()))
        return QueryResult(columns, rows)


def _entity(kind: str, name: str, props: dict[str, Any]) -> dict[str, Any]:
    """A node or relationship as plain data, the same from both engines: its label (or
    type) and its properties, without engine-internal ids, nulls or empty lists."""
    out: dict[str, Any] = {kind: name}
    out.update(
        (k, _plain(v))
        for k, v in sorted(props.items())
        if not k.startswith("_") and v is not None and v != []
    )
    return out


def _plain(value: Any) -> Any:
    """A LadybugDB value as plain data: integers summed as 128-bit decimals become int,
    nodes and relationships (dicts with ``_LABEL``) become :func:`_entity` dicts."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict) and "_LABEL" in value:
        kind = "type" if "_SRC" in value else "label"
        return _entity(kind, value["_LABEL"], value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _plain_neo4j(value: Any) -> Any:
    """A Neo4j driver value as plain data, shaped like :func:`_plain`'s."""
    from neo4j.graph import Node, Relationship

    if isinstance(value, Node):
        return _entity("label", sorted(value.labels)[0], dict(value))
    if isinstance(value, Relationship):
        return _entity("type", value.type, dict(value))
    if isinstance(value, list):
        return [_plain_neo4j(v) for v in value]
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
            rows = [tuple(_plain_neo4j(v) for v in record.values()) for record in result]
            return list(result.keys()), rows

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

"""Where a Neo4j server is and how kg loads it: settings with no import of the driver, so
that the CLI can show its defaults without loading it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_BATCH", "DEFAULT_PARALLEL", "DEFAULT_URI", "Neo4jSettings"]

DEFAULT_URI = "bolt://localhost:7687"
DEFAULT_BATCH = 2000
DEFAULT_PARALLEL = 2


@dataclass(frozen=True)
class Neo4jSettings:
    """Where and how to reach a Neo4j server (the CLI fills it from its flags and the
    ``NEO4J_*`` environment variables)."""

    uri: str = DEFAULT_URI
    username: str = "neo4j"
    password: str | None = None
    database: str | None = None

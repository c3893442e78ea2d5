"""Where a Neo4j server is and how kg loads it: settings with no import of the driver, so
that the CLI can show its defaults without loading it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_BATCH", "DEFAULT_PARALLEL", "DEFAULT_URI", "Neo4jSettings"]

DEFAULT_URI = "bolt://localhost:7687"
DEFAULT_BATCH = 2000
DEFAULT_PARALLEL = 2


@dataclass(frozen=True)
class Neo4jSettings:
    """Where and how to reach a Neo4j server."""

    uri: str = DEFAULT_URI
    username: str = "neo4j"
    password: str | None = None
    database: str | None = None

    @classmethod
    def from_env(cls, **overrides: Any) -> Neo4jSettings:
        """Settings from ``NEO4J_URI``, ``NEO4J_USERNAME``, ``NEO4J_PASSWORD``,
        ``NEO4J_DATABASE``; keyword arguments that are not ``None`` win."""
        values = {
            "uri": os.environ.get("NEO4J_URI", DEFAULT_URI),
            "username": os.environ.get("NEO4J_USERNAME", "neo4j"),
            "password": os.environ.get("NEO4J_PASSWORD"),
            "database": os.environ.get("NEO4J_DATABASE") or None,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

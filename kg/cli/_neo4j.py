"""Where the Neo4j server is, as the commands that reach it read it: their flags, else the
``NEO4J_*`` environment variables, else the defaults."""

from __future__ import annotations

import os

from kg.exporters.neo4j_settings import DEFAULT_URI, Neo4jSettings

__all__ = ["neo4j_settings"]


def neo4j_settings(**flags: str | None) -> Neo4jSettings:
    """Settings from ``NEO4J_URI``, ``NEO4J_USERNAME``, ``NEO4J_PASSWORD`` and
    ``NEO4J_DATABASE``; the flags given (``uri``, ``username``, ``password``,
    ``database``; ``None`` when not given) win."""
    values = {
        "uri": os.environ.get("NEO4J_URI") or DEFAULT_URI,
        "username": os.environ.get("NEO4J_USERNAME") or "neo4j",
        "password": os.environ.get("NEO4J_PASSWORD"),
        "database": os.environ.get("NEO4J_DATABASE") or None,
    }
    values.update({k: v for k, v in flags.items() if v is not None})
    return Neo4jSettings(**values)

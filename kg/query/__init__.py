"""Saved Cypher queries and the engines that run them (Neo4j, embedded LadybugDB)."""

from kg.query.engines import Engine, LadybugEngine, Neo4jEngine, QueryResult, run_saved
from kg.query.lookup import (
    UnknownName,
    close_names,
    explain_empty,
    resolve_papers,
    unknown_names,
)
from kg.query.saved import ENGINES, Param, SavedQuery, get_query, list_queries

__all__ = [
    "ENGINES",
    "Engine",
    "LadybugEngine",
    "Neo4jEngine",
    "Param",
    "QueryResult",
    "SavedQuery",
    "UnknownName",
    "close_names",
    "get_query",
    "list_queries",
    "run_saved",
    "unknown_names",
    "explain_empty",
    "resolve_papers",
]

"""The fixed vocabulary of kg's graph, shared by every stage: entity and relation types."""

from __future__ import annotations

__all__ = ["ENTITY_TYPES", "RELATION_TYPES", "RELATION_ENDS"]

ENTITY_TYPES = ("Method", "Task", "Dataset", "Metric")
"""Entity types of the annotation guidelines."""

RELATION_TYPES = (
    "USES",
    "APPLIED_TO",
    "EVALUATED_ON",
    "OUTPERFORMS",
    "COMPARED_WITH",
    "BENCHMARK_FOR",
    "MEASURED_BY",
)
"""Relation types between entities."""

RELATION_ENDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "USES": (frozenset({"Method"}), frozenset({"Method"})),
    "APPLIED_TO": (frozenset({"Method"}), frozenset({"Task"})),
    "EVALUATED_ON": (frozenset({"Method"}), frozenset({"Dataset"})),
    "OUTPERFORMS": (frozenset({"Method"}), frozenset({"Method"})),
    "COMPARED_WITH": (frozenset({"Method"}), frozenset({"Method"})),
    "BENCHMARK_FOR": (frozenset({"Dataset"}), frozenset({"Task"})),
    "MEASURED_BY": (frozenset({"Task", "Dataset"}), frozenset({"Metric"})),
}
"""Head and tail types each relation type joins."""

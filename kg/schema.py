"""The fixed vocabulary of kg's graph, shared by every stage: entity types, node labels,
relation types and the ends each joins."""

from __future__ import annotations

__all__ = [
    "EDGE_ENDS",
    "ENTITY_TYPES",
    "NODE_LABELS",
    "RELATION_ENDS",
    "RELATION_FLOOR",
    "RELATION_TYPES",
]

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

NODE_LABELS = ("Paper", *ENTITY_TYPES, "Result")
"""Every node label of the graph."""

EDGE_ENDS: dict[str, tuple[tuple[str, str], ...]] = {
    "PROPOSES": tuple(("Paper", label) for label in ENTITY_TYPES),
    "MENTIONS": tuple(("Paper", label) for label in ENTITY_TYPES),
    "USES": (("Method", "Method"),),
    "APPLIED_TO": (("Method", "Task"),),
    "EVALUATED_ON": (("Method", "Dataset"),),
    "OUTPERFORMS": (("Method", "Method"),),
    "COMPARED_WITH": (("Method", "Method"),),
    "BENCHMARK_FOR": (("Dataset", "Task"),),
    "MEASURED_BY": (("Task", "Metric"), ("Dataset", "Metric"), ("Result", "Metric")),
    "REPORTS": (("Paper", "Result"),),
    "FOR_METHOD": (("Result", "Method"),),
    "FOR_TASK": (("Result", "Task"),),
    "ON_DATASET": (("Result", "Dataset"),),
}
"""Every relationship type of the graph and the (from label, to label) pairs it may join."""

RELATION_ENDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    rtype: (
        frozenset(a for a, b in EDGE_ENDS[rtype] if a in ENTITY_TYPES and b in ENTITY_TYPES),
        frozenset(b for a, b in EDGE_ENDS[rtype] if a in ENTITY_TYPES and b in ENTITY_TYPES),
    )
    for rtype in RELATION_TYPES
}
"""Head and tail types each relation between entities joins (:data:`EDGE_ENDS` between
entity labels: what extraction finds)."""

RELATION_FLOOR = 0.9
"""Relations less confident than this are kept in the graph but not shown by default (the
saved queries' ``$min_confidence``, ``kg viz``, ``kg analyze``, ``kg explain``). An edge's
confidence is calibrated on edges judged by hand (:class:`kg.graph.assemble.EdgeCalibration`),
so the edges at or above it are expected to be right at least 9 times in 10."""

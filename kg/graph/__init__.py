"""The knowledge graph as a networkx MultiDiGraph, built from paper records."""

from kg.graph.assemble import add_paper, new_graph
from kg.graph.model import EDGE_ENDS, ENTITY_LABELS, NODE_LABELS, RELATION_TYPES

__all__ = [
    "EDGE_ENDS",
    "ENTITY_LABELS",
    "NODE_LABELS",
    "RELATION_TYPES",
    "add_paper",
    "new_graph",
]

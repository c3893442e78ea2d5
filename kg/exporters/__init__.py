"""Exporters: write the graph and the per-paper records in each output format."""

GRAPH_JSON_MAX = 2_000_000
"""Nodes plus relationships above which a build does not write ``graph.json``."""

__all__ = ["GRAPH_JSON_MAX"]

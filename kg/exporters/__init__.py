"""Exporters: write the graph and the per-paper records in each output format."""

EXPORTERS = ("jsonl", "json", "ttl", "oxigraph", "ladybug", "report")

__all__ = ["EXPORTERS"]

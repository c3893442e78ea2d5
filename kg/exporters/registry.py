"""The graph's exporters by name: each writes one format of a build's graph into the
output directory and says what it wrote and what it left out (its own limits).

A build loops over :data:`GRAPH_EXPORTERS` in order; ``extractions.jsonl`` and
``report.md`` are written by the build itself (they need the papers' records and the
build's summary, not the graph alone).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kg.exporters import EXPORTERS, GRAPH_JSON_MAX
from kg.graph.store import GraphSource

__all__ = ["GRAPH_EXPORTERS", "ExportOptions", "ExportResult", "Exporter"]


@dataclass(frozen=True)
class ExportOptions:
    """What to export and what the exporters may be told (the CLI fills it from flags)."""

    outputs: tuple[str, ...] = EXPORTERS
    """The outputs a build writes, by exporter name (:data:`kg.exporters.EXPORTERS`)."""
    graph_json_max: int = GRAPH_JSON_MAX
    """Write graph.json only when the graph has at most this many nodes plus relationships."""
    ladybug_memory_mb: int | None = None
    """The LadybugDB store's write buffer pool in MB, as it starts (0: unbounded)."""
    ladybug_memory_max_mb: int | None = None
    """What that pool may grow to (default a quarter of the machine's memory)."""
    ladybug_text_max_papers: int | None = None
    """A store of more papers leaves their abstracts out."""
    ladybug_evidence_max_papers: int | None = None
    """A store of more papers leaves its relationships' evidence out (default: never)."""
    ladybug_forward_only_above_mb: int | None = None
    """A relationship table heavier than this is stored forward only (default: an eighth
    of the pool)."""


@dataclass
class ExportResult:
    """What one exporter wrote (file names in the output directory) and what it says."""

    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Exporter:
    """An exporter: the stage it is to a user and the function that writes it."""

    name: str
    stage: str
    write: Callable[[GraphSource, Path, ExportOptions], ExportResult]
    reads: tuple[str, ...] = ()
    """Exporters whose output this one reads when the same build wrote it (it runs after
    them; without it, it works from the graph alone)."""


def _json(source: GraphSource, out_dir: Path, options: ExportOptions) -> ExportResult:
    from kg.exporters.jsonio import write_graph_json

    size = sum(source.label_counts().values()) + sum(source.type_counts().values())
    if size > options.graph_json_max:
        return ExportResult(notes=[
            f"graph.json not written: the graph has {size:,} nodes and relationships, more "
            f"than --graph-json-max {options.graph_json_max:,}; kg.load_graph reads the "
            "tables instead"
        ])  # fmt: skip
    write_graph_json(source, out_dir / "graph.json")
    return ExportResult(["graph.json"])


def _turtle(source: GraphSource, out_dir: Path, options: ExportOptions) -> ExportResult:
    from kg.exporters import rdf

    rdf.write_turtle(source, out_dir / "graph.ttl")
    return ExportResult(["graph.ttl"])


def _oxigraph(source: GraphSource, out_dir: Path, options: ExportOptions) -> ExportResult:
    from kg.exporters import oxigraph

    turtle = out_dir / "graph.ttl"  # read by Oxigraph's own parser when written before
    oxigraph.write_store(
        source, out_dir / oxigraph.STORE_NAME, turtle=turtle if turtle.is_file() else None
    )
    return ExportResult([oxigraph.STORE_NAME])


def _ladybug(source: GraphSource, out_dir: Path, options: ExportOptions) -> ExportResult:
    from kg.exporters import ladybug

    def in_bytes(mb: int | None) -> int | None:
        return None if mb is None else mb * 2**20

    written = ladybug.write_database(
        source,
        out_dir / ladybug.DB_NAME,
        pool=in_bytes(options.ladybug_memory_mb),
        pool_max=in_bytes(options.ladybug_memory_max_mb),
        forward_only_above=in_bytes(options.ladybug_forward_only_above_mb),
        text_max_papers=options.ladybug_text_max_papers,
        evidence_max_papers=options.ladybug_evidence_max_papers,
    )
    return ExportResult([ladybug.DB_NAME], written.notes)


GRAPH_EXPORTERS = {
    e.name: e
    for e in (
        Exporter("json", "writing graph.json", _json),
        Exporter("ttl", "writing graph.ttl", _turtle),
        Exporter("oxigraph", "writing the Oxigraph store graph.oxigraph", _oxigraph, ("ttl",)),
        Exporter("ladybug", "writing the LadybugDB store graph.lbdb", _ladybug),
    )
}
"""The graph exporters in the order a build runs them: each after those it ``reads``."""

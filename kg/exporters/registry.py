"""A build's outputs by name: each exporter writes one into the output directory from
what the build made (:class:`Built`: the graph's tables, the papers' records, the
summary) and says what it wrote and what it left out (its own limits).

A build runs :data:`EXPORTERS` in order, those asked for; each runs after the outputs it
``reads``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.exporters import GRAPH_JSON_MAX
from kg.exporters.ladybug_options import LadybugOptions

if TYPE_CHECKING:  # the CLI reads the names without loading the graph's libraries
    from kg.graph.store import GraphSource

__all__ = ["EXPORTERS", "Built", "ExportOptions", "ExportResult", "Exporter", "OUTPUTS"]

RECORDS = ".records.jsonl"
"""Where the graph stage writes the papers' records in the directory being built (the
``jsonl`` output keeps them as ``extractions.jsonl``; a build removes them otherwise)."""


@dataclass(frozen=True)
class ExportOptions:
    """What to export and what the exporters may be told (the CLI fills it from flags)."""

    outputs: tuple[str, ...] = field(default_factory=lambda: EXPORTERS)
    """The outputs a build writes, by exporter name (:data:`OUTPUTS`)."""
    graph_json_max: int = GRAPH_JSON_MAX
    """Write graph.json only when the graph has at most this many nodes plus relationships."""
    ladybug: LadybugOptions = field(default_factory=LadybugOptions)
    """The LadybugDB store's limits (its exporter's own options)."""


@dataclass
class ExportResult:
    """What one exporter wrote (file names in the output directory) and what it says."""

    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Built:
    """What a build made that its exporters write from."""

    source: GraphSource
    """The graph, streamed from its tables."""
    records: Path
    """The papers' records (one JSON object per line) as the graph stage wrote them."""
    summary: Any = None
    """The build's summary so far (:class:`kg.orchestrate.summary.BuildSummary`)."""
    resolution: Any = None
    """How names were resolved across papers (:class:`kg.resolve.Resolution`)."""


@dataclass(frozen=True)
class Exporter:
    """An exporter: the stage it is to a user and the function that writes it."""

    name: str
    stage: str
    write: Callable[[Built, Path, ExportOptions], ExportResult]
    reads: tuple[str, ...] = ()
    """Exporters whose output this one reads when the same build wrote it (it runs after
    them; without it, it works from the graph alone)."""


def _jsonl(built: Built, out_dir: Path, options: ExportOptions) -> ExportResult:
    built.records.replace(out_dir / "extractions.jsonl")  # the same directory: a rename
    return ExportResult(["extractions.jsonl"])


def _json(built: Built, out_dir: Path, options: ExportOptions) -> ExportResult:
    from kg.exporters.jsonio import write_graph_json

    source = built.source
    size = sum(source.label_counts().values()) + sum(source.type_counts().values())
    if size > options.graph_json_max:
        return ExportResult(notes=[
            f"graph.json not written: the graph has {size:,} nodes and relationships, more "
            f"than --graph-json-max {options.graph_json_max:,}; kg.load_graph reads the "
            "tables instead"
        ])  # fmt: skip
    write_graph_json(source, out_dir / "graph.json")
    return ExportResult(["graph.json"])


def _turtle(built: Built, out_dir: Path, options: ExportOptions) -> ExportResult:
    from kg.exporters import rdf

    rdf.write_turtle(built.source, out_dir / "graph.ttl")
    return ExportResult(["graph.ttl"])


def _oxigraph(built: Built, out_dir: Path, options: ExportOptions) -> ExportResult:
    from kg.exporters import oxigraph

    turtle = out_dir / "graph.ttl"  # read by Oxigraph's own parser when written before
    oxigraph.write_store(
        built.source, out_dir / oxigraph.STORE_NAME, turtle=turtle if turtle.is_file() else None
    )
    return ExportResult([oxigraph.STORE_NAME])


def _ladybug(built: Built, out_dir: Path, options: ExportOptions) -> ExportResult:
    from kg.exporters import ladybug

    written = ladybug.write_database(
        built.source, out_dir / ladybug.DB_NAME, **options.ladybug.write_args()
    )
    return ExportResult([ladybug.DB_NAME], written.notes)


def _report(built: Built, out_dir: Path, options: ExportOptions) -> ExportResult:
    from kg.exporters import report

    report.write_report(built.source, built.summary, built.resolution, out_dir / "report.md")
    return ExportResult(["report.md"])


OUTPUTS = {
    e.name: e
    for e in (
        Exporter("jsonl", "writing extractions.jsonl", _jsonl),
        Exporter("json", "writing graph.json", _json),
        Exporter("ttl", "writing graph.ttl", _turtle),
        Exporter("oxigraph", "writing the Oxigraph store graph.oxigraph", _oxigraph, ("ttl",)),
        Exporter("ladybug", "writing the LadybugDB store graph.lbdb", _ladybug),
        Exporter(  # the summary it shows holds the other exporters' notes
            "report", "writing report.md", _report, ("jsonl", "json", "ttl", "oxigraph", "ladybug")
        ),
    )
}
"""Every output in the order a build runs them: each after those it ``reads``."""
EXPORTERS = tuple(OUTPUTS)
"""The outputs' names, in order."""

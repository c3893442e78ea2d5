"""Building a graph: abstracts in, every export out (ingest -> nlp -> resolve -> graph ->
exporters), with shards, resume and ``--add-to`` (:mod:`kg.orchestrate.run`), the output
directory's rules (:mod:`kg.orchestrate.outdir`) and ``kg update``
(:mod:`kg.orchestrate.update`)."""

from kg.exporters.registry import ExportOptions
from kg.orchestrate.curation import curated_away
from kg.orchestrate.options import ExtractOptions, Hooks, ResolveOptions, Target
from kg.orchestrate.run import build
from kg.orchestrate.shards import LOCALS, PAPERS
from kg.orchestrate.summary import BuildSummary

__all__ = [
    "LOCALS",
    "PAPERS",
    "BuildSummary",
    "ExportOptions",
    "ExtractOptions",
    "Hooks",
    "ResolveOptions",
    "Target",
    "build",
    "curated_away",
]

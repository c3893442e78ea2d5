"""Building a graph: abstracts in, every export out (ingest -> nlp -> resolve -> graph ->
exporters), with shards, resume and ``--add-to`` (:mod:`kg.build.run`), the output
directory's rules (:mod:`kg.build.outdir`) and ``kg update`` (:mod:`kg.build.update`)."""

from kg.build.curation import curated_away
from kg.build.run import build
from kg.build.shards import LOCALS, PAPERS
from kg.build.summary import BuildSummary

__all__ = ["LOCALS", "PAPERS", "BuildSummary", "build", "curated_away"]

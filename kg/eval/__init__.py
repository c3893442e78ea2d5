"""Scoring of extractions against paper-level gold (``../shared/gold/README.md``)."""

from kg.eval.scoring import Score, evaluate, evaluate_files, format_table

__all__ = ["Score", "evaluate", "evaluate_files", "format_table"]

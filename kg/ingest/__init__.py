"""Readers that stream paper records out of text, JSON Lines, JSON and arXiv metadata files."""

from kg.ingest.readers import read, read_path
from kg.ingest.record import FieldMap, Record, Skipped, paper_id_for

__all__ = ["FieldMap", "Record", "Skipped", "paper_id_for", "read", "read_path"]

"""Readers that stream paper records out of text, JSON Lines, JSON and arXiv metadata files."""

from kg.ingest.readers import read, read_path
from kg.ingest.record import FieldMap, Note, Record, Skipped, paper_id_for

__all__ = ["FieldMap", "Note", "Record", "Skipped", "paper_id_for", "read", "read_path"]

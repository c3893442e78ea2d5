"""What a build did, as the CLI and ``kg update`` report it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kg.ingest import Skipped

__all__ = ["BuildSummary"]


@dataclass
class BuildSummary:
    """What a build read, skipped, found and wrote, and how long each stage took."""

    out_dir: Path
    pipeline: str = "fast"
    """The pipeline that extracted: ``fast``, ``accurate`` or ``custom`` (a config)."""
    papers: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    entity_counts: dict[str, int] = field(default_factory=dict)
    relation_counts: dict[str, int] = field(default_factory=dict)
    results: int = 0
    merges: int = 0
    nodes: int = 0
    edges: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    resumed: int = 0
    """Papers an interrupted build had extracted, taken over by ``resume``."""
    unchanged: int = 0
    """Input papers already in the build added to, with the same title and abstract."""
    replaced: int = 0
    """Papers of the build added to whose abstract changed: extracted again, replaced."""
    added_ids: list[str] = field(default_factory=list)
    """With ``add_to``: ids of the papers the build added to did not hold."""
    replaced_ids: list[str] = field(default_factory=list)
    """With ``add_to``: ids of the papers counted in ``replaced``."""
    notes: list[str] = field(default_factory=list)
    metadata_notes: int = 0
    """Records kept whose metadata (a year, a date) could not be read and was left out."""

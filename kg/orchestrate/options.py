"""What a build is asked to do, as typed objects the CLI fills from its flags: what
extracts the papers, how names are resolved, where the build goes, and the hooks that show
its progress. What to export is :class:`kg.exporters.registry.ExportOptions`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from kg.ingest import FieldMap, Note, Skipped
from kg.ingest.readers import InputFiles
from kg.ingest.record import DEFAULT_MAX_CHARS
from kg.util.tables import DUCKDB_MEMORY

__all__ = ["ExtractOptions", "Hooks", "ResolveOptions", "Target"]

T = TypeVar("T")

PAPERS_PER_SHARD = 1000
"""Papers per extraction shard: what a killed build loses at most, and what --resume skips
(``kg build --papers-per-shard``, ``KG_PAPERS_PER_SHARD`` changes it)."""


@dataclass(frozen=True)
class ExtractOptions:
    """What extracts the papers, and how the work is spread."""

    pipeline: str | None = None
    """The shipped pipeline (``fast`` or ``accurate``); None: fast, or with ``add_to`` the
    build's own."""
    config: str | Path | None = None
    """A spaCy config of one's own, replacing the shipped pipeline's."""
    base: str | None = None
    """The base spaCy pipeline (None: the one installed, see ``kg.nlp.pipeline``)."""
    min_confidence: float = 0.0
    """Relations less likely than this to be right (calibrated) are left out."""
    fields: FieldMap | None = None
    """Which JSON keys hold a record's fields."""
    max_chars: int = DEFAULT_MAX_CHARS
    """Abstracts longer than this are skipped."""
    n_process: int = 1
    """Worker processes of the NLP stage."""
    batch_size: int = 64
    """Abstracts per ``nlp.pipe`` batch."""
    scheduler: str | None = None
    """A Dask cluster (``tcp://host:8786``) or ``local:N`` workers instead of the pool."""
    papers_per_shard: int = PAPERS_PER_SHARD
    """Papers per extraction shard (what ``resume`` takes over)."""


@dataclass(frozen=True)
class ResolveOptions:
    """How names are resolved across papers."""

    curation: str | Path | None = None
    """A curation file (:mod:`kg.resolve.curation`), applied after resolution; the build
    remembers it, so ``add_to`` applies it again unless given another."""
    duckdb_memory: str = DUCKDB_MEMORY
    """DuckDB's memory limit while it resolves names and merges relationships (it spills
    past it)."""


@dataclass(frozen=True)
class Target:
    """Where the build is written, and what it does with a build already there."""

    path: str | Path
    force: bool = False
    """Replace a directory holding files kg did not write (an input in it is refused)."""
    add_to: bool = False
    """Add the inputs to the build there: only new or changed papers are extracted."""
    resume: bool = False
    """Take over the extraction shards a killed build into ``path`` left."""
    update: dict | None = None
    """What ``kg update`` fetched, added to the manifest's list of updates."""


def _identity(items: Iterable[T], **_: Any) -> Iterable[T]:
    return items


@dataclass(frozen=True)
class Hooks:
    """What a build tells its caller as it runs (a CLI shows it; a library call needs none)."""

    progress: Callable[..., Iterable] = _identity
    """``progress(iterable, description=..., total=...)`` may wrap the record stream."""
    count_first: bool = False
    """Read the inputs once before extraction to give ``progress`` its total."""
    on_skip: Callable[[Skipped], None] | None = None
    """Told of each record skipped, and why."""
    on_note: Callable[[Note], None] | None = None
    """Told of what is said of a record that was kept (a metadata value left out)."""
    on_inputs: Callable[[InputFiles], None] | None = None
    """Told which files are read and which directory entries are ignored."""
    on_stage: Callable[[str], None] | None = None
    """Told the name of each stage as it starts."""

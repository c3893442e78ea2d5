"""Keep a build current: fetch what a source has since the last update, add the new and
changed papers to the build (``kg build --add-to``) and, if asked, load them into Neo4j.

Fetched files are kept beside the build, in ``OUT.updates/`` (the build directory holds
only what ``kg build`` writes); the build's manifest lists every update: the source, the
dates, the file, and the ids it added and replaced. An update that finds no new or changed
paper leaves the build as it was.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import BuildError
from kg.exporters.registry import ExportOptions
from kg.graph.store import TABLES
from kg.ingest import Record, read
from kg.ingest.sources import FetchSummary, PoliteClient, Source, fetch_to_file
from kg.ingest.sources.harvest import state_path
from kg.orchestrate.options import ExtractOptions, Hooks, Target
from kg.orchestrate.outdir import read_manifest
from kg.orchestrate.run import build
from kg.orchestrate.shards import paper_digests, record_digest
from kg.orchestrate.summary import BuildSummary

__all__ = ["UpdateSummary", "update", "updates_dir", "last_update"]


@dataclass
class UpdateSummary:
    """What an update fetched, added, replaced and loaded."""

    out: Path
    date_from: str
    date_until: str
    fetch_file: Path
    fetched: FetchSummary
    new: list[str] = field(default_factory=list)
    """Ids of papers the build did not hold, now added."""
    replaced: list[str] = field(default_factory=list)
    """Ids of papers whose title or abstract changed, extracted again."""
    unchanged: int = 0
    build: BuildSummary | None = None
    """``None`` when nothing was new: the build was left as it was."""
    neo4j: Any = None
    """The :class:`kg.exporters.neo4j.LoadSummary` of the load, when one was asked for."""
    boards_refreshed: int = 0
    """Results of other papers whose leaderboard properties the load set anew in Neo4j
    (the added papers changed their boards)."""


def updates_dir(out: Path) -> Path:
    """Where the fetched files of ``out``'s updates are kept."""
    return out.parent / f"{out.name}.updates"


def _feed(source: Source) -> dict[str, Any]:
    """What a source fetches, whatever the dates."""
    return {k: v for k, v in source.describe().items() if k not in ("from", "until")}


def last_update(out: Path, source: Source) -> str | None:
    """The last date an earlier update of ``out`` fetched from the same feed, if any."""
    manifest = read_manifest(out) or {}
    dates = [u["until"] for u in manifest.get("updates") or [] if u.get("feed") == _feed(source)]
    return max(dates) if dates else None


def update(
    out: str | Path,
    make_source: Callable[[str, str], Source],
    client: PoliteClient,
    *,
    date_from: str | None = None,
    date_until: str | None = None,
    n_process: int = 1,
    neo4j_driver=None,
    neo4j_database: str | None = None,
    on_page=None,
    progress: Callable[..., Iterable] | None = None,
    on_skip=None,
    on_note=None,
    export_options=None,
) -> UpdateSummary:
    """Bring the build in ``out`` up to date with ``make_source(from, until)``.

    ``date_from`` defaults to the last update's ``until`` of the same feed (the overlap
    of a day costs nothing: unchanged papers are not extracted again), ``date_until`` to
    today (UTC). With ``neo4j_driver``, the added and replaced papers are loaded into
    that database (papers reloaded take this build's extraction), and the results of
    other papers whose leaderboard properties the new papers changed (a metric read on
    another scale, a board's direction, a paper's best row) are set anew. ``export_options``
    (:class:`~kg.exporters.registry.ExportOptions`) tells the exporters their limits.

    Raises
    ------
    BuildError
        ``out`` is not a build, or no start date is known.
    FetchError
        The source failed after its retries (run again: the fetch resumes).
    """
    out, manifest = _check_build(Path(out))
    until = date_until or dt.datetime.now(dt.UTC).date().isoformat()
    if date_from is not None and date_from > until:
        raise BuildError(f"--from {date_from} is after --until {until}; give them in order")
    probe = make_source(date_from or until, until)
    since = date_from or last_update(out, probe)
    if since is None:
        raise BuildError(
            f"{out} has no earlier update from this source; give the first date with --from"
        )
    source = make_source(since, until)
    folder = updates_dir(out)
    folder.mkdir(parents=True, exist_ok=True)
    fetch_file = folder / f"{source.name}-{since}-{until}.jsonl"
    resume = state_path(fetch_file).exists()
    fetched = fetch_to_file(source, fetch_file, client, force=not resume, on_page=on_page)
    summary = UpdateSummary(out, since, until, fetch_file, fetched)

    _sort_fetched(summary, paper_digests(out / TABLES))
    if not summary.new and not summary.replaced:
        return summary

    pipeline = manifest.get("pipeline") or {}
    entry = {
        "feed": _feed(source),
        "from": since,
        "until": until,
        "file": str(fetch_file),
        "fetched": fetched.written,
        "new": summary.new,
        "replaced": summary.replaced,
    }
    summary.build = build(
        [fetch_file],
        Target(out, add_to=True, update=entry),  # the build's own pipeline, base, curation
        ExtractOptions(n_process=n_process, min_confidence=pipeline.get("min_confidence", 0.0)),
        export=export_options or ExportOptions(),
        hooks=Hooks(
            **({"progress": progress} if progress else {}), on_skip=on_skip, on_note=on_note
        ),
    )
    summary.new = summary.build.added_ids
    summary.replaced = summary.build.replaced_ids
    if neo4j_driver is not None:
        _load_changes(summary, neo4j_driver, neo4j_database)
    return summary


def _check_build(given: Path) -> tuple[Path, dict]:
    """The absolute path of the build ``given`` names, and its manifest; refused when it
    is none, or when it holds the current directory (an update replaces it whole)."""
    out = given.resolve()  # OUT.updates/ beside it, even for "."
    manifest = read_manifest(out)
    if manifest is None or not (out / TABLES).is_dir():
        raise BuildError(f"{given} is not a kg build; run `kg build ... -o {given}` first")
    cwd = Path.cwd().resolve()
    if out == cwd or out in cwd.parents:
        raise BuildError(
            f"{given} is the current directory or one above it, which an update replaces "
            f"whole; run kg update from outside the build (cd ..; kg update {out.name} ...)"
        )
    return out, manifest


def _sort_fetched(summary: UpdateSummary, digests: dict[str, str]) -> None:
    """Sort the fetched papers into new, replaced (text changed) and unchanged ones."""
    for rec in read([summary.fetch_file]):
        if not isinstance(rec, Record):
            continue
        digest = digests.get(rec.id)
        if digest is None:
            summary.new.append(rec.id)
        elif digest != record_digest(rec):
            summary.replaced.append(rec.id)
        else:
            summary.unchanged += 1


def _load_changes(summary: UpdateSummary, driver, database: str | None) -> None:
    """Load the added and replaced papers into Neo4j, and set anew the leaderboard
    properties of other papers' results that they changed."""
    from kg.exporters.jsonio import read_build_source
    from kg.exporters.neo4j import load_neo4j, refresh_properties
    from kg.graph.model import BOARD_PROPERTIES
    from kg.graph.store import PaperSubset
    from kg.orchestrate.curation import curated_away

    changed = set(summary.new) | set(summary.replaced)
    source = read_build_source(summary.out)
    summary.neo4j = load_neo4j(
        PaperSubset(source, changed), driver, database=database, replace=True,
        removed=curated_away(summary.out),
    )  # fmt: skip
    summary.boards_refreshed = refresh_properties(
        source, driver, "Result", BOARD_PROPERTIES, database=database
    )

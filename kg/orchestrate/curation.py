"""A build's curation: the file it applies (given, or remembered from the build it adds
to) and the log of what each entry changed (``tables/curation.json``)."""

from __future__ import annotations

import json
from pathlib import Path

from kg.errors import BuildError
from kg.graph.store import TABLES


def remembered_curation(settings: dict) -> str | None:
    """The curation file a build's manifest settings (its ``pipeline``) remember, if any
    (kept as ``{"path", "digest"}``; a build of an older kg kept the path alone)."""
    kept = settings.get("curation")
    if isinstance(kept, dict):
        kept = kept.get("path")
    return kept if isinstance(kept, str) and kept else None


def _read_curation(path: str | Path | None, remembered_by: Path | None):
    """Read the curation file (None without one); one a build remembers but that is gone
    is an error that says so."""
    from kg.resolve.curation import read_curation

    if not path:
        return None
    if remembered_by is not None and not Path(path).exists():
        raise BuildError(
            f"the curation file {path} that the build in {remembered_by} was made with is "
            "gone; put it back, or name another with --curation"
        )
    return read_curation(path)


CURATION_LOG = "curation.json"
"""What the curation file did to a build (in ``tables/``): each entry's outcome, and the
keys it took out of the graph, which ``kg load neo4j`` deletes from a database."""


def curated_away(out_dir: str | Path) -> list[str]:
    """Return the entity keys the curation of the build in ``out_dir`` took out of its graph
    (none without a curation)."""
    path = Path(out_dir) / TABLES / CURATION_LOG
    if not path.is_file():
        return []
    return list(json.loads(path.read_text(encoding="utf-8")).get("removed") or [])


def _write_curation_log(curated, path: Path, to: Path) -> None:
    data = {"file": str(path), "entries": curated.log, "removed": sorted(curated.removed)}
    to.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

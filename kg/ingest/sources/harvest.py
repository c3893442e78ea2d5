"""Write what a source gives into a JSON Lines file, resumably, never a paper twice.

After every page the output is flushed to disk and a state file beside it
(``OUT.kg-fetch.json``) records the cursor of the next page, the size of the output and
the ids written. A harvest that stops (killed, or out of retries) is run again with the
same arguments and goes on from that cursor; what the output held beyond the recorded
size (a page written but not yet recorded) is cut off first, so nothing is written
twice. The state file goes when the harvest is complete.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from kg.errors import FetchError
from kg.ingest.record import Skipped
from kg.ingest.sources.http import PoliteClient
from kg.ingest.sources.paper import FetchedPaper, Page

__all__ = ["Source", "FetchSummary", "fetch_to_file", "state_path"]


class Source(Protocol):
    """A source of papers: what identifies a fetch, and its pages from a cursor on."""

    name: str

    def describe(self) -> dict[str, Any]: ...

    def pages(self, client: PoliteClient, cursor: dict | None = None): ...


@dataclass
class FetchSummary:
    """What a fetch wrote and what it left out, and why."""

    out: Path
    ids: list[str] = field(default_factory=list)
    """Ids of the papers written, in order."""
    duplicates: int = 0
    """Papers given again with the same title and abstract (written once)."""
    updated: list[str] = field(default_factory=list)
    """Ids given again with a changed title or abstract: the newer record is kept."""
    malformed: list[Skipped] = field(default_factory=list)
    dropped: int = 0
    """Records of categories not asked for (OAI-PMH sets are whole archives)."""
    pages: int = 0
    requests: int = 0
    retries: int = 0
    resumed: bool = False

    @property
    def written(self) -> int:
        """Papers in the output."""
        return len(self.ids)


def state_path(out: Path) -> Path:
    """The state file of a fetch into ``out``."""
    return out.with_name(out.name + ".kg-fetch.json")


def _save_state(path: Path, state: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(state, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _newer(a: FetchedPaper, b: FetchedPaper) -> bool:
    """Whether ``a`` is a later version than ``b`` (by version, then last change)."""
    return (a.version or 0, a.updated or "") >= (b.version or 0, b.updated or "")


def fetch_to_file(
    source: Source,
    out: str | Path,
    client: PoliteClient,
    *,
    force: bool = False,
    on_page: Callable[[Page, FetchSummary], None] | None = None,
) -> FetchSummary:
    """Fetch every page of ``source`` into the JSON Lines file ``out``; return a summary.

    A state file left by an unfinished fetch of the same source into ``out`` is resumed.
    An ``out`` that exists without one is refused unless ``force`` (then replaced).

    Raises
    ------
    FetchError
        The source failed after its retries (the state file stays: run again to resume),
        or ``out`` exists, or the state file is another fetch's.
    """
    out = Path(out)
    spath = state_path(out)
    wanted = source.describe()
    summary = FetchSummary(out=out)
    if spath.exists():
        state = json.loads(spath.read_text(encoding="utf-8"))
        if state.get("source") != wanted:
            raise FetchError(
                f"{spath} belongs to another fetch ({state.get('source')}); finish it with "
                "the same arguments, or delete the state file to start afresh"
            )
        summary.resumed = True
        with open(out, "a+b") as fh:
            fh.truncate(state["bytes"])  # a page written but not recorded goes again
    elif out.exists() and not force:
        raise FetchError(f"{out} exists; write to another file, or pass --force to replace it")
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(b"")
        state = {"source": wanted, "cursor": None, "bytes": 0, "ids": {}, "replace": {},
                 "duplicates": 0, "dropped": 0, "pages": 0, "malformed": []}  # fmt: skip
    seen: dict[str, str] = state["ids"]
    replace: dict[str, str] = state["replace"]
    summary.ids = list(seen)
    try:
        with open(out, "a", encoding="utf-8") as fh:
            for page in source.pages(client, state["cursor"]):
                state["pages"] += 1
                for rec in page.records:
                    if isinstance(rec, Skipped):
                        where = f"{rec.source} page {state['pages']}"
                        state["malformed"].append([where, rec.line, rec.reason])
                        continue
                    digest = rec.digest()
                    if rec.id not in seen:
                        fh.write(rec.to_json() + "\n")
                        seen[rec.id] = digest
                        summary.ids.append(rec.id)
                    elif seen[rec.id] == digest and rec.id not in replace:
                        state["duplicates"] += 1
                    else:
                        old = FetchedPaper.from_json(json.loads(replace[rec.id])) if (
                            rec.id in replace) else None  # fmt: skip
                        if old is None or _newer(rec, old):
                            replace[rec.id] = rec.to_json()
                state["dropped"] += page.dropped
                fh.flush()
                os.fsync(fh.fileno())
                state["bytes"] = fh.tell()
                state["cursor"] = page.next_cursor
                _save_state(spath, state)
                _fill(summary, state, client)
                if on_page is not None:
                    on_page(page, summary)
    finally:
        _fill(summary, state, client)
    if replace:
        _rewrite(out, replace)
    spath.unlink(missing_ok=True)
    return summary


def _fill(summary: FetchSummary, state: dict[str, Any], client: PoliteClient) -> None:
    summary.duplicates = state["duplicates"]
    summary.dropped = state["dropped"]
    summary.pages = state["pages"]
    summary.updated = sorted(state["replace"])
    summary.malformed = [Skipped(s, line, reason) for s, line, reason in state["malformed"]]
    summary.requests = client.requests
    summary.retries = client.retried


def _rewrite(out: Path, replace: dict[str, str]) -> None:
    """Put the newer record of each id in ``replace`` where its first record was."""
    tmp = out.with_name(out.name + ".tmp")
    with open(out, encoding="utf-8") as src, open(tmp, "w", encoding="utf-8") as dst:
        for line in src:
            paper_id = json.loads(line)["id"]
            dst.write(replace[paper_id] + "\n" if paper_id in replace else line)
    os.replace(tmp, out)

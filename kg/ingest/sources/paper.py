"""What every source returns: papers as fetched, a page of them, and the JSON line each
becomes (the fields ``kg build`` reads from JSON Lines)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from kg.ingest.record import Skipped

__all__ = ["FetchedPaper", "Page"]


@dataclass(frozen=True)
class FetchedPaper:
    """One paper as a source gave it. ``abstract`` and ``title`` are kept as written
    (LaTeX included: extraction reads them through kg's LaTeX cleaning, and evidence
    offsets point into the text as written); ``version`` is the arXiv version when the
    source says it (the query API does, OAI-PMH's ``arXiv`` format does not)."""

    id: str
    title: str
    abstract: str
    version: int | None = None
    authors: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    date: str | None = None
    """First submission (``YYYY-MM-DD``)."""
    updated: str | None = None
    """Last change of the record (the newest version's date, or the OAI datestamp)."""
    url: str | None = None
    doi: str | None = None
    upvotes: int | None = None
    source: str = ""

    def to_json(self) -> str:
        """The JSON line of this paper (fields that are not known are left out)."""
        data = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}
        return json.dumps({k: v for k, v in data.items() if v not in (None, [])},
                          ensure_ascii=False)  # fmt: skip

    def digest(self) -> str:
        """What tells a changed paper from the same one fetched again: title and abstract."""
        return hashlib.sha1(f"{self.title}\n{self.abstract}".encode()).hexdigest()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FetchedPaper:
        """The paper of a JSON line written by :meth:`to_json`."""
        fields = cls.__dataclass_fields__
        values = {
            k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in fields
        }
        return cls(**values)


@dataclass(frozen=True)
class Page:
    """One answer of a source: its papers (and :class:`Skipped` notes for malformed
    records), the cursor of the next page (``None`` after the last), and, when the source
    says it, how many records the whole listing holds. ``dropped`` counts records of
    categories that were not asked for."""

    records: list[FetchedPaper | Skipped] = field(default_factory=list)
    next_cursor: dict | None = None
    total: int | None = None
    dropped: int = 0

"""Hugging Face Daily Papers: the papers the community picked each day, with their upvotes.

The JSON API (``GET /api/daily_papers?date=YYYY-MM-DD``) answers a list of items, each
with a ``paper`` object (``id`` = arXiv id, ``title``, ``summary``, ``authors`` with
``name``, ``publishedAt``, ``upvotes``). One request per day of the range.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kg.ingest.record import Skipped
from kg.ingest.sources.arxiv import split_version
from kg.ingest.sources.endpoints import HF_URL
from kg.ingest.sources.http import PoliteClient, Transient
from kg.ingest.sources.paper import FetchedPaper, Page

__all__ = ["HF_URL", "HfDaily", "parse_daily_papers", "days"]


def days(date_from: str, date_until: str | None = None) -> list[str]:
    """Every date from ``date_from`` to ``date_until`` (inclusive), ``YYYY-MM-DD``.

    >>> days("2026-11-29", "2026-12-01")
    ['2026-11-29', '2026-11-30', '2026-12-01']
    """
    first = dt.date.fromisoformat(date_from)
    last = dt.date.fromisoformat(date_until) if date_until else first
    if last < first:
        raise ValueError(f"--until {last} is before --from {first}")
    return [(first + dt.timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError as exc:  # cut off on the way: ask again
        raise Transient(f"the daily-papers answer is not complete JSON ({exc})") from exc


def _paper(item: Any, source: str, n: int) -> FetchedPaper | Skipped:
    paper = item.get("paper") if isinstance(item, dict) else None
    if not isinstance(paper, dict):
        return Skipped(source, n, "item without a paper object")
    ident = str(paper.get("id") or "").strip()
    title = str(paper.get("title") or item.get("title") or "").strip()
    abstract = str(paper.get("summary") or item.get("summary") or "").strip()
    missing = [k for k, v in (("id", ident), ("title", title), ("summary", abstract)) if not v]
    if missing:
        return Skipped(source, n, f"paper {ident or '(no id)'}: no {', '.join(missing)}")
    paper_id, version = split_version(ident)
    authors = [
        str(a["name"]).strip()
        for a in paper.get("authors") or []
        if isinstance(a, dict) and a.get("name")
    ]
    published = paper.get("publishedAt") or item.get("publishedAt")
    upvotes = paper.get("upvotes")
    return FetchedPaper(
        id=paper_id,
        version=version,
        title=" ".join(title.split()),
        abstract=abstract,
        authors=tuple(authors),
        date=str(published)[:10] if published else None,
        url=f"https://arxiv.org/abs/{paper_id}",
        upvotes=int(upvotes) if isinstance(upvotes, int | float) else None,
        source="hf-daily",
    )


def parse_daily_papers(body: bytes, day: str) -> list[FetchedPaper | Skipped]:
    """The papers of one day's answer; a malformed item becomes :class:`Skipped`."""
    data = _json(body)
    if not isinstance(data, list):
        raise Transient(f"the daily-papers answer for {day} is not a JSON list")
    return [_paper(item, f"hf-daily {day}", n) for n, item in enumerate(data, start=1)]


@dataclass(frozen=True)
class HfDaily:
    """The Daily Papers of every day from ``date_from`` to ``date_until`` (inclusive)."""

    date_from: str
    date_until: str | None = None
    base_url: str = HF_URL

    name = "hf-daily"

    def describe(self) -> dict[str, Any]:
        """What identifies this fetch (a resumed one must ask for the same)."""
        return {"source": "hf-daily", "from": self.date_from,
                "until": self.date_until or self.date_from, "base_url": self.base_url}  # fmt: skip

    def pages(self, client: PoliteClient, cursor: dict | None = None) -> Iterator[Page]:
        """Yield one page per day, from the day ``cursor`` names on."""
        all_days = days(self.date_from, self.date_until)
        start = (cursor or {}).get("day", 0)
        for index in range(start, len(all_days)):
            day = all_days[index]
            records = client.get(
                self.base_url, {"date": day}, parse=lambda body, d=day: parse_daily_papers(body, d)
            )
            nxt = {"day": index + 1} if index + 1 < len(all_days) else None
            yield Page(records, nxt, None)

"""A JSON object as a paper record: its fields (arXiv metadata and others), authors,
dates and year, with a note for each value that could not be read."""

from __future__ import annotations

import datetime
import email.utils
import re
from typing import Any

from kg.ingest.record import (
    DEFAULT_MAX_CHARS,
    FieldMap,
    Item,
    Record,
    Skipped,
    find_code_url,
    normalise_space,
    paper_id_for,
    text_problem,
    without_controls,
)


def _first(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = obj.get(key)
        if value not in (None, "", []):
            return value
    return None


def _authors(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        parts = re.split(r",\s*|\s+and\s+", value)
        return tuple(p.strip() for p in parts if p.strip())
    if isinstance(value, list):
        out = []
        for item in value:
            if isinstance(item, str):
                out.append(item.strip())
            elif isinstance(item, list):  # arXiv authors_parsed: [last, first, suffix]
                out.append(" ".join(str(x) for x in reversed(item[:2]) if x).strip())
            elif isinstance(item, dict) and item.get("name"):
                out.append(str(item["name"]))
        return tuple(normalise_space(a) for a in out if a)
    return ()


def _text_or_none(value: Any) -> str | None:
    """A scalar JSON value as a string; objects and arrays give None."""
    if value is None or isinstance(value, dict | list):
        return None
    return str(value)


_ISO_DATE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:$|[T ])")


def _date(value: str | None, notes: list[str]) -> str | None:
    """``value`` when it reads as a date (ISO ``YYYY[-MM[-DD]]...`` or an e-mail style date
    as arXiv writes them), else None with a note saying it was left out."""
    if value is None:
        return None
    match = _ISO_DATE.match(value.strip())
    try:
        if match:
            y, m, d = (int(g) if g else 1 for g in match.groups())
            datetime.date(y, m, d)
            return value
        if email.utils.parsedate_to_datetime(value) is not None:
            return value
    except (ValueError, TypeError, IndexError):
        pass
    notes.append(f"date {value[:40]!r} is not a date; left out")
    return None


def _year(year: Any, date: str | None, notes: list[str]) -> int | None:
    """The paper's year: the year field when it reads as one (1000-2999), else the
    date's; a year field that does not is left out with a note."""
    if year is not None:
        text = str(year).strip() if not isinstance(year, bool) else ""
        match = re.fullmatch(r"([12]\d{3})(?:[-/.].*)?", text)
        if match and not isinstance(year, float | bool):
            return int(match[1])
        notes.append(f"year {str(year)[:40]!r} is not a year; left out")
    if date:
        match = _ISO_DATE.match(date.strip())
        if match:
            return int(match[1])
        try:
            return email.utils.parsedate_to_datetime(date).year
        except (ValueError, TypeError, IndexError):
            return None
    return None


def record_from_json(
    obj: Any, source: str, line: int, fields: FieldMap, max_chars: int = DEFAULT_MAX_CHARS
) -> Item:
    """Return the ``Record`` of one JSON object, or ``Skipped`` saying what is missing."""
    if not isinstance(obj, dict):
        return Skipped(source, line, f"expected a JSON object, got {type(obj).__name__}")
    text = _first(obj, fields.text)
    if text is None:
        keys = "/".join(fields.text)
        present = ", ".join(sorted(str(k) for k in obj)[:8]) or "none"
        return Skipped(
            source,
            line,
            f"empty abstract (no non-empty {keys} field; this record has: {present}; "
            "name the abstract's key with --field text=KEY)",
        )
    if not isinstance(text, str):
        return Skipped(source, line, f"abstract field is a {type(text).__name__}, not a string")
    notes: list[str] = []
    if "\x00" in text:  # an escaped \u0000: a character of valid JSON, not binary data
        notes.append("NUL characters (\\u0000) in the abstract read as spaces")
    text = without_controls(text)
    problem = text_problem(text, max_chars)
    if problem:
        return Skipped(source, line, problem, text[:80])
    given_id = _first(obj, fields.id)
    if isinstance(given_id, dict | list | bool):
        return Skipped(source, line, f"id field is a {type(given_id).__name__}, not a string")
    date = _date(_text_or_none(_first(obj, fields.date)), notes)
    categories = _first(obj, fields.categories)
    if categories is None:
        categories = []
    elif isinstance(categories, str):
        categories = categories.split()
    elif not isinstance(categories, list):
        categories = [categories]
    upvotes = _first(obj, fields.upvotes)
    if not isinstance(upvotes, int) or isinstance(upvotes, bool):
        upvotes = None
    title = _text_or_none(_first(obj, fields.title))
    title = without_controls(title) if title else None
    return Record(
        id=without_controls(str(given_id)) if given_id is not None else paper_id_for(text),
        text=text,
        title=title or None,
        year=_year(_first(obj, fields.year), date, notes),
        date=date,
        authors=_authors(_first(obj, fields.authors)),
        url=_text_or_none(_first(obj, fields.url)),
        code_url=_text_or_none(_first(obj, fields.code_url)) or find_code_url(text),
        categories=tuple(str(c) for c in categories if not isinstance(c, dict | list)),
        upvotes=upvotes,
        source=source,
        line=line,
        notes=tuple(notes),
    )

"""Streaming readers: each yields ``Record`` for good input and ``Skipped`` for the rest."""

from __future__ import annotations

import gzip
import io
import json
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from kg.ingest.record import FieldMap, Record, Skipped, find_code_url, normalise_space, paper_id_for

__all__ = ["read", "read_path", "read_text", "read_jsonl", "read_json_array", "detect_format"]

DEFAULT_MAX_CHARS = 100_000
MIN_WORDS = 20
_SENTENCE_END = re.compile(r"[.!?][\"')\]]?(\s|$)")
_TEXT_SUFFIXES = {".txt", ".text", ".md"}
_JSONL_SUFFIXES = {".jsonl", ".ndjson"}
_KNOWN_SUFFIXES = _TEXT_SUFFIXES | _JSONL_SUFFIXES | {".json"}

Item = Record | Skipped


def read(
    inputs: Iterable[str | Path],
    *,
    fields: FieldMap | None = None,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Iterator[Item]:
    """Yield the records of every input (files, directories, ``-`` for stdin) in order.

    Bad files and records come out as ``Skipped`` items naming the file, line and reason;
    reading goes on with the next record.
    """
    fields = fields or FieldMap()
    for spec in inputs:
        if str(spec) == "-":
            yield from _read_stream(sys.stdin.buffer, "-", None, fields, max_chars)
            continue
        path = Path(spec)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file() and _is_input_file(p))
            if not files:
                yield Skipped(
                    str(path), None, "directory holds no .txt, .jsonl, .json or .gz files"
                )
            for file in files:
                yield from read_path(file, fields=fields, max_chars=max_chars)
        else:
            yield from read_path(path, fields=fields, max_chars=max_chars)


def read_path(
    path: str | Path, *, fields: FieldMap | None = None, max_chars: int = DEFAULT_MAX_CHARS
) -> Iterator[Item]:
    """Yield the records of one file; ``.gz`` files are decompressed on the fly."""
    path = Path(path)
    fields = fields or FieldMap()
    if not path.exists():
        yield Skipped(str(path), None, "file not found; check the path")
        return
    if not path.is_file():
        yield Skipped(str(path), None, "not a regular file")
        return
    try:
        raw: IO[bytes] = gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")  # noqa: SIM115
        with raw:
            yield from _read_stream(raw, str(path), _format_from_name(path), fields, max_chars)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        yield Skipped(str(path), None, f"cannot read file: {exc}")


def _is_input_file(path: Path) -> bool:
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    return Path(name).suffix.lower() in _KNOWN_SUFFIXES


def _format_from_name(path: Path) -> str | None:
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    suffix = Path(name).suffix.lower()
    if suffix in _JSONL_SUFFIXES:
        return "jsonl"
    if suffix == ".json":
        return "json"
    if suffix in _TEXT_SUFFIXES:
        return "text"
    return None


def detect_format(head: bytes) -> str:
    """Guess ``text``, ``jsonl`` or ``json`` from the first bytes of a file.

    Examples
    --------
    >>> detect_format(b'  [{"abstract": "x"}]')
    'json'
    >>> detect_format(b'{"id": 1}')
    'jsonl'
    >>> detect_format(b"Some abstract.")
    'text'
    """
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"["):
        return "json"
    if stripped.startswith(b"{"):
        return "jsonl"
    return "text"


def _read_stream(
    raw: IO[bytes], source: str, fmt: str | None, fields: FieldMap, max_chars: int
) -> Iterator[Item]:
    buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[arg-type]
    head = buffered.peek(8192)[:8192]
    if b"\x00" in head:
        yield Skipped(
            source, None, "binary file (contains NUL bytes); give a text, JSONL or JSON file"
        )
        return
    fmt = fmt or detect_format(head)
    if fmt == "jsonl":
        yield from read_jsonl(buffered, source, fields=fields, max_chars=max_chars)
    elif fmt == "json":
        yield from read_json_array(buffered, source, fields=fields, max_chars=max_chars)
    else:
        yield from read_text(buffered, source, max_chars=max_chars)


def _decoded_lines(raw: IO[bytes], source: str) -> Iterator[tuple[int, str | Skipped]]:
    for number, line in enumerate(raw, start=1):
        try:
            yield number, line.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield (
                number,
                Skipped(
                    source, number, f"undecodable bytes (not UTF-8) at byte {exc.start} of the line"
                ),
            )


def read_text(raw: IO[bytes], source: str, *, max_chars: int = DEFAULT_MAX_CHARS) -> Iterator[Item]:
    """Yield one record per blank-line separated paragraph of a UTF-8 text stream."""
    lines: list[str] = []
    start: int | None = None
    bad: Skipped | None = None
    for number, line in _decoded_lines(raw, source):
        if isinstance(line, Skipped):
            bad = bad or line
            start = start or number
            continue
        if line.strip():
            if start is None:
                start = number
            lines.append(line)
            continue
        if start is not None:
            yield _paragraph(lines, source, start, bad, max_chars)
        lines, start, bad = [], None, None
    if start is not None:
        yield _paragraph(lines, source, start, bad, max_chars)


def _paragraph(
    lines: list[str], source: str, start: int, bad: Skipped | None, max_chars: int
) -> Item:
    if bad is not None:
        return bad
    text = normalise_space(" ".join(lines))
    problem = _text_problem(text, max_chars)
    if problem:
        return Skipped(source, start, problem, text[:80])
    words = len(text.split())
    if words < MIN_WORDS or not _SENTENCE_END.search(text):
        why = f"only {words} words" if words < MIN_WORDS else "no sentence end"
        return Skipped(source, start, f"not an abstract ({why}), e.g. a title line", text[:80])
    return Record(
        id=paper_id_for(text), text=text, code_url=find_code_url(text), source=source, line=start
    )


def _text_problem(text: str, max_chars: int) -> str | None:
    if not text:
        return "empty abstract"
    if len(text) > max_chars:
        return (
            f"abstract has {len(text):,} characters, over the limit of {max_chars:,} (--max-chars)"
        )
    return None


def read_jsonl(
    raw: IO[bytes],
    source: str,
    *,
    fields: FieldMap | None = None,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Iterator[Item]:
    """Yield one record per line of a JSON Lines stream (blank lines are ignored)."""
    fields = fields or FieldMap()
    for number, line in _decoded_lines(raw, source):
        if isinstance(line, Skipped):
            yield line
            continue
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield Skipped(source, number, f"malformed JSON: {exc.msg} at column {exc.colno}")
            continue
        yield record_from_json(obj, source, number, fields, max_chars)


def read_json_array(
    raw: IO[bytes],
    source: str,
    *,
    fields: FieldMap | None = None,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Iterator[Item]:
    """Yield one record per element of a JSON array (the file is parsed whole)."""
    fields = fields or FieldMap()
    try:
        data = json.loads(raw.read().decode("utf-8"))
    except UnicodeDecodeError as exc:
        yield Skipped(source, None, f"undecodable bytes (not UTF-8) at byte {exc.start}")
        return
    except json.JSONDecodeError as exc:
        yield Skipped(source, exc.lineno, f"malformed JSON: {exc.msg} at column {exc.colno}")
        return
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        yield Skipped(source, 1, "a JSON file must hold an array of objects")
        return
    for index, obj in enumerate(data, start=1):
        yield record_from_json(obj, source, index, fields, max_chars)


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
                out.append(" ".join(x for x in reversed(item[:2]) if x).strip())
            elif isinstance(item, dict) and item.get("name"):
                out.append(str(item["name"]))
        return tuple(a for a in out if a)
    return ()


def _year(year: Any, date: str | None) -> int | None:
    if isinstance(year, int):
        return year
    if isinstance(year, str) and year[:4].isdigit():
        return int(year[:4])
    if date and date[:4].isdigit():
        return int(date[:4])
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
        return Skipped(source, line, f"empty abstract (no non-empty {keys} field)")
    if not isinstance(text, str):
        return Skipped(source, line, f"abstract field is a {type(text).__name__}, not a string")
    text = normalise_space(text)
    problem = _text_problem(text, max_chars)
    if problem:
        return Skipped(source, line, problem, text[:80])
    given_id = _first(obj, fields.id)
    date = _first(obj, fields.date)
    date = str(date) if date is not None else None
    categories = _first(obj, fields.categories) or ()
    if isinstance(categories, str):
        categories = categories.split()
    title = _first(obj, fields.title)
    return Record(
        id=str(given_id) if given_id is not None else paper_id_for(text),
        text=text,
        title=normalise_space(str(title)) if title else None,
        year=_year(_first(obj, fields.year), date),
        date=date,
        authors=_authors(_first(obj, fields.authors)),
        url=_first(obj, fields.url),
        code_url=_first(obj, fields.code_url) or find_code_url(text),
        categories=tuple(str(c) for c in categories),
        source=source,
        line=line,
    )

"""Streaming readers: each yields ``Record`` for good input and ``Skipped`` for the rest."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NamedTuple

from kg.ingest.gunzip import GunzipStream
from kg.ingest.json_records import record_from_json
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

__all__ = [
    "InputFiles",
    "list_inputs",
    "read",
    "read_path",
    "read_text",
    "read_jsonl",
    "read_json_array",
    "detect_format",
]

MIN_WORDS = 20
_SENTENCE_END = re.compile(r"[.!?][\"')\]]?(\s|$)")
_TEXT_SUFFIXES = {".txt", ".text", ".md"}
_JSONL_SUFFIXES = {".jsonl", ".ndjson"}
_KNOWN_SUFFIXES = _TEXT_SUFFIXES | _JSONL_SUFFIXES | {".json"}


@dataclass(frozen=True)
class InputFiles:
    """The files a build reads, in order, and the directory entries it leaves alone.

    ``files`` holds paths as given or found (``-`` for stdin); ``missing`` the given paths
    that do not exist; ``ignored`` one :class:`Skipped` per directory entry that is not
    read, saying why.
    """

    files: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    ignored: tuple[Skipped, ...] = ()


def list_inputs(inputs: Iterable[str | Path]) -> InputFiles:
    """Return which files ``inputs`` (files, directories, ``-``) stand for, in reading order.

    Directories are walked in sorted order. Inside them only ``.txt``, ``.text``, ``.md``,
    ``.jsonl``, ``.ndjson`` and ``.json`` files (or their ``.gz``) are read; README,
    LICENSE and similar documents, hidden entries, kg's own build directories and every
    other kind of file are listed in ``ignored`` with the reason.
    """
    files: list[str] = []
    missing: list[str] = []
    ignored: list[Skipped] = []
    for spec in inputs:
        if str(spec) == "-":
            files.append("-")
            continue
        path = Path(spec)
        if path.is_dir():
            found = _walk(path, ignored)
            if not found:
                ignored.append(
                    Skipped(str(path), None, "directory holds no .txt, .jsonl, .json or .gz files")
                )
            files.extend(str(p) for p in found)
        elif path.exists():
            files.append(str(path))
        else:
            missing.append(str(path))
    return InputFiles(tuple(files), tuple(missing), tuple(ignored))


def _walk(directory: Path, ignored: list[Skipped]) -> list[Path]:
    found: list[Path] = []
    try:
        entries = sorted(directory.iterdir())
    except OSError as exc:
        ignored.append(Skipped(str(directory), None, f"cannot list directory: {exc}"))
        return found
    for entry in entries:
        why = _ignore_reason(entry)
        if why is not None:
            ignored.append(Skipped(str(entry), None, f"ignored: {why}"))
        elif entry.is_dir():
            found.extend(_walk(entry, ignored))
        else:
            found.append(entry)
    return found


def _ignore_reason(entry: Path) -> str | None:
    name = entry.name
    if name.startswith("."):
        return "hidden"
    if entry.is_dir():
        return "a kg build's output, not abstracts" if (entry / "kg-build.json").exists() else None
    if not entry.is_file():
        return "not a regular file"
    base = _without_gz(name)
    stem = base.split(".")[0].upper()
    if stem in _DOCUMENT_NAMES or stem.startswith(("LICENSE", "LICENCE")):
        return "a document about the folder (README, LICENSE, ...), not abstracts"
    if not _is_input_file(entry):
        suffix = Path(base).suffix.lower() or "no suffix"
        return f"not a text, JSONL or JSON file ({suffix})"
    return None


def read(
    inputs: Iterable[str | Path] | InputFiles,
    *,
    fields: FieldMap | None = None,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Iterator[Item]:
    """Yield the records of every input (files, directories, ``-`` for stdin) in order.

    Bad files and records come out as ``Skipped`` items naming the file, line and reason;
    reading goes on with the next record. Directory entries that are not read (see
    :func:`list_inputs`) and missing paths come out as ``Skipped`` first.
    """
    fields = fields or FieldMap()
    listed = inputs if isinstance(inputs, InputFiles) else list_inputs(inputs)
    yield from listed.ignored
    for path in listed.missing:
        yield Skipped(path, None, "file not found; check the path")
    for spec in listed.files:
        if spec == "-":
            yield from _read_stream(sys.stdin.buffer, "-", None, fields, max_chars)
        else:
            yield from read_path(spec, fields=fields, max_chars=max_chars)


def read_path(
    path: str | Path, *, fields: FieldMap | None = None, max_chars: int = DEFAULT_MAX_CHARS
) -> Iterator[Item]:
    """Yield the records of one file; ``.gz`` files are decompressed on the fly.

    A ``.gz`` file cut short (or corrupt) keeps every complete record before the break
    and reports the break with its line.
    """
    path = Path(path)
    fields = fields or FieldMap()
    if not path.exists():
        yield Skipped(str(path), None, "file not found; check the path")
        return
    if not path.is_file():
        yield Skipped(str(path), None, "not a regular file")
        return
    try:
        with open(path, "rb") as fh:
            raw: IO[bytes] = GunzipStream(fh) if _without_gz(path.name) != path.name else fh
            yield from _read_stream(raw, str(path), _format_from_name(path), fields, max_chars)
    except OSError as exc:
        yield Skipped(str(path), None, f"cannot read file: {exc}")


def _stream_break(raw: IO[bytes]) -> str | None:
    return getattr(getattr(raw, "raw", raw), "broken", None)


_DOCUMENT_NAMES = {
    "README",
    "COPYING",
    "NOTICE",
    "CHANGELOG",
    "CHANGES",
    "HISTORY",
    "CONTRIBUTING",
    "AUTHORS",
    "CITATION",
    "CODE_OF_CONDUCT",
    "SECURITY",
}


def _without_gz(name: str) -> str:
    return name[:-3] if name.lower().endswith(".gz") else name


def _is_input_file(path: Path) -> bool:
    return Path(_without_gz(path.name)).suffix.lower() in _KNOWN_SUFFIXES


def _format_from_name(path: Path) -> str | None:
    suffix = Path(_without_gz(path.name)).suffix.lower()
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
    if not head.removeprefix(b"\xef\xbb\xbf").strip():
        why = _stream_break(buffered)
        if why:
            yield Skipped(source, 1, f"{why}, 0 records read before the break")
        elif head:
            yield Skipped(source, None, "empty file (only blank lines)")
        else:
            yield Skipped(source, None, "empty file")
        return
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        yield Skipped(
            source, None, "UTF-16 text; kg reads UTF-8 (convert it, e.g. iconv -f UTF-16 -t UTF-8)"
        )
        return
    if fmt != "jsonl" and b"\x00" in head:  # JSONL: only the lines with NULs are bad
        yield Skipped(
            source,
            None,
            "binary file (NUL bytes in its first 8 KB; further on, a record with a NUL byte "
            "is skipped); give a text, JSONL or JSON file",
        )
        return
    fmt = fmt or detect_format(head)
    if fmt == "jsonl":
        items = read_jsonl(buffered, source, fields=fields, max_chars=max_chars)
    elif fmt == "json":
        items = read_json_array(buffered, source, fields=fields, max_chars=max_chars)
    else:
        items = read_text(buffered, source, max_chars=max_chars)
    empty = True
    for item in items:
        empty = False
        yield item
    if empty:
        yield Skipped(source, None, "empty file (only blank lines)")


def _line_limit(max_chars: int) -> int:
    """Bytes a line may have: room for an abstract of ``max_chars`` escaped, and metadata."""
    return 8 * max_chars + (1 << 20)


class _Line(NamedTuple):
    number: int
    text: str | None  # None: the line could not be used (see ``skip``)
    skip: Skipped | None = None
    complete: bool = True  # False: the last line, without its line end


def _decoded_lines(raw: IO[bytes], source: str, max_chars: int) -> Iterator[_Line]:
    """Yield the numbered lines of ``raw``, decoded; too long or undecodable ones as skips.

    Lines are read with a bounded length, so a huge line costs no more memory than
    :func:`_line_limit`. A UTF-8 byte order mark before the first line is dropped.
    """
    limit = _line_limit(max_chars)
    number = 0
    while True:
        line = raw.readline(limit)
        if not line:
            return
        number += 1
        complete = line.endswith(b"\n")
        cut_at_limit = len(line) >= limit and not complete
        if number == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if cut_at_limit:
            size = len(line)
            while line and not line.endswith(b"\n"):
                line = raw.readline(limit)
                size += len(line)
            reason = f"line of over {size:,} bytes, longer than any abstract kg reads (--max-chars)"
            yield _Line(number, None, Skipped(source, number, reason), line.endswith(b"\n"))
            continue
        try:
            yield _Line(number, line.decode("utf-8"), None, complete)
        except UnicodeDecodeError as exc:
            reason = f"undecodable bytes (not UTF-8) at byte {exc.start} of the line"
            yield _Line(number, None, Skipped(source, number, reason), complete)


def _broken_record(raw: IO[bytes], source: str, line: int, records: int) -> Skipped | None:
    why = _stream_break(raw)
    if why is None:
        return None
    return Skipped(source, line, f"{why}, {records} records read before the break")


def read_text(raw: IO[bytes], source: str, *, max_chars: int = DEFAULT_MAX_CHARS) -> Iterator[Item]:
    """Yield one record per blank-line separated paragraph of a UTF-8 text stream."""
    lines: list[str] = []
    size = 0
    start: int | None = None
    bad: Skipped | None = None
    records = 0
    number = 0
    for line in _decoded_lines(raw, source, max_chars):
        number = line.number
        if line.text is None or line.text.strip():
            if start is None:
                start = number
            if line.text is None:
                bad = bad or line.skip
            elif size <= max_chars:  # past the limit the paragraph is skipped: stop keeping it
                lines.append(line.text)
                size += len(line.text)
            continue
        if start is not None:
            records += 1
            yield _paragraph(lines, source, start, bad, max_chars, size)
        lines, size, start, bad = [], 0, None, None
    broken = _broken_record(raw, source, start or number + 1, records)
    if broken is not None:  # the paragraph being read when the stream broke is incomplete
        yield broken
    elif start is not None:
        yield _paragraph(lines, source, start, bad, max_chars, size)


_NUL_RECORD = "contains a NUL byte (binary data?); the record is left out"


def _paragraph(
    lines: list[str], source: str, start: int, bad: Skipped | None, max_chars: int, size: int
) -> Item:
    if bad is not None:
        return bad
    if any("\x00" in line for line in lines):
        return Skipped(source, start, _NUL_RECORD, normalise_space(" ".join(lines))[:80])
    if size > max_chars:
        return Skipped(
            source,
            start,
            f"abstract is over the limit of {max_chars:,} characters (--max-chars)",
            normalise_space(" ".join(lines))[:80],
        )
    text = without_controls(" ".join(lines))
    problem = text_problem(text, max_chars)
    if problem:
        return Skipped(source, start, problem, text[:80])
    words = len(text.split())
    if words < MIN_WORDS or not _SENTENCE_END.search(text):
        why = f"only {words} words" if words < MIN_WORDS else "no sentence end"
        return Skipped(source, start, f"not an abstract ({why}), e.g. a title line", text[:80])
    return Record(
        id=paper_id_for(text), text=text, code_url=find_code_url(text), source=source, line=start
    )


def _json_problem(exc: ValueError | RecursionError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"malformed JSON: {exc.msg} at column {exc.colno}"
    if isinstance(exc, RecursionError):
        return "malformed JSON: nested too deeply"
    return f"malformed JSON: {exc}"


def read_jsonl(
    raw: IO[bytes],
    source: str,
    *,
    fields: FieldMap | None = None,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Iterator[Item]:
    """Yield one record per line of a JSON Lines stream (blank lines are ignored)."""
    fields = fields or FieldMap()
    records = 0
    number = 0
    for line in _decoded_lines(raw, source, max_chars):
        number = line.number
        if not line.complete:  # the last line: if the stream broke, it is cut off
            broken = _broken_record(raw, source, number, records)
            if broken is not None:
                yield broken
                return
        if line.text is None:
            yield line.skip  # type: ignore[misc]
            continue
        if not line.text.strip():
            continue
        try:
            obj = json.loads(line.text)
        except (ValueError, RecursionError) as exc:
            yield Skipped(source, number, _json_problem(exc))
            continue
        item = record_from_json(obj, source, number, fields, max_chars)
        records += isinstance(item, Record)
        yield item
    broken = _broken_record(raw, source, number + 1, records)
    if broken is not None:  # broken right after a line end
        yield broken


def read_json_array(
    raw: IO[bytes],
    source: str,
    *,
    fields: FieldMap | None = None,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Iterator[Item]:
    """Yield one record per element of a JSON array (the file is parsed whole)."""
    fields = fields or FieldMap()
    data = raw.read()
    broken = _broken_record(raw, source, data.count(b"\n") + 1, 0)
    if broken is not None:
        yield broken
        return
    try:
        data = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        yield Skipped(source, None, f"undecodable bytes (not UTF-8) at byte {exc.start}")
        return
    except json.JSONDecodeError as exc:
        yield Skipped(source, exc.lineno, _json_problem(exc))
        return
    except (ValueError, RecursionError) as exc:
        yield Skipped(source, None, _json_problem(exc))
        return
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        yield Skipped(source, 1, "a JSON file must hold an array of objects")
        return
    for index, obj in enumerate(data, start=1):
        yield record_from_json(obj, source, index, fields, max_chars)

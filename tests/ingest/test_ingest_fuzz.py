"""Property-based tests of the readers: whatever the bytes, ``read()`` raises nothing, and
every complete record of the input is either yielded or reported with its line."""

from __future__ import annotations

import gzip
import itertools
import json
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.ingest import Record, Skipped, read
from kg.ingest.readers import _line_limit
from tests.conftest import shared_path

MAX_CHARS = 2_000
FUZZ = settings(
    max_examples=600,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
ABSTRACT = (
    "We propose a sparse attention method for long document summarisation that uses a "
    "pretrained encoder and improves ROUGE-L by 2.1 points on two public benchmarks."
)


def _read(path: Path) -> list[Record | Skipped]:
    items = list(read([path], max_chars=MAX_CHARS))
    assert all(isinstance(i, Record | Skipped) for i in items)
    return items


def _accounted(items) -> list[int]:
    """The line numbers of all records and record-level skips, sorted."""
    return sorted(i.line for i in items if i.line is not None)


def _file_level(items) -> list[Skipped]:
    return [i for i in items if isinstance(i, Skipped) and i.line is None]


SUFFIXES = ("a.txt", "a.jsonl", "a.json", "a.jsonl.gz", "a.txt.gz", "a", "a.json.gz")


@FUZZ
@given(data=st.binary(max_size=3_000), name=st.sampled_from(SUFFIXES))
def test_fuzz_random_bytes_never_raise(tmp_path, data, name):
    path = tmp_path / name
    path.write_bytes(data)
    items = _read(path)
    assert items, "every file yields a record or says why not"
    for item in items:
        assert item.source == str(path)


# One JSONL line of each kind, and what the reader must make of it.
def _valid(i: int) -> tuple[bytes, str]:
    return json.dumps({"id": f"p{i}", "abstract": f"{ABSTRACT} ({i})"}).encode(), "record"


LINE_KINDS = {
    "valid": _valid,
    "unicode": lambda i: (
        json.dumps(
            {"id": f"u{i}", "abstract": f"{ABSTRACT} Über ﬁne — 数据 {i}"}, ensure_ascii=False
        ).encode(),
        "record",
    ),
    "broken": lambda i: (b'{"id": "b", "abstract": "cut', "skip"),
    "not_object": lambda i: (b"[1, 2, 3]", "skip"),
    "empty_abstract": lambda i: (b'{"id": "e", "abstract": ""}', "skip"),
    "latin1": lambda i: (
        f'{{"id": "l{i}", "abstract": "caf\u00e9 {ABSTRACT}"}}'.encode("latin-1"),
        "skip",
    ),
    "nul": lambda i: (b'{"id": "n", \x00 "abstract": "x"}', "skip"),
    "nul_escape": lambda i: (
        json.dumps({"id": f"z{i}", "abstract": f"{ABSTRACT}\u0000 end {i}"}).encode(),
        "record",
    ),
    "too_long": lambda i: (
        json.dumps({"id": "t", "abstract": "word " * (MAX_CHARS // 4)}).encode(),
        "skip",
    ),
    "huge_line": lambda i: (
        b'{"id": "h", "abstract": "' + b"x" * _line_limit(MAX_CHARS) + b'"}',
        "skip",
    ),
    "deep": lambda i: (b"[" * 100_000 + b"]" * 100_000, "skip"),
    "big_number": lambda i: (b'{"id": 1' + b"0" * 5_000 + b', "abstract": "x"}', "skip"),
    "odd_fields": lambda i: (
        json.dumps(
            {
                "id": f"o{i}",
                "abstract": f"{ABSTRACT} {i}",
                "authors": [[1, None], {}],
                "categories": 5,
                "year": True,
                "title": {"x": 1},
                "url": [1],
            }
        ).encode(),
        "record",
    ),
}


@FUZZ
@given(
    kinds=st.lists(st.sampled_from(sorted(LINE_KINDS)), min_size=1, max_size=12),
    blank=st.lists(st.booleans(), min_size=12, max_size=12),
    crlf=st.booleans(),
    bom=st.booleans(),
    gz=st.booleans(),
)
def test_fuzz_jsonl_every_line_is_yielded_or_reported(tmp_path, kinds, blank, crlf, bom, gz):
    end = b"\r\n" if crlf else b"\n"
    lines, expected = [], {}
    for i, kind in enumerate(kinds):
        body, outcome = LINE_KINDS[kind](i)
        lines.append(body)
        expected[len(lines)] = outcome
        if blank[i]:
            lines.append(b"  ")
    data = (b"\xef\xbb\xbf" if bom else b"") + end.join(lines) + end
    path = tmp_path / ("a.jsonl.gz" if gz else "a.jsonl")
    path.write_bytes(gzip.compress(data) if gz else data)
    items = _read(path)
    assert not _file_level(items)
    assert _accounted(items) == sorted(expected)  # each line exactly once, blank ones never
    got = {i.line: "record" if isinstance(i, Record) else "skip" for i in items}
    assert got == expected
    for item in items:
        if isinstance(item, Record):
            assert "\x00" not in item.text and item.text.startswith(ABSTRACT[:20])


@pytest.fixture(scope="module")
def real_jsonl() -> bytes:
    """The first 150 records of the shared arXiv corpus, as JSONL bytes."""
    with gzip.open(shared_path("corpora", "ml_abstracts.jsonl.gz"), "rb") as fh:
        return b"".join(itertools.islice(fh, 150))


@pytest.fixture(scope="module")
def real_text() -> bytes:
    return shared_path("corpora", "daily_papers.txt").read_bytes()


def _lines_before(data: bytes, cut: int) -> int:
    return data[:cut].count(b"\n")


@FUZZ
@given(fraction=st.floats(0, 1), gz=st.booleans())
def test_fuzz_cuts_of_real_jsonl(tmp_path, real_jsonl, fraction, gz):
    whole = len(real_jsonl.splitlines())
    cut = int(len(real_jsonl) * fraction)
    path = tmp_path / ("cut.jsonl.gz" if gz else "cut.jsonl")
    if gz:
        packed = gzip.compress(real_jsonl, mtime=0)
        packed = packed[: int(len(packed) * fraction)]
        path.write_bytes(packed)
        try:
            decodable = zlib.decompressobj(wbits=31).decompress(packed)
        except zlib.error:  # cut inside the header
            decodable = b""
    else:
        path.write_bytes(real_jsonl[:cut])
        decodable = real_jsonl[:cut]
    complete = decodable.count(b"\n")
    items = _read(path)
    records = [i for i in items if isinstance(i, Record)]
    skips = [i for i in items if isinstance(i, Skipped)]
    assert [r.line for r in records[:complete]] == list(range(1, complete + 1))
    assert len(records) <= complete + 1 <= whole + 1
    if not decodable.strip():
        assert len(skips) == 1
        return
    partial = not decodable.endswith(b"\n")
    broken = gz and fraction < 1
    # the complete lines are all records; at most one more item, the cut line, or the break
    assert len(items) == complete + (1 if partial or broken else 0)
    if broken:
        (skip,) = skips
        assert skip.line == complete + 1
        assert skip.reason == f"truncated gzip, {complete} records read before the break"


@FUZZ
@given(fraction=st.floats(0, 1), gz=st.booleans())
def test_fuzz_cuts_of_real_text(tmp_path, real_text, fraction, gz):
    cut = int(len(real_text) * fraction)
    path = tmp_path / ("cut.txt.gz" if gz else "cut.txt")
    data = real_text[:cut]
    path.write_bytes(gzip.compress(data) if gz else data)
    items = _read(path)
    paragraphs = [p for p in data.split(b"\n\n") if p.strip()]
    if not paragraphs:
        assert len(_file_level(items)) == 1
        return
    assert len(items) == len(paragraphs)  # one item per paragraph, kept or skipped
    starts = [1 + data[: m.start()].count(b"\n") for m in _paragraph_starts(data)]
    assert [i.line for i in items] == starts


def _paragraph_starts(data: bytes):
    import re

    return re.finditer(rb"(?:^|(?<=\n\n))(?=[^\n])", data)

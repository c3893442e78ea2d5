"""Readers: formats, ids, and every kind of bad input reported with file and line."""

from __future__ import annotations

import gzip
import io
import json
import sys

import pytest

from kg.ingest import FieldMap, Record, Skipped, paper_id_for, read

ABSTRACT = (
    "We propose a new method for image classification that uses a convolutional network "
    "and reaches 91.2% accuracy on a public benchmark, which improves on prior work."
)


def _records(items):
    return [i for i in items if isinstance(i, Record)]


def _skips(items):
    return [i for i in items if isinstance(i, Skipped)]


def test_ingest_text_paragraphs_and_title_skip(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text(f"Daily Papers\n\n{ABSTRACT}\n\n{ABSTRACT.replace('new', 'novel')}\n")
    items = list(read([path]))
    assert len(_records(items)) == 2
    (skip,) = _skips(items)
    assert skip.line == 1 and "not an abstract" in skip.reason
    assert _records(items)[1].line == 5


def test_ingest_content_id_is_stable_under_whitespace():
    assert paper_id_for("a  b\nc") == paper_id_for("a b c")
    assert paper_id_for("a b c").startswith("sha1:") and len(paper_id_for("x")) == 17


def test_ingest_jsonl_fields_and_code_url(tmp_path):
    path = tmp_path / "a.jsonl"
    rows = [
        {
            "id": "p1",
            "title": "T",
            "abstract": ABSTRACT + " Code: https://github.com/o/r.",
            "year": 2024,
            "authors": ["A B", "C D"],
            "url": "u",
        },
        {"paper_id": "p2", "summary": ABSTRACT, "date": "2023-05-01", "authors": "A, B and C"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    r1, r2 = _records(read([path]))
    assert (r1.id, r1.title, r1.year, r1.authors) == ("p1", "T", 2024, ("A B", "C D"))
    assert r1.code_url == "https://github.com/o/r"
    assert (r2.id, r2.year, r2.authors) == ("p2", 2023, ("A", "B", "C"))


def test_ingest_field_mapping_override(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"key": "k1", "body": ABSTRACT}) + "\n")
    (rec,) = _records(read([path], fields=FieldMap.with_overrides({"id": "key", "text": "body"})))
    assert rec.id == "k1" and rec.text == ABSTRACT
    with pytest.raises(ValueError, match="unknown field"):
        FieldMap.with_overrides({"nope": "x"})


def test_ingest_arxiv_snapshot_record(tmp_path):
    path = tmp_path / "arxiv.json"
    obj = {
        "id": "2401.00001",
        "title": "X",
        "abstract": ABSTRACT,
        "update_date": "2024-01-02",
        "authors": "Ann Lee and Bo Chen",
        "categories": "cs.CL cs.LG",
    }
    path.write_text(json.dumps([obj]))
    (rec,) = _records(read([path]))
    assert rec.year == 2024 and rec.categories == ("cs.CL", "cs.LG")
    assert rec.authors == ("Ann Lee", "Bo Chen")


def test_ingest_gzip_and_directory(tmp_path):
    with gzip.open(tmp_path / "a.jsonl.gz", "wt") as fh:
        fh.write(json.dumps({"id": "g1", "abstract": ABSTRACT}) + "\n")
    (tmp_path / "b.txt").write_text(ABSTRACT)
    (tmp_path / "ignored.bin").write_bytes(b"\x00\x01")
    ids = sorted(r.id for r in _records(read([tmp_path])))
    assert ids[0] == "g1" and ids[1].startswith("sha1:")


def test_ingest_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(ABSTRACT.encode())))
    (rec,) = _records(read(["-"]))
    assert rec.source == "-"


def test_ingest_missing_file_is_reported_and_others_still_read(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(ABSTRACT)
    items = list(read([tmp_path / "missing.txt", good]))
    (skip,) = _skips(items)
    assert "missing.txt" in str(skip) and "not found" in skip.reason
    assert len(_records(items)) == 1


def test_ingest_binary_file(tmp_path):
    path = tmp_path / "blob.txt"
    path.write_bytes(b"\x89PNG\r\n\x00\x00\x00binary")
    (skip,) = list(read([path]))
    assert isinstance(skip, Skipped) and "binary" in skip.reason and skip.source == str(path)


def test_ingest_undecodable_bytes_skip_only_that_record(tmp_path):
    path = tmp_path / "a.jsonl"
    good = json.dumps({"id": "ok", "abstract": ABSTRACT}).encode()
    path.write_bytes(
        good + b"\n" + b'{"id": "bad", "abstract": "caf\xe9 \xff"}\n' + good.replace(b"ok", b"ok2")
    )
    items = list(read([path]))
    assert [r.id for r in _records(items)] == ["ok", "ok2"]
    (skip,) = _skips(items)
    assert skip.line == 2 and "not UTF-8" in skip.reason


def test_ingest_undecodable_paragraph_in_text(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(ABSTRACT.encode() + b"\n\nbad \xff\xfe line\n\n" + ABSTRACT.encode())
    items = list(read([path]))
    assert len(_records(items)) == 2
    (skip,) = _skips(items)
    assert skip.line == 3 and "not UTF-8" in skip.reason


def test_ingest_malformed_jsonl_line(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(
        json.dumps({"id": "a", "abstract": ABSTRACT})
        + "\n{not json\n"
        + json.dumps({"id": "b", "abstract": ABSTRACT})
        + "\n"
    )
    items = list(read([path]))
    assert [r.id for r in _records(items)] == ["a", "b"]
    (skip,) = _skips(items)
    assert skip.line == 2 and "malformed JSON" in skip.reason and str(path) in str(skip)


def test_ingest_empty_abstract(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(
        json.dumps({"id": "e", "abstract": "  "})
        + "\n"
        + json.dumps({"id": "b", "abstract": ABSTRACT})
        + "\n"
    )
    items = list(read([path]))
    (skip,) = _skips(items)
    assert skip.line == 1 and "empty abstract" in skip.reason
    assert [r.id for r in _records(items)] == ["b"]


def test_ingest_huge_paragraph_is_skipped(tmp_path):
    path = tmp_path / "a.txt"
    huge = ("word " * 210_000).strip() + "."
    path.write_text(f"{ABSTRACT}\n\n{huge}\n\n{ABSTRACT}")
    items = list(read([path]))
    assert len(_records(items)) == 2
    (skip,) = _skips(items)
    assert skip.line == 3 and "over the limit" in skip.reason


def test_ingest_non_object_json_line(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text("[1, 2]\n")
    (skip,) = list(read([path]))
    assert "expected a JSON object" in skip.reason

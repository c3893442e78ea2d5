"""Readers: formats, ids, and every kind of bad input reported with file and line."""

from __future__ import annotations

import gzip
import io
import json
import sys
import zlib
from pathlib import Path

import pytest

from kg.ingest import FieldMap, Record, Skipped, paper_id_for, read
from kg.ingest.readers import list_inputs

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


def _jsonl_rows(n: int) -> bytes:
    rows = [{"id": f"p{i}", "abstract": f"{ABSTRACT} Variant {i}."} for i in range(n)]
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _decodable(packed: bytes) -> bytes:
    """What any gzip reader can decode of a cut gzip stream."""
    return zlib.decompressobj(wbits=31).decompress(packed)


@pytest.mark.parametrize("n", [3, 400])
def test_ingest_truncated_gzip_keeps_the_records_before_the_break(tmp_path, n):
    packed = gzip.compress(_jsonl_rows(n))
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(packed[: len(packed) * 3 // 4])  # cut inside the compressed stream
    complete = _decodable(path.read_bytes()).count(b"\n")
    assert complete < n
    items = list(read([path]))
    records, (skip,) = _records(items), _skips(items)
    assert [r.id for r in records] == [f"p{i}" for i in range(complete)]
    assert skip.reason == f"truncated gzip, {complete} records read before the break"
    assert skip.line == complete + 1 and str(skip).startswith(f"{path}:{complete + 1}: ")


def test_ingest_truncated_gzip_text_drops_only_the_cut_paragraph(tmp_path):
    text = "\n\n".join(f"{ABSTRACT} Number {i}." for i in range(30)).encode()
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(gzip.compress(text)[:-12])  # the end of the stream and its trailer
    decoded = _decodable(path.read_bytes())
    complete = decoded.count(b"\n\n")  # paragraphs followed by a blank line
    assert 20 < complete < 30
    items = list(read([path]))
    assert len(_records(items)) == complete
    (skip,) = _skips(items)
    assert skip.line == 2 * complete + 1
    assert skip.reason == f"truncated gzip, {complete} records read before the break"


def test_ingest_concatenated_gzip_members(tmp_path):
    path = tmp_path / "two.jsonl.gz"
    path.write_bytes(gzip.compress(_jsonl_rows(2)) + gzip.compress(_jsonl_rows(3)))
    items = list(read([path]))
    assert len(_records(items)) == 5 and not _skips(items)


def test_ingest_bom_and_empty_files(tmp_path):
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + _jsonl_rows(2))
    text_bom = tmp_path / "bom.txt"
    text_bom.write_bytes(b"\xef\xbb\xbf" + ABSTRACT.encode())
    empty, blank = tmp_path / "empty.jsonl", tmp_path / "blank.txt"
    empty.write_bytes(b"")
    blank.write_bytes(b"\n \n\n")
    items = list(read([bom, text_bom, empty, blank]))
    assert [r.id for r in _records(items)][:2] == ["p0", "p1"]
    assert _records(items)[2].text == ABSTRACT  # no BOM left in the text
    assert [str(s) for s in _skips(items)] == [
        f"{empty}: empty file",
        f"{blank}: empty file (only blank lines)",
    ]


def test_ingest_directory_lists_what_it_ignores(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.jsonl").write_bytes(_jsonl_rows(1))
    (tmp_path / "b.txt").write_text(ABSTRACT)
    for name in ("README.md", "LICENSE", "LICENSE-data.txt", "figure.png", "table.csv"):
        (tmp_path / name).write_text("not a paper")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD.txt").write_text(ABSTRACT)
    built = tmp_path / "old-build"
    built.mkdir()
    (built / "kg-build.json").write_text("{}")
    (built / "extractions.jsonl").write_bytes(_jsonl_rows(1))

    listed = list_inputs([tmp_path])
    assert listed.files == (str(tmp_path / "b.txt"), str(tmp_path / "sub" / "a.jsonl"))
    why = {Path(s.source).name: s.reason for s in listed.ignored}
    assert set(why) == {
        "README.md",
        "LICENSE",
        "LICENSE-data.txt",
        "figure.png",
        "table.csv",
        ".git",
        "old-build",
    }
    assert "not abstracts" in why["README.md"] and "not abstracts" in why["LICENSE"]
    assert why["figure.png"] == "ignored: not a text, JSONL or JSON file (.png)"
    assert why[".git"] == "ignored: hidden" and "kg build" in why["old-build"]
    items = list(read([tmp_path]))  # the ignored entries are reported, not dropped
    assert len(_records(items)) == 2 and len(_skips(items)) == 7

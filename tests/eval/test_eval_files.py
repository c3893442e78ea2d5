"""kg eval on files a user wrote (issue 61, items 14, 18, 19): numbers too large, bad
confidences, bad bytes and a BOM are said line by line, a gold paper twice is counted once,
a malformed --pairs file is ``file:line: reason``, and -o never writes over an input."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kg.cli import app
from tests.orchestrate.test_curation import papers_build

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return papers_build(tmp_path_factory, "eval-files")


def _predictions(db) -> list[dict]:
    return [json.loads(line) for line in open(db / "extractions.jsonl", encoding="utf-8")]


def _gold(record: dict, **extra) -> dict:
    return {"text_start": record["text"][:80], "entities": [], "relations": [], "results": [],
            **extra}  # fmt: skip


def _eval(*args):
    return runner.invoke(app, ["eval", *map(str, args)])


def test_eval_a_gold_value_too_large_is_left_out(db, tmp_path):
    gold = tmp_path / "g.jsonl"
    row = {"method": "LoRA", "dataset": None, "metric": None, "value": 10**400, "unit": ""}
    gold.write_text(json.dumps(_gold(_predictions(db)[0], results=[row])) + "\n")
    result = _eval(db, gold)
    assert result.exit_code == 0, result.output
    assert f"{gold}:1: value" in result.output and "too large a number" in result.output


@pytest.mark.parametrize("confidence", ["NaN", "Infinity", '"high"', "-1"])
def test_eval_a_confidence_that_is_no_number_from_0_to_1_is_left_out(db, tmp_path, confidence):
    records = _predictions(db)
    (rec,) = [r for r in records if r["relations"]][:1]
    rec["relations"][0]["confidence"] = "@@"
    pred = tmp_path / "pred.jsonl"
    lines = [json.dumps(r).replace('"@@"', confidence) for r in records]
    pred.write_text("\n".join(lines) + "\n")
    gold = tmp_path / "g.jsonl"
    gold.write_text("".join(json.dumps(_gold(r)) + "\n" for r in records))
    result = _eval(pred, gold, "--format", "json")
    assert result.exit_code == 0, result.output
    scores = json.loads(result.stdout)
    assert any("is no number from 0 to 1" in line for line in scores["left_out"])
    assert all(0 <= c["ece"] <= 1 for c in scores["calibration"].values())


@pytest.mark.parametrize(
    "data, said",
    [(b"type\ta\tb\tsame\tsource\nMethod\tx\ty\tmaybe\tme\n", ":2: expected type, a, b"),
     (b"type\ta\tb\tsame\tsource\nMethod\tx\xff\ty\tyes\tme\n", ":2: not UTF-8 text"),
     (b"name\tother\n", ":1: the header names the columns")],
)  # fmt: skip
def test_eval_a_malformed_pairs_file_names_its_line(db, tmp_path, data, said):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_bytes(data)
    gold = tmp_path / "g.jsonl"
    gold.write_text(json.dumps(_gold(_predictions(db)[0])) + "\n")
    result = _eval(db, gold, "--pairs", pairs)
    assert result.exit_code == 1
    assert result.output.startswith(f"kg: error: {pairs}{said}"), result.output


def test_eval_never_writes_over_its_gold_file(db, tmp_path):
    gold = tmp_path / "g.jsonl"
    text = json.dumps(_gold(_predictions(db)[0])) + "\n"
    gold.write_text(text)
    result = _eval(db, gold, "-o", gold, "--force")
    assert result.exit_code == 1 and "is an input of this command" in result.output
    assert gold.read_text() == text


def test_eval_a_gold_paper_twice_is_counted_once(db, tmp_path):
    gold = tmp_path / "g.jsonl"
    line = json.dumps(_gold(_predictions(db)[0])) + "\n"
    gold.write_text(line + line)
    result = _eval(db, gold, "--format", "json")
    assert result.exit_code == 0, result.output
    scores = json.loads(result.stdout)
    assert scores["papers"] == 1
    assert [s for s in scores["left_out"] if s.startswith(f"{gold}:2: the paper of line 1")]


def test_eval_a_utf8_bom_is_allowed(db, tmp_path):
    gold = tmp_path / "g.jsonl"
    gold.write_bytes(b"\xef\xbb\xbf" + json.dumps(_gold(_predictions(db)[0])).encode() + b"\n")
    result = _eval(db, gold, "--format", "json")
    assert result.exit_code == 0, result.output
    scores = json.loads(result.stdout)
    assert scores["papers"] == 1 and scores["left_out"] == []

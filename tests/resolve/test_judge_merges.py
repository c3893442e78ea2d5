"""The script that draws a build's merges per rule and scores them against verdicts."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.benchmark_scripts import load_benchmark


def _build(tmp_path: Path) -> Path:
    tables = tmp_path / "tables"
    (tables / "locals").mkdir(parents=True)
    merges = [("method:zn", "method:zorp-net", "acronym", "acronym 'ZN'"),
              ("method:qux-nets", "method:qux-net", "separators", "plural"),
              ("method:bar", "method:bar-net", "head word", "head"),
              ("method:qux-netz", "method:qux-net", "separators", "spelling")]  # fmt: skip
    columns = dict(zip(("source", "target", "rule", "reason"), zip(*merges, strict=True),
                       strict=True))  # fmt: skip
    pq.write_table(pa.table({k: list(v) for k, v in columns.items()}), tables / "merges.parquet")
    keys = ["method:zn", "method:zorp-net", "method:qux-nets", "method:qux-net", "method:bar",
            "method:bar-net"]  # fmt: skip
    names = ["ZN", "Zorp Net", "Qux nets", "Qux net", "Bar", "Bar Net"]
    pq.write_table(pa.table({"paper": ["p1", "p2", "p1", "p2", "p1", "p2"], "raw_key": keys,
                             "name": names}), tables / "locals" / "part-0.parquet")  # fmt: skip
    text = "We propose ZN for parsing. It beats Qux nets and Bar."

    def entity(name: str) -> dict:
        return {"name": name, "aliases": [], "mentions": [{"sentence": 0}]}

    record = {"id": "p1", "title": "ZN", "text": text, "sentences": [[0, 26], [27, len(text)]],
              "entities": [entity("ZN")]}  # fmt: skip
    other = {"id": "p2", "title": "Zorp", "text": "Zorp Net is fast.", "sentences": [[0, 17]],
             "entities": [entity("Zorp Net")]}  # fmt: skip
    (tmp_path / "extractions.jsonl").write_text(
        "\n".join(json.dumps(r) for r in (record, other)) + "\n"
    )
    return tmp_path


def test_judge_merges_draws_per_rule_writes_evidence_and_scores_weighted(tmp_path, capsys):
    jm = load_benchmark("judge_merges")
    build = _build(tmp_path / "build")
    drawn, sizes = jm.draw(build, per_rule=5)
    assert sizes == {"acronym": 1, "separators": 2, "head word": 1}
    assert {(m["rule"], m["a"], m["b"]) for m in drawn} == {
        ("acronym", "ZN", "Zorp Net"), ("separators", "Qux nets", "Qux net"),
        ("separators", "method:qux-netz", "Qux net"), ("head word", "Bar", "Bar Net")}  # fmt: skip
    out = tmp_path / "to-judge.jsonl"
    jm.write_to_judge(build, [m for m in drawn if m["rule"] == "acronym"], out)
    item = json.loads(out.read_text())
    assert item["evidence"]["a"] == [
        {"paper": "p1", "title": "ZN", "sentences": ["We propose ZN for parsing."]}
    ]
    assert item["evidence"]["b"][0]["sentences"] == ["Zorp Net is fast."]
    verdicts = tmp_path / "verdicts.tsv"
    with open(verdicts, "w", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(jm.FIELDS)
        w.writerow(["acronym", "method:zn", "method:zorp-net", "ZN", "Zorp Net", "right", "one"])
        w.writerow(["separators", "method:qux-nets", "method:qux-net", "a", "b", "wrong", "two"])
    judgements = tmp_path / "judgements.tsv"
    jm.fold(verdicts, judgements)
    capsys.readouterr()
    jm.report(drawn, sizes, jm.read_judgements(judgements), show=False)
    said = capsys.readouterr().out
    assert "2 unjudged" in said and "head word: none judged" in said
    # acronym 1 of 1 right (1 merge), separators 0 of 1 right (2 merges): (1 + 0) / 3
    assert "weighted by the merges each rule makes: 0.333" in said
    jm.write_pairs(drawn, jm.read_judgements(judgements))  # labelled pairs for merge_pairs.py
    assert capsys.readouterr().out.splitlines() == [
        "Method\tZN\tZorp Net\tyes\tjudged merge: acronym\t",
        "Method\tQux nets\tQux net\tno\tjudged merge: separators\t",
    ]


def test_judge_merges_refuses_verdicts_without_a_reason(tmp_path):
    jm = load_benchmark("judge_merges")
    verdicts = tmp_path / "verdicts.tsv"
    verdicts.write_text("\t".join(jm.FIELDS) + "\nacronym\ta\tb\tA\tB\tright\t\n")
    with pytest.raises(SystemExit, match="without a verdict"):
        jm.fold(verdicts, tmp_path / "judgements.tsv")
    assert not (tmp_path / "judgements.tsv").exists()

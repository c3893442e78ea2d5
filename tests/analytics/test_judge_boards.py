"""The script that samples a build's leaderboards and scores them against verdicts."""

from __future__ import annotations

import json

import pytest

from tests.benchmark_scripts import load_benchmark

TEXT = "We propose ZorpNet. ZorpNet reaches 81.2 zap on QuuxSet, beating BarNet."


def _record(stored: bool) -> dict:
    at = TEXT.index("81.2")
    ev = {"sentence": 1, "text": TEXT[20:], "start": at, "end": at + 4, "rule": "r"}
    if stored:
        m = TEXT.index("ZorpNet", 20)
        ev["method_span"] = [m, m + 7]
        ev["metric_span"] = [at + 5, at + 8]
    ents = [{"id": "method:zorpnet", "mentions": [{"start": 11, "end": 18, "sentence": 0}]},
            {"id": "dataset:quuxset",
             "mentions": [{"start": TEXT.index("Quux"), "end": TEXT.index("Quux") + 7,
                           "sentence": 1}]}]  # fmt: skip
    result = {"id": "result:1", "evidence": ev, "method_id": "method:zorpnet",
              "dataset_id": "dataset:quuxset", "metric_id": None}  # fmt: skip
    return {"id": "p1", "text": TEXT, "sentences": [[0, 19], [20, len(TEXT)]],
            "entities": ents, "results": [result]}  # fmt: skip


def test_judge_boards_marks_stored_offsets_else_nearest_mentions():
    jb = load_benchmark("judge_boards")
    record = _record(stored=True)
    item = jb.marked_item(record, record["results"][0])
    assert item["text"] == "[[ZorpNet]] reaches **81.2** <<zap>> on QuuxSet, beating BarNet."
    assert item["marked_by"] == "stored offsets"
    record = _record(stored=False)
    item = jb.marked_item(record, record["results"][0])
    assert item["sentences"] == [0, 1]  # the method's nearest mention is in sentence 0
    assert item["text"] == (
        "We propose [[ZorpNet]]. ZorpNet reaches **81.2** zap on {{QuuxSet}}, beating BarNet."
    )
    assert item["marked_by"] == "nearest mention of the entity"


def _item(jb, digest_text: str) -> dict:
    evidence = [{"paper": "p1", "text": digest_text}]
    return {"board": {"dataset": "QuuxSet", "metric": "zap"}, "rank": 1,
            "row": {"method": "ZorpNet", "value": 81.2, "unit": "", "paper": "p1",
                    "reported_as": "own"},
            "evidence": evidence, "digest": jb.evidence_digest(evidence)}  # fmt: skip


def test_judge_boards_takes_a_verdict_only_for_the_evidence_judged(tmp_path):
    jb = load_benchmark("judge_boards")
    judged_item = _item(jb, "ZorpNet reaches **81.2** zap")
    key = jb.to_judge(judged_item)["key"]
    tsv = tmp_path / "j.tsv"
    header = "\t".join(jb.FIELDS)
    line = "\t".join([*key.values(), "right", "wrong", "own flag wrong"])
    tsv.write_text(f"# comment\n{header}\n{line}\n", encoding="utf-8")
    judged = jb.read_judgements([tsv])
    other = _item(jb, "ZorpNet reaches **81.2** zap on another set")
    counts, unjudged = jb.score([judged_item, other], judged)
    assert counts["rows"] == [1, 1] and counts["first rows"] == [1, 1]
    assert counts["own vs baseline"] == [0, 1]
    assert unjudged == [other]  # other evidence: unjudged, not guessed


def test_judge_boards_folds_judges_verdicts_under_the_rows_they_were_given(tmp_path):
    jb = load_benchmark("judge_boards")
    items = [_item(jb, "ZorpNet reaches **81.2** zap"), _item(jb, "other **81.2** zap")]
    items[1]["row"] = dict(items[1]["row"], method="", reported_as="")
    to_judge = tmp_path / "to-judge.jsonl"
    to_judge.write_text("".join(json.dumps(jb.to_judge(i)) + "\n" for i in items), "utf-8")
    verdicts = tmp_path / "v.tsv"
    rows = [["paper", "digest", "verdict", "own", "why"],
            ["p1", items[0]["digest"], "right", "right", "its score"],
            ["p1", items[1]["digest"], "wrong", "na", "no method"]]  # fmt: skip
    verdicts.write_text("".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    lines = jb.fold_verdicts(to_judge, [verdicts])
    assert [(x["method"], x["reported_as"], x["verdict"], x["own_verdict"]) for x in lines] == [
        ("ZorpNet", "own", "right", "right"), ("", "", "wrong", "na")]  # fmt: skip
    tsv = tmp_path / "j.tsv"
    with open(tsv, "w", encoding="utf-8") as fh:
        fh.write("\t".join(jb.FIELDS) + "\n")
        fh.writelines("\t".join(x[f] for f in jb.FIELDS) + "\n" for x in lines)
    counts, unjudged = jb.score(items, jb.read_judgements([tsv]))
    assert counts["rows"] == [1, 2] and counts["own vs baseline"] == [1, 1] and not unjudged
    bad = tmp_path / "bad.tsv"
    bad.write_text("paper\tdigest\tverdict\town\twhy\np9\tabc\tright\tright\tx\n", "utf-8")
    with pytest.raises(SystemExit, match="no row of"):
        jb.fold_verdicts(to_judge, [bad])

"""The script that samples a build's edges: bringing the judged calibration edges up to a
new build of their slice."""

from __future__ import annotations

import csv

from tests.benchmark_scripts import load_benchmark

HEADER = ["type", "head", "tail", "support", "confidences", "evidence", "verdict", "why"]


def _edge(head: str, tail: str, text: str, support: int = 1) -> dict:
    evidence = [{"paper": "p1", "text": text}]
    return {"type": "USES", "head": head, "tail": tail, "support": support,
            "confidences": [0.61] * support, "evidence": evidence}  # fmt: skip


def test_refresh_calibration_keeps_drops_and_sends_changed_evidence_to_judge(tmp_path):
    je = load_benchmark("judge_edges")
    same = _edge("ZorpNet", "BERT", "ZorpNet uses BERT.", support=2)
    changed = _edge("QuuxNet", "GPT-2", "QuuxNet now builds on GPT-2.")
    table = tmp_path / "calibration.tsv"
    with open(table, "w", newline="") as fh:
        fh.write("# judged edges\n")
        out = csv.writer(fh, delimiter="\t", lineterminator="\n")
        out.writerow(HEADER)
        out.writerow(["USES", "ZorpNet", "BERT", "1", "0.500",
                      je.evidence_digest(same["evidence"]), "right", "says so"])  # fmt: skip
        out.writerow(["USES", "QuuxNet", "GPT-2", "1", "0.400", "old digest", "wrong", "no"])
        out.writerow(["USES", "BarNet", "T5", "1", "0.300", "gone", "wrong", "no"])
    redo = je.refresh_calibration(table, {"USES": [same, changed]})
    assert [(r["head"], r["kind"]) for r in redo] == [("QuuxNet", "redo")]
    lines = table.read_text().splitlines()
    assert lines[0] == "# judged edges" and len(lines) == 3
    kept = next(csv.DictReader(lines[1:], delimiter="\t"))
    assert (kept["head"], kept["support"], kept["confidences"]) == ("ZorpNet", "2", "0.610,0.610")
    assert kept["verdict"] == "right" and kept["why"] == "says so"

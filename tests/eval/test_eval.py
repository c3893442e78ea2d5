"""Scoring rules of ../shared/gold/README.md on small hand-made records."""

from __future__ import annotations

import json

import pytest

from kg.eval import evaluate, evaluate_files, format_table

TEXT = (
    "Temporal action detection (TAD) is an important yet challenging task in video understanding."
)
GOLD = {
    "text_start": TEXT[:80],
    "entities": [
        {"type": "Task", "name": "temporal action detection", "aliases": ["TAD"]},
        {"type": "Method", "name": "StrideNet", "aliases": []},
        {"type": "Method", "name": "ActionFormer", "aliases": []},
        {"type": "Benchmark", "name": "THUMOS14", "aliases": []},
        {"type": "Metric", "name": "mAP", "aliases": []},
    ],
    "relations": [
        {"head": "StrideNet", "type": "APPLIED_TO", "tail": "temporal action detection"},
        {"head": "StrideNet", "type": "OUTPERFORMS", "tail": "ActionFormer"},
        {"head": "ActionFormer", "type": "COMPARED_WITH", "tail": "StrideNet"},
    ],
    "results": [
        {"method": "StrideNet", "dataset": "THUMOS14", "metric": "mAP", "value": 71.4, "unit": "%"},
        {"method": "StrideNet", "dataset": None, "metric": None, "value": 4, "unit": "x"},
    ],
}


def _ent(i, type_, name, aliases=(), mentions=()):
    return {
        "id": f"{type_.lower()}:{i}",
        "type": type_,
        "name": name,
        "aliases": list(aliases),
        "mentions": [{"text": t} for t in mentions],
    }


PRED = {
    "text": TEXT,
    "entities": [
        _ent(1, "Task", "TAD", mentions=["Temporal Action Detection"]),  # matched via mention
        _ent(2, "Method", "StrideNet"),
        _ent(3, "Dataset", "THUMOS-14"),  # normalises to "thumos 14" != "thumos14"
        _ent(4, "Task", "ActionFormer"),  # wrong type
        _ent(5, "Metric", "mAPs"),  # plural cut -> "map"
    ],
    "relations": [
        {"head": "method:2", "type": "APPLIED_TO", "tail": "task:1"},
        {"head": "method:2", "type": "OUTPERFORMS", "tail": "task:4"},
    ],
    "results": [
        {"value": 71.40001, "metric": "MAP"},
        {"value": 4.0, "metric": "speed"},
    ],
}


def test_eval_entities_typed_and_untyped():
    s = evaluate([GOLD], [PRED])
    assert s["entities"]["matched_pred"] == 3 and s["entities"]["pred"] == 5
    assert s["entities"]["recall"] == pytest.approx(3 / 5)
    assert s["entities_untyped"]["matched_pred"] == 4
    assert s["entities_per_type"]["Dataset"]["gold"] == 1  # Benchmark counts as Dataset
    assert s["entities_per_type"]["Task"]["precision"] == pytest.approx(0.5)


def test_eval_relations_need_both_ends_matched():
    s = evaluate([GOLD], [PRED])
    assert s["relations_per_type"]["APPLIED_TO"]["f1"] == pytest.approx(1.0)
    assert s["relations_per_type"]["OUTPERFORMS"]["matched_pred"] == 0
    assert s["relations"]["gold"] == 3 and s["relations"]["pred"] == 2


def test_eval_compared_with_is_symmetric():
    pred = dict(
        PRED,
        entities=PRED["entities"] + [_ent(6, "Method", "ActionFormer")],
        relations=[{"head": "method:2", "type": "COMPARED_WITH", "tail": "method:6"}],
    )
    s = evaluate([GOLD], [pred])
    assert s["relations_per_type"]["COMPARED_WITH"]["matched_pred"] == 1


def test_eval_scores_relations_at_confidence_thresholds():
    rels = [
        {"head": "method:2", "type": "APPLIED_TO", "tail": "task:1", "confidence": 0.8},
        {"head": "method:2", "type": "OUTPERFORMS", "tail": "task:4", "confidence": 0.4},
    ]
    s = evaluate([GOLD], [dict(PRED, relations=rels)])
    at = s["relations_at_confidence"]
    assert at["0.3"]["pred"] == 2 and at["0.3"]["precision"] == pytest.approx(0.5)
    assert at["0.5"]["pred"] == 1 and at["0.5"]["precision"] == pytest.approx(1.0)
    assert at["0.9"]["pred"] == 0 and at["0.9"]["recall"] == 0
    assert "confidence >= 0.5" in format_table(s)


def test_eval_reports_how_well_confidences_are_calibrated():
    ents = [dict(e, mentions=[{"text": e["name"], "confidence": 0.6}]) for e in PRED["entities"]]
    rels = [dict(r, confidence=c) for r, c in zip(PRED["relations"], (0.95, 0.05), strict=True)]
    s = evaluate([GOLD], [dict(PRED, entities=ents, relations=rels)])
    entities, relations = s["calibration"]["entities"], s["calibration"]["relations"]
    assert entities["items"] == 5 and entities["ece"] == pytest.approx(0.0)  # 3 of 5 right
    (row,) = entities["bins"]
    assert row["low"] == 0.6 and row["right"] == pytest.approx(0.6)
    assert relations["items"] == 2 and relations["ece"] == pytest.approx(0.05)
    assert "calibration error (ECE, 10 bins): entities 0.000 on 5" in format_table(s)


def test_eval_results_value_and_metric():
    s = evaluate([GOLD], [PRED])
    assert s["results"]["matched_pred"] == 1  # 71.4 mAP; 4x has gold metric null
    assert s["results_value_only"]["matched_pred"] == 2


def test_eval_missing_prediction_counts_as_misses():
    s = evaluate([GOLD], [])
    assert s["entities"]["recall"] == 0 and s["papers_without_prediction"]


def test_eval_files_and_table(tmp_path):
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gold.write_text(json.dumps(GOLD) + "\n")
    pred.write_text(json.dumps(PRED) + "\n")
    table = format_table(evaluate_files(gold, pred))
    assert "entities (typed)" in table and "results (value only)" in table
    with pytest.raises(FileNotFoundError):
        evaluate_files(tmp_path / "nope.jsonl", pred)


def test_mention_scoring_on_hand_made_documents(tmp_path, nlp):
    import json as _json

    from kg.eval.mentions import (
        MentionDoc,
        predicted_mentions,
        read_scierc,
        read_scirex,
        score_mentions,
    )

    scierc = tmp_path / "tiny.json"
    scierc.write_text(
        _json.dumps(
            {
                "doc_key": "d1",
                "sentences": [["We", "train", "ResNet", "-LRB-", "a", "CNN", "-RRB-", "."]],
                "ner": [[[2, 2, "Method"], [5, 5, "Generic"]]],
                "relations": [[]],
            }
        )
        + "\n"
    )
    (doc,) = read_scierc(scierc)
    assert doc.tokens[3] == "(" and doc.gold == {(2, 3, "Method")}  # inclusive end, Generic out
    scirex = tmp_path / "tiny.jsonl"
    scirex.write_text(
        _json.dumps({"doc_id": "x", "words": ["on", "ImageNet"], "ner": [[1, 2, "Material"]]})
        + "\n"
    )
    assert next(read_scirex(scirex)).gold == {(1, 2, "Dataset")}

    gold = {(0, 2, "Method"), (3, 4, "Dataset")}
    pairs = [(MentionDoc("a", ["x"] * 5, gold), {(0, 2, "Method"), (3, 4, "Task"), (4, 5, "Task")})]
    s = score_mentions(pairs)
    assert (s["typed"]["matched_pred"], s["typed"]["pred"], s["typed"]["gold"]) == (1, 3, 2)
    assert s["untyped"]["matched_gold"] == 2
    assert s["per_type"]["Dataset"]["recall"] == 0.0

    words = "We evaluate BERT on the SQuAD benchmark and report the F1 score .".split()
    ((_, pred),) = predicted_mentions(nlp, [MentionDoc("b", words)])
    spans = {" ".join(words[s:e]): t for s, e, t in pred}
    assert spans.get("BERT") == "Method" and spans.get("SQuAD") == "Dataset"


def test_eval_scores_the_own_or_baseline_flag_of_results():
    gold = dict(
        GOLD, entities=[dict(e, proposed=e["name"] == "StrideNet") for e in GOLD["entities"]]
    )
    gold["results"] = GOLD["results"] + [
        {"method": "ActionFormer", "dataset": "THUMOS14", "metric": "mAP", "value": 65.0}
    ]
    pred = dict(PRED, results=[
        {"value": 71.4, "metric": "mAP", "own": True},  # right
        {"value": 4.0, "metric": "speed", "own": False},  # wrong: StrideNet is proposed
        {"value": 65.0, "metric": "mAP", "own": False},  # right: a baseline
        {"value": 1.0, "metric": "mAP", "own": True},  # matches no gold row: not counted
    ])  # fmt: skip
    own = evaluate([gold], [pred])["results_own"]
    assert (own["rows"], own["right"], own["own_gold"]) == (3, 2, 2)
    assert "results own or baseline: 0.667 right on 3 rows" in format_table(
        evaluate([gold], [pred])
    )

"""Training the decision that a number is a score, a change or no result
(scripts/train_score_decision.py)."""

from __future__ import annotations

import json
from pathlib import Path

from kg.eval import evaluate
from kg.eval.scoring import gold_value
from kg.nlp.models.perceptron import AveragedPerceptron
from kg.nlp.results.component import find_numbers, parse_number, rule_features
from kg.nlp.results.score_decision import (
    SCORE_CLASSES,
    choose,
    decide,
    number_features,
    rough_sentences,
)
from kg.nlp.text import clean_text_map

NONE_BIAS = -12.0


"""How much the ``none`` class's score is lowered before the decision (a number is dropped
only when the model is that sure): chosen by the --predictions table (docs/quality.md)."""


GRID = (-30.0, -20.0, -15.0, -12.0, -8.0, -5.0, -3.0, -1.0, 0.0)


def paper_examples(text: str, rows: list[dict]) -> list[tuple[list[str], str]]:
    """The features and class of every number of one abstract."""
    scores = {gold_value(r.get("value")) for r in rows if not r.get("delta")}
    deltas = {gold_value(r.get("value")) for r in rows if r.get("delta")}
    out = []
    for s, e in rough_sentences(text):
        sentence = text[s:e]
        for start, end, sign, number, unit in find_numbers(sentence):
            value = parse_number(number)
            if value is None:
                continue
            v = gold_value(value)
            label = "score" if v in scores else "delta" if v in deltas else "none"
            feats = number_features(sentence, start, end, value, unit, sign)
            out.append((feats + rule_features(sentence, start, end, sign), label))
    return out


def train(data: list[tuple[list[str], str]], seeds: int, epochs: int) -> AveragedPerceptron:
    return AveragedPerceptron.ensemble(SCORE_CLASSES, data, seeds=seeds, epochs=epochs, jobs=1)


def fold_models(per_paper: list, folds: int, seeds: int, epochs: int) -> list[AveragedPerceptron]:
    """One model per fold, trained on the other folds' papers."""
    return [
        train([x for i, xs in enumerate(per_paper) if i % folds != k for x in xs], seeds, epochs)
        for k in range(folds)
    ]


def held_out_report(per_paper: list, models: list[AveragedPerceptron], bias: dict) -> dict:
    """Per class: precision and recall of the held-out decisions."""
    pairs = []
    for i, xs in enumerate(per_paper):
        model = models[i % len(models)]
        decided = decide(model, [f for f, _ in xs], bias)
        pairs += [(gold, got) for (_, gold), (got, _) in zip(xs, decided, strict=True)]
    out = {}
    for c in SCORE_CLASSES:
        tp = sum(g == c and p == c for g, p in pairs)
        pred, gold = sum(p == c for _, p in pairs), sum(g == c for g, _ in pairs)
        out[c] = {"precision": round(tp / max(pred, 1), 4), "recall": round(tp / max(gold, 1), 4),
                  "gold": gold, "pred": pred}  # fmt: skip
    return out


def row_features(record: dict, row: dict) -> list[str]:
    """The features of a predicted result row as the pipeline computed them: on its
    sentence's cleaned text (:func:`clean_text_map`), at the number's cleaned offsets."""
    ev = row["evidence"]
    s, e = record["sentences"][ev["sentence"]]
    clean = clean_text_map(record["text"][s:e])
    start = next(i for i, o in enumerate(clean.origin) if o >= ev["start"] - s)
    end = 1 + max(i for i, o in enumerate(clean.origin) if o < ev["end"] - s)
    sign = "+" if clean.text[start - 1 : start] == "+" else ""
    feats = number_features(clean.text, start, end, row["value"], row.get("unit"), sign)
    return feats + rule_features(clean.text, start, end, sign)


def predictions_table(gold: list[dict], path: Path, models: list, folds: int) -> list[dict]:
    """Paper-level result scores of held-out predictions when each fold's model drops the
    rows it calls ``none``, per bias of :data:`GRID` (``None``: nothing dropped)."""
    fold_of = {g["id"]: i % folds for i, g in enumerate(gold)}
    with path.open(encoding="utf-8") as fh:
        preds = [json.loads(line) for line in fh if line.strip()]
    decided = {}
    for p in preds:
        feats = [row_features(p, r) for r in p["results"]]
        decided[p["id"]] = models[fold_of[p["id"]]].scores_many(feats)
    gold_values = {g["id"]: {gold_value(r["value"]) for r in g["results"]} for g in gold}
    table = []
    for bias in (None, *GRID):
        kept_preds, dropped, dropped_in_gold = [], 0, 0
        for p in preds:
            keep = []
            for row, scores in zip(p["results"], decided[p["id"]], strict=True):
                if bias is not None and choose(scores, {"none": bias}) == "none":
                    dropped += 1
                    dropped_in_gold += gold_value(row["value"]) in gold_values.get(p["id"], set())
                    continue
                keep.append(row)
            kept_preds.append({**p, "results": keep})
        scores = evaluate(gold, kept_preds)
        table.append({"none_bias": bias, "dropped": dropped, "dropped_in_gold": dropped_in_gold,
                      "results_f1": scores["results"]["f1"],
                      "value_only_f1": scores["results_value_only"]["f1"]})  # fmt: skip
    return table


def delta_agreement(gold: list[dict], path: Path, models: list, folds: int, bias: float) -> dict:
    """On held-out predicted rows that keep a gold value: how often the model's delta flag
    and the rules' agree with the gold row's (the pipeline takes the model's)."""
    fold_of = {g["id"]: i % folds for i, g in enumerate(gold)}
    by_id = {g["id"]: g for g in gold}
    counts = {"rows": 0, "model": 0, "rules": 0}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            p = json.loads(line)
            for row in p["results"]:
                kind = choose(models[fold_of[p["id"]]].scores(row_features(p, row)), {"none": bias})
                same = [
                    g
                    for g in by_id[p["id"]]["results"]
                    if gold_value(g["value"]) == gold_value(row["value"])
                ]
                if kind == "none" or not same:
                    continue
                delta = all(g.get("delta") for g in same)
                counts["rows"] += 1
                counts["model"] += (kind == "delta") == delta
                counts["rules"] += bool(row["delta"]) == delta
    return counts

"""Train a metric linker of reported results (not shipped: see docs/quality.md).

It learns from held-out predictions of the training abstracts, as
``scripts/cross_validate.py --predictions`` writes them (each paper extracted by models
that never saw it), and their gold result rows: for each predicted number whose value a
gold row has, which of the paper's Metric entities (or none) the gold row names.
A logistic regression (scikit-learn) scores each candidate; the cross-validated accuracy
of the metric slot, against the rules, is printed per fold, and the model trained on
all papers is written. A build uses it with
``--config`` (or ``load_pipeline(overrides=...)``) setting
``components.kg_results.metric_linker.path``.

    python scripts/train_result_linking.py --predictions cv-preds.jsonl \\
        --gold ../shared/gold/train.jsonl --gold ../shared/gold/silver/train.jsonl \\
        --out metric_linker.msgpack
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.eval.scoring import gold_value  # noqa: E402
from kg.names import normalise_name  # noqa: E402
from kg.nlp.models.perceptron import AveragedPerceptron  # noqa: E402
from kg.nlp.results.linking import (  # noqa: E402
    NO_METRIC,
    MetricMention,
    NumberRow,
    candidate_sets,
    link_metric,
    metric_choices,
)


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def paper_rows(pred: dict, gold: dict) -> list[dict]:
    """The predicted rows of a paper matched to gold rows by value (as ``kg eval`` does),
    with the plain data the linker reads and the gold metric's key."""
    mentions = [
        MetricMention(m["text"], m["start"], m["end"], m["sentence"])
        for e in pred["entities"]
        if e["type"] == "Metric"
        for m in e.get("mentions", [])
    ]
    numbers = [
        NumberRow(
            r["evidence"]["start"],
            r["evidence"]["end"],
            r["evidence"]["sentence"],
            r.get("unit"),
            bool(r.get("delta")),
            r.get("metric"),
        )  # fmt: skip
        for r in pred.get("results", [])
        if "start" in (r.get("evidence") or {})
    ]
    used: set[int] = set()
    out = []
    for row in pred.get("results", []):
        ev = row.get("evidence") or {}
        if "start" not in ev:
            continue
        for k, g in enumerate(gold.get("results", [])):
            if k in used or gold_value(row.get("value")) != gold_value(g.get("value")):
                continue
            used.add(k)
            number = NumberRow(
                ev["start"], ev["end"], ev["sentence"], row.get("unit"), bool(row.get("delta")),
                row.get("metric"),
            )  # fmt: skip
            out.append({
                "row": number,
                "mentions": mentions,
                "text": pred["text"],
                "gold": normalise_name(g.get("metric") or ""),
                "rule": normalise_name(row.get("metric") or ""),
                "rows": numbers,
            })  # fmt: skip
            break
    return out


def examples(rows: list[dict]) -> tuple[list[list[str]], list[int]]:
    """Binary examples: the features of each candidate of each row, 1 for the gold one
    (rows whose gold metric is no candidate teach nothing and are left out)."""
    X, y = [], []
    for r in rows:
        choices = metric_choices(r["row"], r["mentions"])
        if r["gold"] != NO_METRIC and r["gold"] not in choices:
            continue
        for key, feats in candidate_sets(r["row"], r["mentions"], r["text"], r["rows"], choices):
            X.append(feats)
            y.append(int(key == r["gold"]))
    return X, y


def fit(rows: list[dict], c: float) -> AveragedPerceptron:
    """A logistic regression over the candidates, as a linear model kg can load."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    X, y = examples(rows)
    if len(set(y)) < 2:  # too few papers to learn from (smoke runs): no weights
        return AveragedPerceptron(["no", "yes"], {}, {"C": c})
    vec = DictVectorizer()
    matrix = vec.fit_transform([dict.fromkeys(f, 1) for f in X])
    lr = LogisticRegression(C=c, max_iter=3000)
    lr.fit(matrix, y)
    weights = {
        name: {"yes": round(float(w), 4)}
        for name, w in zip(vec.get_feature_names_out(), lr.coef_[0], strict=True)
        if round(float(w), 4)
    }
    return AveragedPerceptron(["no", "yes"], weights, {"C": c})


def score(model: AveragedPerceptron | None, rows: list[dict]) -> int:
    """How many rows get the gold metric (the rules' when ``model`` is None)."""
    right = 0
    for r in rows:
        if model is None:
            chosen = r["rule"]
        else:
            mention, _ = link_metric(model, r["row"], r["mentions"], r["text"], r["rows"])
            chosen = normalise_name(mention.text) if mention is not None else NO_METRIC
            if mention is None and r["rule"] not in metric_choices(r["row"], r["mentions"]):
                chosen = r["rule"]  # a metric the rules read from words ("3x faster"), kept
        right += chosen == r["gold"]
    return right


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--predictions", type=Path, required=True)
    parser.add_argument("--gold", type=Path, action="append", required=True)
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--c", type=float, action="append", help="regularisation (repeatable)")
    parser.add_argument("--out", type=Path, required=True, help="the model file to write")
    args = parser.parse_args()
    gold = {g["id"]: g for path in args.gold for g in read_jsonl(path)}
    papers = {}
    for p in read_jsonl(args.predictions):
        if p["id"] in gold and p.get("assignment", 0) == 0:
            papers[p["id"]] = paper_rows(p, gold[p["id"]])
    ids = sorted(papers)
    random.Random(0).shuffle(ids)
    folds = [ids[k :: args.folds] for k in range(args.folds)]
    total = sum(len(papers[i]) for i in ids)
    reachable = sum(
        1
        for i in ids
        for r in papers[i]
        if r["gold"] == NO_METRIC or r["gold"] in metric_choices(r["row"], r["mentions"])
    )
    rule = sum(score(None, papers[i]) for i in ids)
    print(f"{len(ids)} papers, {total} numbers matched to a gold row by value")
    print(f"gold metric among the candidates: {reachable} ({reachable / total:.3f})")
    print(f"rules: metric right for {rule} ({rule / total:.3f})")
    best = None
    biases = [0.0, 0.5, 1.0, 1.5, 2.0]
    for c in args.c or [0.1, 0.3, 1.0]:
        right = dict.fromkeys(biases, 0)
        for k, held in enumerate(folds):
            train = [r for j, f in enumerate(folds) if j != k for i in f for r in papers[i]]
            model = fit(train, c)
            for bias in biases:
                model.meta["null_bias"] = bias
                right[bias] += score(model, [r for i in held for r in papers[i]])
        for bias in biases:
            print(
                f"model C={c}, no-metric bias {bias}: metric right for {right[bias]} "
                f"({right[bias] / total:.3f}), held-out folds"
            )
            if best is None or right[bias] > best[2]:
                best = (c, bias, right[bias])
    c, bias, right = best
    model = fit([r for i in ids for r in papers[i]], c)
    model.meta.update({"null_bias": bias, "cv_metric_accuracy": round(right / total, 4)})
    model.meta["rows"] = total
    model.to_disk(args.out)
    print(f"wrote {args.out} (C={c}, no-metric bias {bias})")


if __name__ == "__main__":
    main()

"""Relation classifier training: pair examples, cross-fitted entities, held-out scores, the
confidence calibration and the precision floor (scripts/train_relations.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from kg.eval.scoring import gold_type
from kg.nlp.models.perceptron import AveragedPerceptron
from kg.nlp.pipeline import load_pipeline
from kg.nlp.relations.pairs import PairCandidate, allowed_types, is_stated
from kg.nlp.text import clean_text
from kg.resolve.keys import normalise_name
from kg.schema import RELATION_TYPES
from kg.train.entities import (
    CLASSES,
    examples_by_paper,
)

RELATION_CLASSES = ["O", *RELATION_TYPES]


BIASES = (-24.0, -20.0, -16.0, -12.0, -8.0, -4.0, 0.0)


FLOOR_PRECISION = 0.9  # relations shown by default are right this often on held-out folds


Example = tuple[list[str], str]


def pair_examples(pairs: list[PairCandidate], gold: dict) -> list[Example]:
    """Return the entity pairs of a paper as ``(features, gold relation type or "O")``."""
    forms: dict[tuple[str, str], str] = {}
    for ent in gold["entities"]:
        for form in [ent["name"], *ent.get("aliases", [])]:
            forms.setdefault((normalise_name(form), gold_type(ent["type"])), ent["name"])
    relations: dict[tuple[str, str], str] = {}
    for rel in gold["relations"]:
        relations.setdefault((rel["head"], rel["tail"]), rel["type"])
        if rel["type"] == "COMPARED_WITH":
            relations.setdefault((rel["tail"], rel["head"]), rel["type"])

    def gold_name(group) -> str | None:
        label = gold_type(group.label)
        for m in group.mentions:
            name = forms.get((normalise_name(m.text), label))
            if name:
                return name
        return forms.get((group.key, label))

    out = []
    for pair in pairs:
        h, t = gold_name(pair.head), gold_name(pair.tail)
        out.append((pair.features, relations.get((h, t), "O") if h and t else "O"))
    return out


def cross_fitted_examples(
    gold: list[dict],
    texts: dict[str, str],
    *,
    folds: int,
    seeds: int,
    epochs: int,
    work: Path,
    config: Path | None = None,
    settings: dict[str, object] | None = None,
) -> list[list[Example]]:
    """Return each paper's pair examples, its entities found by an entity classifier
    trained on the other folds, in the pipeline ``config`` changed by ``settings``."""
    settings = {**(settings or {}), "components.kg_relations.classifier.path": "none"}
    rules_only = load_pipeline(
        config=config, overrides={**settings, "components.kg_entities.classifier.path": "none"}
    )
    entity_examples = examples_by_paper(rules_only, gold, texts)
    per_paper: list[list[Example]] = [[] for _ in gold]
    for fold in range(folds):
        train = [x for k, xs in enumerate(entity_examples) if k % folds != fold for x in xs]
        model = AveragedPerceptron.ensemble(CLASSES, train, seeds=seeds, epochs=epochs, jobs=2)
        path = work / f"entities-{fold}.json"
        model.to_disk(path)
        nlp = load_pipeline(config=config, overrides={
            **settings,
            "components.kg_entities.classifier.path": str(path),
        })  # fmt: skip
        held = [k for k in range(len(gold)) if k % folds == fold and gold[k]["id"] in texts]
        docs = nlp.pipe((clean_text(texts[gold[k]["id"]]) for k in held), batch_size=64)
        relations = nlp.get_pipe("kg_relations")
        for k, doc in zip(held, docs, strict=True):
            per_paper[k] = pair_examples(relations.candidates(doc), gold[k])
        print(f"fold {fold + 1}/{folds}: {len(held)} papers", file=sys.stderr, flush=True)
    return per_paper


def cross_validated_scores(
    per_paper: list[list[Example]], gold: list[dict], *, folds: int, seeds: int, epochs: int
) -> tuple[dict[float, dict[str, float]], list[tuple[float, bool]]]:
    """Relation P/R/F1 at each decision bias, every fold scored by a classifier trained
    on the other folds (recall over all gold relations, found entities or not), and the
    ``(margin, right)`` of every held-out pair's best type, to calibrate on."""
    counts = {b: [0, 0] for b in BIASES}  # true positives, predictions
    margins: list[tuple[float, bool]] = []
    n_gold = sum(len(g["relations"]) for g in gold)
    for fold in range(folds):
        train = [x for k, xs in enumerate(per_paper) if k % folds != fold for x in xs]
        model = AveragedPerceptron.ensemble(RELATION_CLASSES, train, seeds=seeds, epochs=epochs,
                                            jobs=2)  # fmt: skip
        held = [x for k, xs in enumerate(per_paper) if k % folds == fold for x in xs]
        matrix = model.score_matrix([f for f, _ in held])
        for (feats, label), row in zip(held, matrix.tolist(), strict=True):
            allowed = _allowed(feats)
            scores = dict(zip(RELATION_CLASSES, row, strict=True))
            best = max(allowed, key=lambda t: (scores[t], t))
            margin = scores[best] - scores["O"]
            if not is_stated(best, feats):
                continue  # not kept whatever its margin (the extractor's rule)
            margins.append((margin, best == label))
            for b in BIASES:
                if margin >= b:
                    counts[b][1] += 1
                    counts[b][0] += best == label
    out = {}
    for b, (tp, pred) in counts.items():
        p, r = tp / max(pred, 1), tp / max(n_gold, 1)
        out[b] = {"precision": round(p, 4), "recall": round(r, 4),
                  "f1": round(2 * p * r / max(p + r, 1e-9), 4), "pred": pred}  # fmt: skip
    return out, margins


def platt_calibration(margins: list[tuple[float, bool]], steps: int = 50) -> tuple[float, float]:
    """Return ``(a, b)`` so that ``1 / (1 + exp(-(a * margin + b)))`` is the chance that a
    pair's best type is right (Platt scaling, fitted by Newton's method)."""
    x = np.array([m for m, _ in margins], dtype=float)
    y = np.array([r for _, r in margins], dtype=float)
    a, b = 0.1, 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(a * x + b)))
        w = np.maximum(p * (1 - p), 1e-9)
        grad = np.array([((p - y) * x).sum(), (p - y).sum()])
        hess = np.array([[(w * x * x).sum(), (w * x).sum()], [(w * x).sum(), w.sum()]])
        a, b = np.array([a, b]) - np.linalg.solve(hess + 1e-6 * np.eye(2), grad)
    return round(float(a), 4), round(float(b), 4)


def reliability(margins: list[tuple[float, bool]], ab: tuple[float, float]) -> list[str]:
    """Lines of a reliability table: of the pairs given a confidence in each bin, how many
    were right."""
    a, b = ab
    bins: dict[int, list[int]] = {}
    for m, right in margins:
        p = 1 / (1 + np.exp(-(a * m + b)))
        slot = bins.setdefault(min(int(p * 10), 9), [0, 0])
        slot[0] += right
        slot[1] += 1
    return [f"  confidence {k / 10:.1f}-{(k + 1) / 10:.1f}: {r / n:.3f} right of {n}"
            for k, (r, n) in sorted(bins.items())]  # fmt: skip


def precision_floor(
    margins: list[tuple[float, bool]], ab: tuple[float, float], target: float = FLOOR_PRECISION
) -> tuple[float, float, int]:
    """Return the least confidence (two decimals) at and above which the held-out pairs
    are right at least ``target`` of the time, that precision and how many pairs it keeps:
    the floor below which relations are hidden by default."""
    a, b = ab
    confs = sorted(((round(1 / (1 + np.exp(-(a * m + b))), 3), r) for m, r in margins),
                   reverse=True)  # fmt: skip
    floor, kept, right, best = 1.0, 0, 0, (1.0, 1.0, 0)
    for conf, ok in confs:
        kept += 1
        right += ok
        if right / kept >= target:
            floor = conf
            best = (float(np.ceil(floor * 100) / 100), right / kept, kept)
    return best


def _allowed(feats: list[str]) -> list[str]:
    pair = next(f for f in feats if f.startswith("pair=")).removeprefix("pair=")
    head, tail = pair.split(">")
    return allowed_types(head, tail)

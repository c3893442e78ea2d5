"""Trained result linking: which metric a reported number is for.

The rules of :mod:`kg.nlp.results.component` take a Metric mention right beside the number, or
none. This model chooses among every Metric the paper names (the mention of each name
nearest to the number) and "no metric", by a linear score over features of the number,
the candidate and the words between them. It is trained on held-out predictions of the
training abstracts (``scripts/train_result_linking.py``), so it learns from entities as
the pipeline finds them on unseen papers.

Everything here works on plain data (character offsets), the same in training and in
the pipeline.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from kg.names import normalise_name
from kg.nlp.models.perceptron import AveragedPerceptron

__all__ = [
    "NO_METRIC",
    "MetricMention",
    "NumberRow",
    "linking_features",
    "candidate_sets",
    "link_metric",
    "metric_choices",
    "number_order",
]

NO_METRIC = ""
"""The candidate that says: this number has no metric in the text."""

_NUMBER = re.compile(r"\d")
_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")


@dataclass(frozen=True)
class MetricMention:
    """A Metric mention: its text, character span and sentence index."""

    text: str
    start: int
    end: int
    sentence: int


@dataclass(frozen=True)
class NumberRow:
    """A reported number: its span, sentence, unit, delta flag and the rules' metric."""

    start: int
    end: int
    sentence: int
    unit: str | None
    delta: bool
    rule_metric: str | None


def metric_choices(row: NumberRow, mentions: Sequence[MetricMention]) -> dict[str, MetricMention]:
    """The candidate metrics of ``row``: for each metric name (normalised), its mention
    nearest to the number (the same sentence first)."""
    best: dict[str, tuple[tuple[int, int], MetricMention]] = {}
    for m in mentions:
        key = normalise_name(m.text)
        if not key:
            continue
        rank = (abs(m.sentence - row.sentence), _gap(row, m))
        if key not in best or rank < best[key][0]:
            best[key] = (rank, m)
    return {key: m for key, (_, m) in best.items()}


def _gap(row: NumberRow, m: MetricMention) -> int:
    return m.start - row.end if m.start >= row.end else row.start - m.end


def _bucket(n: int) -> str:
    for top in (0, 1, 2, 3, 5, 8, 12, 20, 40):
        if n <= top:
            return str(top)
    return "more"


def linking_features(
    row: NumberRow,
    key: str,
    mention: MetricMention | None,
    text: str,
    choices: dict[str, MetricMention],
    counts: dict[str, int],
    order: int | None = None,
) -> list[str]:
    """Features of choosing ``key`` (:data:`NO_METRIC` with ``mention`` None) for ``row``;
    ``order`` is the row's place among the numbers of its sentence when it has several
    (a list of metrics meets its list of values in order: "A and B of 1 and 2")."""
    unit = row.unit or "none"
    rule = normalise_name(row.rule_metric or "")
    same = [m for m in choices.values() if m.sentence == row.sentence]
    if mention is None:
        feats = ["null", f"null|unit={unit}", f"null|delta={row.delta}"]
        feats += [f"null|rule={bool(rule)}", f"null|in_sentence={_bucket(len(same))}"]
        feats.append(f"null|in_paper={_bucket(len(choices))}")
        return feats
    before = mention.end <= row.start
    side = "before" if before else "after"
    gap_text = text[mention.end : row.start] if before else text[row.end : mention.start]
    words = [w.lower() for w in _WORD.findall(gap_text)]
    sent_diff = mention.sentence - row.sentence
    where = "same" if sent_diff == 0 else f"sent{max(-2, min(2, sent_diff)):+d}"
    dist = _bucket(len(words))
    head = normalise_name(mention.text).rsplit(" ", 1)[-1]
    feats = ["metric", f"where={where}", f"where={where}|side={side}"]
    feats += [f"dist={where}|{side}|{dist}", f"rule_pick={key == rule}"]
    if rule and key != rule:
        feats.append("rule_picked_other")
    if sent_diff == 0:
        nearer = sum(
            1
            for m in same
            if m is not mention and _gap(row, m) < _gap(row, mention) and _gap(row, m) >= 0
        )
        feats.append(f"rank_in_sentence={min(nearer, 2)}")
        feats.append(f"rank_in_sentence={min(nearer, 2)}|{side}")
    feats.append(f"numbers_between={min(len(_NUMBER.findall(gap_text)), 2)}")
    if order is not None and sent_diff == 0:
        listed = sorted(same, key=lambda m: m.start)
        place = listed.index(mention) if mention in listed else -1
        feats.append(f"order_match={place == order}")
        feats.append(f"order_match={place == order}|respectively={'respectively' in words}")
    for mark in (";", ",", "(", ")", ":"):
        if mark in gap_text:
            feats.append(f"gap_has={mark}")
    if words and len(words) <= 4:
        feats.append(f"gap_first={side}|{words[0]}")
        feats.append(f"gap_last={side}|{words[-1]}")
    if not words:
        feats.append(f"adjacent|{side}")
    feats.append(f"head={head}")
    feats.append(f"head={head}|unit={unit}")
    feats.append(f"unit={unit}|side={side}")
    feats.append(f"delta={row.delta}|side={side}")
    feats.append(f"mentions={_bucket(counts.get(key, 1))}")
    feats.append(f"words={min(len(key.split()), 4)}")
    return feats


def number_order(row: NumberRow, rows: Sequence[NumberRow]) -> int | None:
    """``row``'s place among the numbers of its sentence (None when it is alone)."""
    same = sorted(r.start for r in rows if r.sentence == row.sentence)
    return same.index(row.start) if len(same) > 1 and row.start in same else None


def candidate_sets(
    row: NumberRow,
    mentions: Sequence[MetricMention],
    text: str,
    rows: Sequence[NumberRow] = (),
    choices: dict[str, MetricMention] | None = None,
) -> list[tuple[str, list[str]]]:
    """Each candidate of ``row`` (:data:`NO_METRIC` first, then the metric names in order)
    with its features: what the linker scores, in training and in the pipeline alike."""
    choices = metric_choices(row, mentions) if choices is None else choices
    order = number_order(row, rows)
    counts: dict[str, int] = {}
    for m in mentions:
        key = normalise_name(m.text)
        counts[key] = counts.get(key, 0) + 1
    return [
        (k, linking_features(row, k, choices.get(k), text, choices, counts, order))
        for k in [NO_METRIC, *sorted(choices)]
    ]


def link_metric(
    model: AveragedPerceptron,
    row: NumberRow,
    mentions: Sequence[MetricMention],
    text: str,
    rows: Sequence[NumberRow] = (),
) -> tuple[MetricMention | None, float]:
    """The metric mention ``model`` chooses for ``row`` (None: no metric), and the
    probability it gives that choice among the candidates; ``rows`` are all the numbers
    of the paper (their order in a sentence is a feature)."""
    choices = metric_choices(row, mentions)
    candidates = candidate_sets(row, mentions, text, rows, choices)
    keys = [key for key, _ in candidates]
    feature_sets = [feats for _, feats in candidates]
    column = model.classes.index("yes")
    scores = model.score_matrix(feature_sets)[:, column].tolist()
    scores[0] += model.meta.get("null_bias", 0.0)  # chosen by cross-validation
    top = max(scores)
    total = sum(math.exp(s - top) for s in scores)
    best = max(range(len(keys)), key=lambda i: (scores[i], -i))
    return choices.get(keys[best]), 1.0 / total * math.exp(scores[best] - top)

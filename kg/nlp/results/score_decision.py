"""Whether a number in an abstract is a reported score, a change, or no result at all.

A number the rules of :mod:`kg.nlp.results.component` read as a result may be a count ("8 GPUs"),
a training step ("after 400 steps"), a size, the level of an interval ("95% CI"), a list
index ("BLEU 1-4") or a change ("drops by 11.5"). A learned classifier over the words
around the number decides among three classes: ``score`` (a method's value on a data set
in a metric), ``delta`` (an improvement, reduction or speed-up: a result, not a score)
and ``none`` (no result). It is trained on every number of the 1,340 training abstracts,
labelled by their annotated result rows (``scripts/train_score_decision.py``).

Everything here works on plain text and character offsets, the same in training and in
the pipeline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kg.nlp.models.perceptron import AveragedPerceptron

__all__ = [
    "SCORE_CLASSES",
    "choose",
    "decide",
    "number_features",
    "rough_sentences",
]

SCORE_CLASSES = ("none", "delta", "score")
"""What a number is: no result, a change, or a score."""

_TOKEN = re.compile(r"[A-Za-z]+|\d+(?:[.,]\d+)*|[^\sA-Za-z\d]")
_DIGITS = re.compile(r"\d")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")
WINDOW = 4
"""Words each side of the number whose identity and place are features."""


def rough_sentences(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each sentence of ``text``, cut after ``.``, ``!`` or ``?``
    before a capital (training has no parser; the pipeline passes spaCy's sentences).

    >>> rough_sentences("A is 1.5. B is 2.")
    [(0, 9), (10, 17)]
    """
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        out.append((start, m.start()))
        start = m.end()
    return [*out, (start, len(text))]


def _shape(token: str) -> str:
    """A token as a feature: words lower case, numbers by shape ("0.0", "0")."""
    if _DIGITS.match(token):
        return "NUM.D" if re.search(r"[.,]\d", token) else "NUM"
    return token.lower()


def _magnitude(value: float) -> str:
    for top in (1, 10, 100, 1000, 10000):
        if value < top:
            return f"<{top}"
    return "big"


def number_features(
    sentence: str, start: int, end: int, value: float, unit: str | None, sign: str = ""
) -> list[str]:
    """The features of the number at ``sentence[start:end]`` (its unit included).

    >>> feats = number_features("It reaches 81.2% accuracy.", 11, 16, 81.2, "%")
    >>> "next1=accuracy" in feats and "prev1=reaches" in feats and "unit=%" in feats
    True
    """
    left = [_shape(t) for t in _TOKEN.findall(sentence[:start])][-WINDOW:]
    right = [_shape(t) for t in _TOKEN.findall(sentence[end:])][:WINDOW]
    written = sentence[start:end]
    kind = "dec" if re.search(r"\d[.,]\d", written) else "int"
    unit_name, mag = unit or "none", _magnitude(value)
    feats = ["bias", f"unit={unit_name}", f"kind={kind}", f"mag={mag}",
             f"mag={mag}|unit={unit_name}|{kind}", f"sign={bool(sign)}"]  # fmt: skip
    for i, word in enumerate(reversed(left), 1):
        feats += [f"prev{i}={word}", f"prev_any={word}"]
    for i, word in enumerate(right, 1):
        feats += [f"next{i}={word}", f"next_any={word}"]
    if len(left) >= 2:
        feats.append(f"prev2_1={left[-2]}_{left[-1]}")
    if len(right) >= 2:
        feats.append(f"next1_2={right[0]}_{right[1]}")
    feats.append(f"around={left[-1] if left else '^'}_{right[0] if right else '$'}")
    numbers = len(re.findall(r"\d+(?:[.,]\d+)?", sentence))
    feats.append(f"numbers_in_sentence={min(numbers, 6)}")
    if "respectively" in sentence.lower():
        feats.append("respectively")
    return feats


def decide(
    model: AveragedPerceptron, feature_sets: Sequence[list[str]], bias: dict[str, float]
) -> list[tuple[str, dict[str, float]]]:
    """The class of each number and its scores, each class's score moved by ``bias``
    (chosen by cross-validation: how sure the model must be before it drops a number)."""
    return [(choose(scores, bias), scores) for scores in model.scores_many(feature_sets)]


def choose(scores: dict[str, float], bias: dict[str, float]) -> str:
    """The class of the best score after ``bias`` (ties: a result over no result).

    >>> choose({"none": 1.0, "delta": 0.0, "score": 0.5}, {"none": -1.0})
    'score'
    """
    moved = {c: scores.get(c, 0.0) + bias.get(c, 0.0) for c in SCORE_CLASSES}
    return max(SCORE_CLASSES, key=lambda c: (moved[c], SCORE_CLASSES.index(c)))

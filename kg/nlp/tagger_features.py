"""What the entity recognizer reads of the encoder tagger's outputs
(``doc._.kg_tagger``, :mod:`kg.nlp.tagger`): the spans it tags, as candidates, and what it
says of any candidate span, as features of the classifier."""

from __future__ import annotations

import numpy as np

from kg.nlp.phrases import Candidate
from kg.nlp.tagger import TAGS, TYPES

__all__ = ["tagger_candidates", "tagger_features"]

_B = [TAGS.index(f"B-{t}") for t in TYPES]
_I = [TAGS.index(f"I-{t}") for t in TYPES]


def tagger_candidates(probs: np.ndarray) -> list[Candidate]:
    """The spans the tagger tags (each token's most likely tag; a span opens at B-X, or at
    an I-X that follows no X, and goes on over I-X), typed by it.

    >>> o, b, i = [1.0] + [0.0] * 8, [0, 1.0] + [0.0] * 7, [0, 0, 1.0] + [0.0] * 6
    >>> [(c.start, c.end, c.label) for c in tagger_candidates(np.array([o, b, i, o, i]))]
    [(1, 3, 'Method'), (4, 5, 'Method')]
    """
    best = probs.argmax(axis=1) if len(probs) else np.zeros(0, dtype=int)
    out, start, kind = [], None, None
    for k, tag in enumerate([TAGS[t] for t in best.tolist()] + ["O"]):
        prefix, _, label = tag.partition("-")
        if start is not None and not (prefix == "I" and label == kind):
            out.append(Candidate(start, k, kind, "tagger"))
            start, kind = None, None
        if prefix == "B" or (prefix == "I" and start is None):
            start, kind = k, label
    return out


def _bin(p: float) -> int:
    return min(int(p * 5), 4)


def tagger_features(probs: np.ndarray, start: int, end: int) -> list[str]:
    """What the tagger says of tokens ``[start, end)``: how likely the span is each type
    (its tokens' mean of B- and I-), whether it opens as a mention and ends as one (the
    token after it going on with I- means the span is cut short), binned in fifths.

    >>> o, b, i = [1.0] + [0.0] * 8, [0, 1.0] + [0.0] * 7, [0, 0, 1.0] + [0.0] * 6
    >>> tagger_features(np.array([o, b, i, o]), 1, 3)
    ['tg_type=Method:4', 'tg_open=4', 'tg_first_inside=0', 'tg_after_inside=0', 'tg_o=0']
    """
    rows = probs[start:end]
    typed = rows[:, _B].mean(axis=0) + rows[:, _I].mean(axis=0)
    best = int(typed.argmax())
    feats = [f"tg_type={TYPES[best]}:{_bin(float(typed[best]))}"]
    feats += [
        f"tg_open={_bin(float(probs[start, _B].sum()))}",
        f"tg_first_inside={_bin(float(probs[start, _I].sum()))}",
        f"tg_after_inside={_bin(float(probs[end, _I].sum())) if end < len(probs) else 0}",
        f"tg_o={_bin(float(rows[:, 0].mean()))}",
    ]
    return feats

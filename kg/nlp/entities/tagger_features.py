"""What the entity recognizer reads of the encoder tagger's outputs
(``doc._.kg_tagger``, :mod:`kg.nlp.models.tagger`): the spans it tags, as candidates, and what it
says of any candidate span, as features of the classifier."""

from __future__ import annotations

import numpy as np
from spacy.tokens import Doc

from kg.nlp.entities.phrases import Candidate
from kg.nlp.models.tagger import TAGS, TYPES

__all__ = ["tagger_candidates", "tagger_features"]

_B = [TAGS.index(f"B-{t}") for t in TYPES]
_I = [TAGS.index(f"I-{t}") for t in TYPES]


def tagger_candidates(doc: Doc, probs: np.ndarray) -> list[Candidate]:
    """The spans the tagger tags, typed by it: a token is inside a mention when the
    tagger gives "O" less than half; a mention opens where the token before is outside,
    or where B- outweighs I- on a token that follows a space (a word cut by a hyphen stays
    one mention); its type is the one with the most B- and I- over its tokens; punctuation
    at either end is left out.

    >>> import spacy
    >>> words = ["a", "ResNet", "-", "50", "model", "."]
    >>> doc = Doc(spacy.blank("en").vocab, words, [1, 0, 0, 1, 0, 0])
    >>> o, b, i = np.eye(len(TAGS))[[0, TAGS.index("B-Method"), TAGS.index("I-Method")]]
    >>> probs = np.array([o, b, b, b, o, b])
    >>> [doc[c.start : c.end].text for c in tagger_candidates(doc, probs)]
    ['ResNet-50']
    """
    if not len(probs):
        return []
    inside = probs[:, 0] < 0.5
    opens = probs[:, _B].sum(axis=1) > probs[:, _I].sum(axis=1)
    spans, start = [], None
    for k in range(len(doc) + 1):
        attached = k < len(doc) and k > 0 and not doc[k - 1].whitespace_
        if start is not None and (k == len(doc) or not inside[k] or (opens[k] and not attached)):
            spans.append((start, k))
            start = None
        if k < len(doc) and inside[k] and start is None:
            start = k
    out = []
    for start, end in spans:
        while start < end and doc[start].is_punct:
            start += 1
        while end > start and doc[end - 1].is_punct:
            end -= 1
        if end > start:
            mass = probs[start:end][:, _B].sum(axis=0) + probs[start:end][:, _I].sum(axis=0)
            out.append(Candidate(start, end, TYPES[int(mass.argmax())], "tagger"))
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

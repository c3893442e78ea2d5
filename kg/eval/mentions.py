"""Mention-level scores on token-annotated corpora (SciERC, SciREX): typed exact spans.

Our recognizer reads plain text; the documents are rebuilt from their tokens with single
spaces, and each predicted span is mapped back to the tokens it covers. A prediction
counts when its token span and type equal a gold mention's. SciERC's ``Material`` and
SciREX's ``Material`` are scored as ``Dataset``; other SciERC types are not scored.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kg.eval.scoring import Score

__all__ = ["MentionDoc", "read_scierc", "read_scirex", "predicted_mentions", "score_mentions"]

_TYPES = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Dataset"}
_PTB = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}"}


@dataclass
class MentionDoc:
    """A document as tokens, with gold mentions as ``(start, end exclusive, type)``."""

    id: str
    tokens: list[str]
    gold: set[tuple[int, int, str]] = field(default_factory=set)


def read_scierc(path: str | Path) -> Iterator[MentionDoc]:
    """Read SciERC's processed JSON lines (document-level offsets, inclusive ends)."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            tokens = [_PTB.get(t, t) for sent in doc["sentences"] for t in sent]
            gold = {
                (s, e + 1, _TYPES[label])
                for sent in doc["ner"]
                for s, e, label in sent
                if label in _TYPES
            }
            yield MentionDoc(doc["doc_key"], tokens, gold)


def read_scirex(path: str | Path) -> Iterator[MentionDoc]:
    """Read SciREX documents (``words``, ``ner`` with exclusive ends), ``.gz`` or plain."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            gold = {(s, e, _TYPES[label]) for s, e, label in doc["ner"] if label in _TYPES}
            yield MentionDoc(doc["doc_id"], list(doc["words"]), gold)


def _text(tokens: list[str]) -> tuple[str, list[int]]:
    starts, pos = [], 0
    for tok in tokens:
        starts.append(pos)
        pos += len(tok) + 1
    return " ".join(tokens), starts


def predicted_mentions(
    nlp, docs: Iterable[MentionDoc], batch_size: int = 16
) -> Iterator[tuple[MentionDoc, set[tuple[int, int, str]]]]:
    """Run ``nlp`` over the documents; yield each with its predicted token spans."""
    from bisect import bisect_right

    from kg.nlp.extensions import ENTITY_SPANS

    def texts():
        for doc in docs:
            text, starts = _text(doc.tokens)
            yield text, (doc, starts)

    for parsed, (doc, starts) in nlp.pipe(texts(), batch_size=batch_size, as_tuples=True):
        pred = set()
        for span in parsed.spans.get(ENTITY_SPANS, []):
            first = bisect_right(starts, span.start_char) - 1
            last = bisect_right(starts, span.end_char - 1) - 1
            if span.label_ in _TYPES.values():
                pred.add((first, last + 1, span.label_))
        yield doc, pred


def score_mentions(pairs: Iterable[tuple[MentionDoc, set[tuple[int, int, str]]]]) -> dict:
    """Return typed and untyped exact-span scores, overall and per type."""
    typed, untyped = Score(), Score()
    per_type: dict[str, Score] = {t: Score() for t in sorted(set(_TYPES.values()))}
    docs = 0
    for doc, pred in pairs:
        docs += 1
        hits = pred & doc.gold
        typed.add(len(hits), len(pred), len(hits), len(doc.gold))
        pred_spans = {(s, e) for s, e, _ in pred}
        gold_spans = {(s, e) for s, e, _ in doc.gold}
        both = pred_spans & gold_spans
        untyped.add(len(both), len(pred_spans), len(both), len(gold_spans))
        for t, score in per_type.items():
            p = {m for m in pred if m[2] == t}
            g = {m for m in doc.gold if m[2] == t}
            score.add(len(p & g), len(p), len(p & g), len(g))
    return {
        "documents": docs,
        "typed": typed.as_dict(),
        "untyped": untyped.as_dict(),
        "per_type": {t: s.as_dict() for t, s in per_type.items()},
    }

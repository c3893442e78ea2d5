"""The entity pairs of a paper and what a trained classifier scores them by.

A paper-level relation joins two *entities*, not two mentions: every mention of a name
(and of its acronym) stands for one entity. :func:`entity_groups` gathers a doc's
mentions into such groups and :func:`pair_candidates` lists the ordered pairs of groups
that some relation type can join, with features: their types, whether either is the
paper's own method, what the rules found between them, how near their mentions are, the
words and the syntactic head between their closest mentions. The relation classifier
(:class:`~kg.nlp.relations.component.RelationExtractor` with a ``classifier``) types or rejects each
pair.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import combinations

from spacy.tokens import Doc, Span

from kg.names import normalise_name
from kg.nlp.entities.phrases import SentenceIndex
from kg.nlp.extensions import doc_data, mention_key
from kg.schema import RELATION_ENDS

__all__ = [
    "EntityGroup",
    "PairCandidate",
    "NEAR_MENTIONS",
    "entity_groups",
    "iter_pair_candidates",
    "pair_candidates",
    "allowed_types",
    "STATED_ONLY",
    "is_stated",
]

_MAX_BETWEEN = 12  # tokens between two mentions still read as words between

NEAR_MENTIONS = 64
"""Two entities are a candidate pair when a mention of one lies within this many mentions
of a mention of the other, in text order. An abstract names far fewer (at most 36 in the
240 abstracts of the sample and silver test), so in an abstract every pair is a candidate;
in a much longer text the candidates grow with its length, not with its square."""


@dataclass
class EntityGroup:
    """The mentions of one entity in a doc (a name, its acronym and their repeats)."""

    key: str
    label: str
    mentions: list[Span] = field(default_factory=list)

    @property
    def first(self) -> Span:
        return self.mentions[0]


@dataclass(frozen=True)
class PairCandidate:
    """An ordered pair of entity groups, the mentions that stand for it and its features."""

    head: EntityGroup
    tail: EntityGroup
    head_mention: Span
    tail_mention: Span
    sentence: int
    features: list[str]


STATED_ONLY = {"OUTPERFORMS": "OUTPERFORMS:beat_verb"}
"""Relation types a pair is given only where a sentence states them, head to tail: the
rule that must have read the pair (``{type}:{rule}`` of its ``rule=`` feature). A win is
read from "X outperforms Y" and its kin, never from two names listed together: on
held-out folds the classifier's OUTPERFORMS pairs that no such rule read were right 13
times in 62, those it read 28 in 58 (relation F1 0.3550 with them, 0.3549 without)."""


def is_stated(rtype: str, features: list[str]) -> bool:
    """Whether a pair with ``features`` may be typed ``rtype``: any type but those of
    :data:`STATED_ONLY`, and those where their rule read the pair in its direction.

    >>> is_stated("OUTPERFORMS", ["Method>Method|rule=OUTPERFORMS:beat_verb"])
    True
    >>> is_stated("OUTPERFORMS", ["Method>Method|rev_rule=OUTPERFORMS:beat_verb"])
    False
    >>> is_stated("USES", [])
    True
    """
    need = STATED_ONLY.get(rtype)
    return need is None or any(f.endswith(f"|rule={need}") for f in features)


def allowed_types(head_label: str, tail_label: str) -> list[str]:
    """Return the relation types whose ends admit ``head_label`` -> ``tail_label``.

    >>> allowed_types("Method", "Method")
    ['USES', 'OUTPERFORMS', 'COMPARED_WITH']
    >>> allowed_types("Metric", "Task")
    []
    """
    return [t for t, (h, k) in RELATION_ENDS.items() if head_label in h and tail_label in k]


def entity_groups(doc: Doc, mentions: Iterable[Span]) -> list[EntityGroup]:
    """Group mentions by normalised name, an acronym with its defining long form; groups
    come in the order of their first mention."""
    mentions = sorted(mentions, key=lambda m: m.start)
    by_end = {m.end_char: m for m in mentions}
    alias: dict[str, str] = {}
    for item in doc_data(doc, "kg_abbreviations"):
        long = by_end.get(item["long"][1])
        if long is not None and long.start_char >= item["long"][0]:
            short = doc.text[item["short"][0] : item["short"][1]]
            alias[normalise_name(short)] = normalise_name(long.text)
    groups: dict[tuple[str, str], EntityGroup] = {}
    for m in mentions:
        key = normalise_name(m.text)
        key = alias.get(key, key)
        group = groups.setdefault((key, m.label_), EntityGroup(key, m.label_))
        group.mentions.append(m)
    return list(groups.values())


def pair_candidates(
    doc: Doc,
    groups: list[EntityGroup],
    rule_relations: list[dict],
    main: Span | None,
    sentences: SentenceIndex,
) -> list[PairCandidate]:
    """Return every candidate pair of distinct groups that a relation type can join, with
    the features the relation classifier scores it by (:func:`iter_pair_candidates`)."""
    return list(iter_pair_candidates(doc, groups, rule_relations, main, sentences))


def near_pairs(groups: list[EntityGroup], near: int = NEAR_MENTIONS) -> Iterator[tuple[int, int]]:
    """Yield the ordered pairs ``(h, t)`` of distinct groups, in ``h, t`` order, that have
    mentions at most ``near`` mentions apart in text order (all pairs when the groups have
    ``near + 1`` mentions or fewer).

    >>> from types import SimpleNamespace as NS
    >>> g = [EntityGroup(k, "Method", [NS(start=i)]) for k, i in (("a", 0), ("b", 5), ("c", 9))]
    >>> list(near_pairs(g, near=1))
    [(0, 1), (1, 0), (1, 2), (2, 1)]
    """
    order = sorted((m.start, g) for g, group in enumerate(groups) for m in group.mentions)
    if len(order) <= near + 1:
        pairs = set(combinations(range(len(groups)), 2))
    else:
        pairs = set()
        for i, (_, a) in enumerate(order):
            for _, b in order[i + 1 : i + 1 + near]:
                if a != b:
                    pairs.add((min(a, b), max(a, b)))
    yield from sorted(pairs | {(t, h) for h, t in pairs})


def iter_pair_candidates(
    doc: Doc,
    groups: list[EntityGroup],
    rule_relations: list[dict],
    main: Span | None,
    sentences: SentenceIndex,
) -> Iterator[PairCandidate]:
    """Yield the ordered pairs of distinct groups named near each other
    (:data:`NEAR_MENTIONS`) that a relation type can join, with the features the relation
    classifier scores them by, one at a time (a long text has many)."""
    info = doc_data(doc, "kg_mention_info")
    group_of = {(m.start_char, m.end_char): k for k, g in enumerate(groups) for m in g.mentions}
    found: dict[tuple[int, int], set[str]] = {}
    for rel in rule_relations:
        h, t = group_of.get(tuple(rel["head"])), group_of.get(tuple(rel["tail"]))
        if h is not None and t is not None:
            rule = rel["rule"].rsplit(".", 1)[-1]
            found.setdefault((h, t), set()).add(f"{rel['type']}:{rule}")
    main_group = group_of.get((main.start_char, main.end_char)) if main is not None else None
    proposed = {(s, e) for s, e, _ in doc_data(doc, "kg_proposed")}
    in_result = _result_pairs(doc_data(doc, "kg_results"), group_of)
    per_label: dict[str, int] = {}
    for g in groups:
        per_label[g.label] = per_label.get(g.label, 0) + 1
    sides = [_group_features(g, k == main_group, proposed, info, sentences) for k, g in
             enumerate(groups)]  # fmt: skip
    placed = [_Placed(g, sentences) for g in groups]
    confs = [_confidence_tenth(g, info) for g in groups]
    forms = [_name_form(g.first) for g in groups]
    for h, t in near_pairs(groups):
        head, tail = groups[h], groups[t]
        if not allowed_types(head.label, tail.label):
            continue
        hm, tm, sent, near = _closest(placed[h], placed[t])
        pair = f"{head.label}>{tail.label}"
        feats = [f"pair={pair}", "bias"]
        feats += [f"h.{f}" for f in sides[h]] + [f"t.{f}" for f in sides[t]]
        feats += [f"{pair}|rule={r}" for r in sorted(found.get((h, t), ()))]
        feats += [f"{pair}|rev_rule={r}" for r in sorted(found.get((t, h), ()))]
        if not found.get((h, t)) and not found.get((t, h)):
            feats.append(f"{pair}|no_rule")
            feats.append(f"{pair}|min_conf={min(confs[h], confs[t])}")  # what no rule read
        if (h, t) in in_result or (t, h) in in_result:
            feats.append(f"{pair}|same_result")
        feats.append(f"{pair}|n_tail_type={min(per_label[tail.label], 4)}")
        feats.append(f"{pair}|n_head_type={min(per_label[head.label], 4)}")
        feats += [f"{pair}|{f}" for f in _between_features(doc, hm, tm, near)]
        feats.append(f"{pair}|main={int(h == main_group)}{int(t == main_group)}")
        feats.append(f"{pair}|form={forms[h]}>{forms[t]}")
        yield PairCandidate(head, tail, hm, tm, sent, feats)


def _group_features(
    group: EntityGroup, is_main: bool, proposed: set, info: dict, sentences: SentenceIndex
) -> list[str]:
    first = group.first
    rules = {info.get(mention_key(m), {}).get("rule", "?").rsplit(".", 1)[-1] for m in
             group.mentions}  # fmt: skip
    feats = [
        f"main={int(is_main)}",
        f"conf={_confidence_tenth(group, info)}",
        f"proposed={int(any((m.start_char, m.end_char) in proposed for m in group.mentions))}",
        f"count={min(len(group.mentions), 4)}",
        f"first_sent={min(sentences.index(first.start), 4)}",
        f"last_word={first[-1].lemma_.lower()}",
        f"label={group.label}",
    ]
    feats += [f"rule={r}" for r in sorted(rules)]
    return feats


def _name_form(mention: Span) -> str:
    """How a mention is written: ``N`` a name (a capital or a digit after its first
    letter: "BERT", "ResNet-50", "Transformer-XL"), ``c`` a common-noun phrase; with ``s``
    when its head word is plural ("general LLMs", "PointNet-based methods")."""
    text = mention.text
    named = any(ch.isupper() or ch.isdigit() for ch in text[1:]) or (
        text[:1].isupper() and mention.start != mention.sent.start
    )
    plural = mention.root.tag_ in {"NNS", "NNPS"}
    return ("N" if named else "c") + ("s" if plural else "")


def _confidence_tenth(group: EntityGroup, info: dict) -> int:
    """The tenth (0-9) of the confidence of a group's most confident mention."""
    confidence = max((info.get(mention_key(m), {}).get("confidence", 0.5) for m in
                      group.mentions), default=0.5)  # fmt: skip
    return min(int(confidence * 10), 9)


class _Placed:
    """A group's mentions in text order, with their token starts and sentences."""

    def __init__(self, group: EntityGroup, sentences: SentenceIndex) -> None:
        self.mentions = sorted(group.mentions, key=lambda m: m.start)
        self.starts = [m.start for m in self.mentions]
        self.sents = [sentences.index(m.start) for m in self.mentions]


def _closest(head: _Placed, tail: _Placed) -> tuple[Span, Span, int, int]:
    """The head and tail mentions nearest to each other (same sentence first), the
    sentence they are reported in, and how many sentences apart they are.

    Sentences and distances grow with the position in the text, so the tail mention
    nearest to a head mention is the one just before or just after it: each head mention
    looks at those two only (the first of equally near ones wins)."""
    best = None
    for i, start in enumerate(head.starts):
        hs = head.sents[i]
        after = bisect_left(tail.starts, start)
        for j in (after - 1, after):
            if 0 <= j < len(tail.starts):
                key = (abs(hs - tail.sents[j]), abs(start - tail.starts[j]))
                if best is None or key < best[0]:
                    best = (key, i, j)
    (apart, _), i, j = best
    return head.mentions[i], tail.mentions[j], tail.sents[j], apart


def _between_features(doc: Doc, hm: Span, tm: Span, apart: int) -> list[str]:
    feats = [f"apart={min(apart, 3)}"]
    if apart:
        return feats
    first, second = (hm, tm) if hm.start < tm.start else (tm, hm)
    feats.append(f"order={'ht' if first is hm else 'th'}")
    gap = doc[first.end : second.start]
    if len(gap) <= _MAX_BETWEEN:
        feats += [f"btw={t.lemma_.lower()}" for t in gap if not t.is_punct]
        feats += [f"btw_verb={t.lemma_.lower()}" for t in gap if t.pos_ in {"VERB", "AUX"}]
    else:
        feats.append("btw=FAR")
    common = _common_head(hm.root, tm.root)
    if common is not None:
        feats.append(f"lca={common.lemma_.lower()}")
        feats.append(f"lca_dep=h:{hm.root.dep_},t:{tm.root.dep_}")
        feats += _structure_features(hm, tm, common)
    return feats


def _structure_features(hm: Span, tm: Span, common) -> list[str]:
    """What the sentence's structure says of two mentions under their lowest common head:
    the dependency path between them (labels up from the head mention, the common head's
    lemma, labels down to the tail mention), whether they are conjuncts of one list and
    how long that list is, and the words just before each mention ("our", "existing",
    "such as")."""
    up = _path_to(hm.root, common)
    down = _path_to(tm.root, common)
    feats = []
    if len(up) + len(down) <= 4:
        top = "H" if not up else "T" if not down else common.lemma_.lower()  # a mention itself
        feats.append(f"path={'<'.join(up)}^{top}^{'>'.join(reversed(down))}")
    labels = set(up) | set(down)
    if labels and labels <= {"conj", "appos"}:
        feats.append("coordinated")
        members = sum(1 for t in common.children if t.dep_ == "conj") + 1
        feats.append(f"list_size={min(members, 5)}")
    if "appos" in labels:
        feats.append("apposition")
    for side, m in (("h", hm), ("t", tm)):
        before = m.doc[max(m.start - 2, m.sent.start) : m.start]
        feats += [f"{side}.prev={t.lemma_.lower()}" for t in before if not t.is_punct]
        feats.append(f"{side}.dep={m.root.dep_}")
    return feats


def _path_to(token, top) -> list[str]:
    """The dependency labels from ``token`` up to (not including) ``top``."""
    labels = []
    while token.i != top.i and len(labels) < 6:
        labels.append(token.dep_)
        token = token.head
    return labels


def _common_head(a, b):
    """The lowest token that governs both ``a`` and ``b`` (same sentence), or None."""
    above = {a.i}
    node = a
    while node.head.i != node.i:  # a root is its own head (Token objects are made anew)
        node = node.head
        above.add(node.i)
    node = b
    while node.i not in above:
        if node.head.i == node.i:
            return None
        node = node.head
    return node


def _result_pairs(rows: list[dict], group_of: dict) -> set[tuple[int, int]]:
    """Pairs of groups named in one reported result (method, data set, task, metric)."""
    out = set()
    for row in rows:
        ends = [group_of.get(tuple(row.get(k) or ())) for k in
                ("method_span", "dataset_span", "task_span", "metric_span")]  # fmt: skip
        ends = [e for e in ends if e is not None]
        out |= {(a, b) for a in ends for b in ends if a != b}
    return out

"""How kg's entity recognizer decides: each candidate span typed or rejected, overlaps
settled, and types made consistent within a paper."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np
from networkx.utils import UnionFind
from spacy.tokens import Doc, Span

from kg.names import normalise_name
from kg.nlp.entities.phrases import Candidate, normalise_form
from kg.nlp.entities.vocabulary import Lexicon, PhraseStats, number_form, phrase_patterns
from kg.nlp.models.perceptron import AveragedPerceptron

__all__ = [
    "CONFIDENCE",
    "PRIORITY",
    "GateSettings",
    "beside_number",
    "best_entity_types",
    "classify",
    "gate",
    "harmonise_types",
    "select",
]

PRIORITY = {
    "abbreviation": 5,
    "gazetteer": 4,
    "name": 3,
    "gazetteer_word": 2,
    "title": 2,
    "noun_chunk": 2,
    "chunk": 1,
    "tagger": 1,
}
"""How far each rule is trusted when candidates overlap (without the classifier)."""

CONFIDENCE = {
    "abbreviation": 0.85,
    "gazetteer": 0.8,
    "name": 0.7,
    "gazetteer_word": 0.6,
    "title": 0.6,
    "noun_chunk": 0.55,
    "chunk": 0.5,
    "tagger": 0.5,
}
"""A mention's confidence by the rule that found it (without the classifier)."""


def classify(
    doc: Doc,
    featurised: list[tuple[Span, list[Candidate], list[str]]],
    classifier: AveragedPerceptron,
    lexicon: Lexicon,
    *,
    recall_bias: float = 0.0,
    always_keep: tuple[str, ...] = ("abbreviation", "name"),
) -> list[Candidate]:
    """Type or reject each candidate span (with its candidates and features, as
    :meth:`~kg.nlp.entities.component.EntityRecognizer.featurised_spans` gives them) with the
    trained classifier; ``recall_bias`` is added to each span's margin over "O", and a
    span a rule of ``always_keep`` proposed is kept with that rule's type (``rule:Type``
    keeps only what the rule types so: ``gazetteer:Metric``)."""
    scored: list[Candidate] = []
    long_label: dict[str, str] = {}
    classes = classifier.classes
    matrix = classifier.score_matrix([feats for _, _, feats in featurised])
    labels, over_o = best_entity_types(matrix, classes)
    for (span, cands, _), label, lead in zip(featurised, labels, over_o, strict=True):
        start, end = span.start, span.end
        margin = lead + recall_bias
        if margin <= 0:
            trusted = [c for c in cands if c.rule in always_keep
                       or f"{c.rule}:{c.label}" in always_keep]  # fmt: skip
            label, margin = (trusted[0].label, 1.0) if trusted else ("O", margin)
        listed = next((c.label for c in cands if c.rule == "gazetteer"), None)
        if label != "O" and listed in classes:  # a listed name keeps its listed type
            label = listed
        best = max(cands, key=lambda c: PRIORITY.get(c.rule, 1))
        if best.group and best.rule == "abbreviation" and span.text == best.group:
            long_label[best.group] = label
        if label == "O":
            continue
        conf = round(min(0.95, 0.5 + margin / 40), 3)
        scored.append(
            Candidate(
                start,
                end,
                label,
                best.rule,
                benchmark=label == "Dataset" and any(c.benchmark for c in cands),
                group=best.group,
                confidence=conf,
            )
        )
    # a short form follows its long form's decision
    scored = [
        c
        for c in scored
        if not (
            c.rule == "abbreviation"
            and c.group
            and doc[c.start : c.end].text != c.group
            and long_label.get(c.group, c.label) == "O"
        )
    ]
    scored = [
        c
        if not (c.rule == "abbreviation" and c.group in long_label and long_label[c.group] != "O")
        else replace(c, label=long_label[c.group])
        for c in scored
    ]
    return harmonise_types(doc, select(scored, by_confidence=True), lexicon)


def harmonise_types(doc: Doc, chosen: list[Candidate], lexicon: Lexicon) -> list[Candidate]:
    """Give coordinated names one type ("on NQ-Open, NQ-Swap and XSum") and type a name
    by its apposition ("CodeTrace, a benchmark of ...")."""
    root_of = {doc[c.start : c.end].root.i: k for k, c in enumerate(chosen)}
    coordinated = UnionFind(range(len(chosen)))
    for i, k in root_of.items():
        tok = doc[i]
        if tok.dep_ == "conj" and tok.head.i in root_of:
            coordinated.union(k, root_of[tok.head.i])
    clusters: dict[int, list[int]] = {}
    for k in range(len(chosen)):
        clusters.setdefault(coordinated[k], []).append(k)
    out = list(chosen)
    for members in clusters.values():
        if len(members) < 2:
            continue
        votes = Counter(
            chosen[k].label for k in members if chosen[k].rule in {"gazetteer", "abbreviation"}
        )
        if not votes:
            continue
        label = votes.most_common(1)[0][0]
        for k in members:
            if chosen[k].rule == "name" and chosen[k].label != label:
                out[k] = replace(chosen[k], label=label)
    votes_by_form: dict[str, Counter] = {}
    for c in out:  # one phrase, one type within a paper
        form = normalise_form(doc[c.start : c.end].text).rstrip("s")
        votes_by_form.setdefault(form, Counter())[c.label] += c.confidence or 0.5
    for k, c in enumerate(out):
        form = normalise_form(doc[c.start : c.end].text).rstrip("s")
        best = votes_by_form[form].most_common(1)[0][0]
        if best != c.label:
            out[k] = replace(c, label=best)
    task_end = {c.end for c in out if c.label == "Task"}
    for k, c in enumerate(out):
        if (
            c.rule == "name"
            and c.start >= 2
            and doc[c.start - 1].text == "("
            and c.start - 1 in task_end
        ):
            out[k] = replace(c, label="Dataset", benchmark=False)
            continue
        root = doc[c.start : c.end].root
        neighbours = list(root.children) + ([root.head] if root.dep_ == "appos" else [])
        for child in neighbours:
            if (child.dep_ == "appos" or child is root.head) and (
                child.lemma_.lower() in lexicon.dataset_heads
            ):
                bench = child.lemma_.lower() in lexicon.benchmark_heads
                out[k] = replace(c, label="Dataset", benchmark=bench)
    return out


def best_entity_types(matrix: np.ndarray, classes: list[str]) -> tuple[list[str], list[float]]:
    """For each row of class scores: the best class other than "O" (a tie goes to the
    later name), and how far its score is above that of "O"."""
    others = sorted((c for c in classes if c != "O"), reverse=True)
    columns = matrix[:, [classes.index(c) for c in others]]
    best = columns.argmax(axis=1)
    lead = columns[np.arange(len(columns)), best] - matrix[:, classes.index("O")]
    return [others[k] for k in best.tolist()], lead.tolist()


def select(candidates: list[Candidate], by_confidence: bool = False) -> list[Candidate]:
    """Keep non-overlapping candidates, most trusted (or confident) and longest first."""
    if by_confidence:
        ordered = sorted(
            candidates, key=lambda c: (-(c.confidence or 0), -(c.end - c.start), c.start)
        )
    else:
        ordered = sorted(candidates, key=lambda c: (-PRIORITY[c.rule], -(c.end - c.start), c.start))
    taken: set[int] = set()
    chosen = []
    for cand in ordered:
        tokens = set(range(cand.start, cand.end))
        if tokens & taken:
            continue
        taken |= tokens
        chosen.append(cand)
    return sorted(chosen, key=lambda c: c.start)


@dataclass(frozen=True)
class GateSettings:
    """When the annotators' record of a phrase decides (see :meth:`PhraseStats.verdict`)."""

    min_seen: int = 5
    max_rate: float = 0.1
    min_taken: int = 3
    type_share: float = 0.8


def gate(
    doc: Doc, chosen: list[Candidate], stats: PhraseStats, settings: GateSettings
) -> list[Candidate]:
    """Drop the mentions whose phrase the annotators almost never make an entity and give
    a phrase the type they nearly always give it (or, when they took it often, the type
    they gave it instead of one they never gave): evidence across 1,340 papers, which
    overrules every rule, gazetteer entries included.

    - A phrase with no record of its own follows the others of its pattern (``*-based``).
    - An acronym and the long form it abbreviates are decided together: "no entity" for
      one is for both, and the type is the long form's. An acronym's own record mixes its
      meanings (ASR is a task as speech recognition, a metric as attack success rate): it
      can only say that the acronym is no entity, or never of the type a rule gave it.
    - A metric beside a number stays unless the record of the phrase beside numbers says
      no entity too (the guidelines' efficiency measures are metrics where a number is
      reported); then it stays a term the results step may read ("a score of 85"),
      marked ``node=False``: no entity of the graph.
    - A hyphenated compound of lower-case words in front of a noun is an adjective, no
      metric ("high-precision maps", "accuracy-efficiency trade-off").
    """
    options = {"min_seen": settings.min_seen, "max_rate": settings.max_rate,
               "min_taken": settings.min_taken, "type_share": settings.type_share}  # fmt: skip

    def verdict(c: Candidate) -> str | None:
        span = doc[c.start : c.end]
        form = normalise_name(span.text)
        found = stats.verdict(form, label=c.label, **options)
        if found not in (None, "O") and c.group and span.text != c.group:
            # an acronym's record mixes its meanings: it may only say its type never is
            found = stats.verdict(form, label=c.label, **{**options, "type_share": 2.0})
        if found == "O" and c.label == "Metric" and beside_number(span):
            return "term" if stats.verdict(number_form(form), **options) == "O" else None
        if found is not None:
            return found
        for pattern in phrase_patterns(span):  # a pattern says "no entity" only
            if stats.verdict(pattern, **options) == "O":
                return "O"
        return None

    chosen = [c for c in chosen if not (c.label == "Metric" and _modifier_compound(doc, c))]
    verdicts = [verdict(c) for c in chosen]
    by_group: dict[str, str | None] = {}  # a term's verdict is its own, not its group's
    for c, v in zip(chosen, verdicts, strict=True):  # long forms first, then acronyms
        if c.group and doc[c.start : c.end].text == c.group:
            by_group[normalise_name(c.group)] = None if v == "term" else v
    for c, v in zip(chosen, verdicts, strict=True):
        if c.group and v not in (None, "term"):  # an acronym's verdict holds for a long form
            key = _group_key(normalise_name(c.group), by_group)  # with no record
            if by_group.get(key) is None:
                by_group[key] = v
    out = []
    for c, v in zip(chosen, verdicts, strict=True):
        group = by_group.get(_group_key(normalise_name(c.group), by_group)) if c.group else None
        if group == "O" or v == "O":  # no entity, by its own record or its group's
            continue
        if v == "term":  # the results step may read it; the graph has no node for it
            out.append(replace(c, node=False))
            continue
        v = group or v
        out.append(replace(c, label=v) if v and v != c.label else c)
    return out


def beside_number(span: Span) -> bool:
    """Whether a number stands where the results step ties numbers to metrics: up to 25
    characters before the span, or 40 after it ("accuracy of 81.2%", "81.2% accuracy")."""
    from kg.nlp.results.component import find_numbers

    sent = span.sent
    start, end = span.start_char - sent.start_char, span.end_char - sent.start_char
    for n_start, n_end, _, _, unit in find_numbers(sent.text):
        after = sent.text[n_end : n_end + 1]
        if unit is None and after.isalpha():
            continue  # 7B, 3D: a size or a name, no reported number
        if 0 <= start - n_end <= 25 or 0 <= n_start - end <= 40:
            return True
    return False


def _modifier_compound(doc: Doc, cand: Candidate) -> bool:
    """Whether the candidate is one hyphenated compound of lower-case words right in front
    of a noun or adjective: a modifier ("high-precision maps"), not a name."""
    span = doc[cand.start : cand.end]
    if not _LOWER_COMPOUND.fullmatch(span.text) or cand.end >= len(doc):
        return False
    after = doc[cand.end]
    return after.pos_ in {"NOUN", "PROPN", "ADJ"} and not after.is_sent_start


_LOWER_COMPOUND = re.compile(r"[a-z]+(?:-[a-z]+)+")


def _group_key(group: str, known: dict[str, str | None]) -> str:
    """The long form an acronym's group names: the raw long text may hold a word more
    ("the ...") than the trimmed long form."""
    if group in known:
        return group
    return next((k for k in known if group.endswith(" " + k)), group)

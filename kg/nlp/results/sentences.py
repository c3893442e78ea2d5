"""What the sentence around a number says about it: the method, data set and metric it is
reported for, its setting, and how the numbers of a list, a range, a "respectively"
sentence or a clause closed by a data set share them. Plain functions over the rows
:class:`kg.nlp.results.component.ResultsExtractor` reads (dicts of char spans) and spaCy spans."""

from __future__ import annotations

import itertools
import re

from spacy.tokens import Span

from kg.nlp.results.numbers import RANGE_GAP

__all__ = [
    "clauses_shared",
    "lists_shared",
    "metric_after",
    "metric_before",
    "ranges_shared",
    "reported_dataset",
    "reported_method",
    "respectively",
    "segments_closed",
    "setting",
]


def ranges_shared(rows: list[dict], text: str) -> list[dict]:
    """Give both ends of a range ("7-15x faster") the metric and delta flag one of them has."""
    for a, b in itertools.pairwise(rows):
        if RANGE_GAP.fullmatch(text[a["end"] : b["start"]]) and a["unit"] == b["unit"]:
            for x, y in ((a, b), (b, a)):
                if x["metric"] is None and y["metric"] is not None:
                    x["metric"], x["metric_span"] = y["metric"], y["metric_span"]
                    x["confidence"] = y["confidence"]
            a["delta"] = b["delta"] = a["delta"] or b["delta"]
    return rows


_RESPECTIVELY = re.compile(r"\brespectively\b", re.I)
_ALIGNED = (("Dataset", "dataset_span"), ("Method", "method_span"), ("Metric", "metric_span"))


def respectively(rows: list[dict], in_sent: list[Span], sentence: str) -> list[dict]:
    """Give each value of a "respectively" list its own data set, method or metric: in a
    sentence with "respectively", when the sentence names as many data sets (methods,
    metrics) as it reports numbers, the i-th number gets the i-th of them ("reaches 81.2
    and 76.4 on A and B, respectively": 81.2 on A, 76.4 on B)."""
    if len(rows) < 2 or not _RESPECTIVELY.search(sentence):
        return rows
    for label, field in _ALIGNED:
        listed = sorted((m for m in in_sent if m.label_ == label), key=lambda m: m.start_char)
        if len(listed) != len(rows) or len({m.text.lower() for m in listed}) != len(listed):
            continue
        for row, mention in zip(sorted(rows, key=lambda r: r["start"]), listed, strict=True):
            row[field] = [mention.start_char, mention.end_char]
            if field == "metric_span":
                row["metric"] = mention.text
    return rows


_CLOSING_PREP = re.compile(r"\b(?:in|on|for|across)\s+(?:the\s+)?$", re.I)


def segments_closed(rows: list[dict], in_sent: list[Span], text: str, sent: Span) -> list[dict]:
    """Give the numbers of a clause the data set that closes it: in each ";"-separated part
    of the sentence, a data set named after all its numbers ("94.1%, 92.9% and 93.8% in
    B") is the one of each number with no other data set between them, unless a single
    data set named before the numbers already says it ("on A, ... pretrained on B"; a list
    of several before them says none: "across A, B and C, ... 94.0%, 92.7% in A; ...")."""
    datasets = [m for m in in_sent if m.label_ == "Dataset"]
    if not rows or not datasets:
        return rows
    said = text[sent.start_char : sent.end_char]
    cuts = [sent.start_char] + [
        sent.start_char + i + 1 for i, ch in enumerate(said) if ch == ";"
    ] + [sent.end_char]  # fmt: skip
    for lo, hi in itertools.pairwise(cuts):
        part = [r for r in rows if lo <= r["start"] < hi]
        if not part:
            continue
        last = max(r["end"] for r in part)
        after = [d for d in datasets if last <= d.start_char < hi]
        first = min(r["start"] for r in part)
        before = [d for d in datasets if lo <= d.start_char and d.end_char <= first]
        if not after or len(before) == 1:
            continue
        closer = min(after, key=lambda d: d.start_char)
        if not _CLOSING_PREP.search(text[max(lo, closer.start_char - 12) : closer.start_char]):
            continue
        for r in part:
            if not any(r["end"] <= d.start_char < closer.start_char for d in datasets):
                r["dataset_span"] = [closer.start_char, closer.end_char]
    return rows


_LIST_GAP = re.compile(r"\s*(?:,|/|;)?\s*(?:and|or)?\s*")


def lists_shared(rows: list[dict], text: str) -> list[dict]:
    """Give the values of a list ("81.2, 76.4 and 90.1% accuracy", "52.9/54.3 mAP") the
    metric one of them has: neighbours of one unit with only a comma, slash, "and" or
    "or" between them, in both directions."""
    for pairs in (list(itertools.pairwise(rows)), list(itertools.pairwise(rows[::-1]))):
        for a, b in pairs:
            first, second = (a, b) if a["start"] < b["start"] else (b, a)
            gap = text[first["end"] : second["start"]]
            if not gap or not _LIST_GAP.fullmatch(gap) or a["unit"] != b["unit"]:
                continue
            if b["metric"] is None and a["metric"] is not None:
                b["metric"], b["metric_span"] = a["metric"], a["metric_span"]
                b["confidence"] = a["confidence"]
    return rows


def clauses_shared(rows: list[dict], text: str) -> list[dict]:
    """Give a number with no metric the metric of the number before it in its sentence
    when a ";" separates them and the units agree: the next part of a parallel list
    ("Dice of 94.0% and 92.7% in A; 94.1% and 92.9% in B"), and on along that part's list."""
    for a, b in itertools.pairwise(rows):
        gap = text[a["end"] : b["start"]]
        parallel = ";" in gap or (gap and _LIST_GAP.fullmatch(gap))  # on along the list
        if b["metric"] is None and a["metric"] is not None and a["unit"] == b["unit"] and parallel:
            b["metric"], b["metric_span"] = a["metric"], a["metric_span"]
            b["confidence"] = a["confidence"]
    return rows


def setting(metric, dataset, method, in_sent: list[Span], task_heads) -> str | None:
    """The setting a score is one of, as the words next to its metric and data set say:
    a name right before the metric that is not the method ("a Best-of-N PDMS of 94.8"),
    or the task noun the data set's name qualifies ("on ImageNet reconstruction, reaching
    0.75 FID"). A board keeps scores of different settings apart."""
    if metric is not None:
        for m in in_sent:
            if (
                m.end == metric.start
                and m.label_ == "Method"
                and (method is None or m.start_char != method.start_char)
                and m.root.head.i in range(metric.start, metric.end)
            ):
                return m.text
    if dataset is not None and dataset.end < len(dataset.doc):
        noun = dataset.doc[dataset.end]
        if (
            noun.pos_ == "NOUN"
            and noun.lower_ in task_heads
            and dataset.root.head.i == noun.i
            and not any(m.start == noun.i for m in in_sent)
        ):
            return noun.lower_
    return None


def reported_method(sent: Span, in_sent: list[Span], main, s_char: int) -> Span | None:
    """The method a number belongs to: the sentence's subject, the paper's own, or the
    nearest; in a "respectively" sentence, the nearest in its clause (a part after a ";"
    that names none is the paper's own: the methods before name what the list is of)."""
    methods = [m for m in in_sent if m.label_ == "Method" and m.end_char <= s_char]
    for m in reversed(methods):  # the nearest subject: "A reaches 60.2, while B reaches 55.1"
        if m.root.dep_ in {"nsubj", "nsubjpass"} or (
            m.root.dep_ in {"conj", "appos", "compound"} and m.root.head.dep_ == "nsubj"
        ):
            return m
    if main is not None and any(m.text == main.text for m in methods):
        return main
    if main is None or not _RESPECTIVELY.search(sent.text):
        return _configured(methods[-1], methods) if methods else main
    semicolon = sent.text.rfind(";", 0, s_char - sent.start_char)  # -1: none
    clause = sent.start_char + semicolon + 1
    in_clause = [m for m in methods if m.start_char >= clause]
    return in_clause[-1] if in_clause else main  # "X for A and B respectively; ... in D"


def _configured(method: Span, methods: list[Span]) -> Span:
    """The method a "with" phrase configures: in "a GCN with AAL (73.3%)" the number is
    the GCN's, run with AAL; else ``method`` itself."""
    prep = method.root.head
    if method.root.dep_ == "pobj" and prep.lower_ == "with":
        host = prep.head
        for m in methods:
            if m.start <= host.i < m.end:
                return m
    return method


def metric_after(mentions: list[Span], end_char: int, text: str) -> Span | None:
    for m in mentions:
        if m.label_ == "Metric" and 0 <= m.start_char - end_char <= 25:
            gap = text[end_char : m.start_char]
            if len(gap.split()) <= 2 and not re.search(
                r"[;,]|\b(and|with|while|than|for|to|over|from)\b", gap
            ):
                return m
    return None


_OWN_LABEL = re.compile(r"[A-Za-z][\w-]*\s?[=:]\s?$")  # "AUC=", "F1: " just before a number


def metric_before(mentions: list[Span], start_char: int, text: str) -> Span | None:
    """The Metric mention a few words before a number, unless the words between end in
    a label of the number's own ("accuracy (AUC=0.98)": 0.98 is no accuracy)."""
    best = None
    for m in mentions:
        if m.label_ == "Metric" and 0 <= start_char - m.end_char <= 40:
            gap = text[m.end_char : start_char]
            if (
                len(gap.split()) <= 5
                and not re.search(r"[;]", gap)
                and not (_OWN_LABEL.search(gap) and gap.split())
            ):
                best = m
    return best


_CLAUSE_BREAK = re.compile(r";|,\s*(?:and|while|but|whereas|or)\b", re.I)


def reported_dataset(datasets: list[Span], s_char: int, e_char: int, text: str) -> Span | None:
    """The data set a number is reported on: the nearest of the sentence's data sets that
    no clause break (";", ", and", ", while") separates from the number, else the nearest
    ("reaches 79.5 on A, and 81.3% on B": 81.3 is on B)."""

    def rank(m: Span) -> tuple[int, int]:
        gap = text[m.end_char : s_char] if m.end_char <= s_char else text[e_char : m.start_char]
        return len(_CLAUSE_BREAK.findall(gap)), abs(m.start_char - s_char)

    return min(datasets, key=rank) if datasets else None

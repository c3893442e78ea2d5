"""Reported results: numbers with their unit, metric, method, data set, task and delta flag."""

from __future__ import annotations

import re

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import registry

from kg.nlp.component import KgComponent
from kg.nlp.entities.proposals import proposed_method
from kg.nlp.entities.vocabulary import Lexicon
from kg.nlp.extensions import ENTITY_SPANS, doc_data, mention_key
from kg.nlp.models.perceptron import AveragedPerceptron
from kg.nlp.results.linking import MetricMention, NumberRow, link_metric
from kg.nlp.results.numbers import find_numbers, make_number_parser, parse_number
from kg.nlp.results.score_decision import decide, number_features
from kg.nlp.results.sentences import (
    clauses_shared,
    lists_shared,
    metric_after,
    metric_before,
    ranges_shared,
    reported_dataset,
    reported_method,
    respectively,
    segments_closed,
    setting,
)
from kg.resources import trained_file

__all__ = [
    "DOWN_WORDS",
    "UP_WORDS",
    "ResultsExtractor",
    "change_cue",
    "rule_delta",
    "rule_features",
    "parse_number",
    "find_numbers",
    "make_number_parser",
    "is_own_name",
]

_DELTA_LEFT = re.compile(
    r"(improv|gain|boost|increas|reduc|decreas|\bby\b|outperform|surpass|exceed|accelerat|"
    r"speed|lower|cut|sav|raise|lift|\+)",
    re.I,
)
_DELTA_RIGHT = re.compile(
    r"^\s*\W{0,3}(\w+\s){0,2}(improvement|gain|boost|increase|reduction|decrease|faster|speedup|"
    r"speed-up|higher|lower|better|fewer|less|more|smaller|larger|improv|reduc|fold)",
    re.I,
)
UP_WORDS = r"increas\w*|rais\w*|higher|more|larger|greater|faster|speed-?ups?|accelerat\w*"
"""Words that say a number went up ("improves" only says it got better)."""
DOWN_WORDS = (
    r"reduc\w*|decreas\w*|lower\w*|cut\w*|fewer|less|smaller|sav\w*|shrink\w*|slash\w*|"
    r"minimi[sz]\w*"
)
"""Words that say a number went down."""
_UP = re.compile(rf"\b({UP_WORDS})\b", re.I)
_DOWN = re.compile(rf"\b({DOWN_WORDS})\b", re.I)
_CLAUSE_END = re.compile(r"[,;]|\b(?:while|and|with|but|compared|over|than|at)\b", re.I)
_SPEED_RIGHT = re.compile(r"^\s*\W{0,2}\s*(faster|speed-?up|acceleration|quicker)", re.I)


class ResultsExtractor(KgComponent):
    """Find reported results.

    Reads ``doc.spans["kg_entities"]`` and ``doc._.kg_proposed``; writes
    ``doc._.kg_results``: one dict per number with a unit or a metric, holding
    value, unit, delta, metric (text and char span), the char spans of the method,
    data set and task it is reported for, ``own`` (True: the method is what the paper
    proposes; False: a baseline; None: no method), ``change`` (for a delta, "up" or
    "down" as the words around it say, see :func:`change_cue`), and provenance.
    """

    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        max_gap: int = 8,
        number_parser=parse_number,
        metric_linker: AveragedPerceptron | None = None,
        score_classifier: AveragedPerceptron | None = None,
        lexicon: Lexicon | None = None,
    ):
        self.name = name
        self.task_heads = lexicon.task_heads if lexicon is not None else frozenset()
        self.max_gap = max_gap
        self.number_parser = number_parser
        self.metric_linker = metric_linker
        self.score_classifier = score_classifier

    def process(self, doc: Doc) -> None:
        mentions = list(doc.spans.get(ENTITY_SPANS, []))
        main = proposed_method(doc, mentions)
        own = _own_names(doc, mentions, main)
        results = doc_data(doc, "kg_results")
        text = doc.text  # joined from the tokens on each access, so read once
        by_sentence = []
        metrics = []
        for sent_index, sent in enumerate(doc.sents):
            in_sent = [m for m in mentions if m.start >= sent.start and m.end <= sent.end]
            if self.metric_linker is not None:  # only the linker reads the paper's metrics
                metrics += [
                    MetricMention(m.text, m.start_char, m.end_char, sent_index)
                    for m in in_sent
                    if m.label_ == "Metric"
                ]
            rows = []
            for start, end, sign, number, unit in find_numbers(sent.text):
                row = self._result(
                    text, sent, sent_index, in_sent, main, start, end, sign, number, unit
                )
                if row is not None:
                    cue = change_cue(sent.text[:start], sent.text[end:])
                    row["change"] = cue
                    feats = number_features(sent.text, start, end, row["value"], unit, sign)
                    feats += rule_features(sent.text, start, end, sign)
                    rows.append((row, feats))
            kept = segments_closed(self._decided(rows), in_sent, text, sent)
            kept = respectively(kept, in_sent, sent.text)
            for row in kept:
                row["own"] = _is_own(row, text, own)
            by_sentence.append(kept)
        if self.metric_linker is not None:
            self._link_metrics([r for rows in by_sentence for r in rows], metrics, text)
        for rows in by_sentence:
            results.extend(clauses_shared(lists_shared(ranges_shared(rows, text), text), text))

    def _decided(self, rows: list[tuple[dict, list[str]]]) -> list[dict]:
        """The rows the score classifier keeps (all without one): a number it calls no
        result goes, and it says which are deltas (:mod:`kg.nlp.results.score_decision`)."""
        kept = []
        if self.score_classifier is None:
            decided = [("score", {}) for _ in rows]
        else:
            bias = self.score_classifier.meta.get("bias", {})
            decided = decide(self.score_classifier, [f for _, f in rows], bias)
        for (row, _), (kind, _) in zip(rows, decided, strict=True):
            if kind == "none":
                continue
            if self.score_classifier is not None:  # held out, its delta beats the rules'
                row["delta"] = kind == "delta"
            row["change"] = row["change"] if row["delta"] else None
            kept.append(row)
        return kept

    def _link_metrics(self, rows: list[dict], metrics: list[MetricMention], text: str) -> None:
        """Let the trained linker choose each number's metric among the paper's Metric
        mentions (a metric the rules read from words, "3x faster", stays when it
        chooses none)."""
        numbers = [
            NumberRow(r["start"], r["end"], r["sentence"], r["unit"], r["delta"], r["metric"])
            for r in rows
        ]
        for row, number in zip(rows, numbers, strict=True):
            chosen, _ = link_metric(self.metric_linker, number, metrics, text, numbers)
            if chosen is not None:
                row["metric"], row["metric_span"] = chosen.text, [chosen.start, chosen.end]
                row["rule"] = f"{self.name}.linker"
            elif row["metric_span"] is not None:
                row["metric"], row["metric_span"] = None, None
                row["rule"] = f"{self.name}.linker"

    def _result(
        self,
        text: str,
        sent: Span,
        sent_index: int,
        in_sent: list[Span],
        main,
        start,
        end,
        sign,
        number,
        unit,
    ):
        s_char, e_char = sent.start_char + start, sent.start_char + end
        value = self.number_parser(number)
        if value is None:
            return None
        if any(m.start_char <= s_char < m.end_char for m in in_sent):
            return None  # part of a name: ResNet-50, CIFAR-10
        after = text[e_char : e_char + 40]
        before = text[max(sent.start_char, s_char - 40) : s_char]
        if unit is None and re.match(r"^[A-Za-z]", after):
            return None  # 7B, 3D
        if unit is None and 1900 <= value <= 2100 and "." not in number:
            return None
        metric_span = metric_after(in_sent, e_char, text)
        metric_text = metric_span.text if metric_span is not None else None
        speed = _SPEED_RIGHT.match(after) if unit == "x" else None
        if metric_text is None and speed is not None:
            word = speed.group(1).lower()
            metric_text = "speed" if word in {"faster", "quicker"} else "speedup"
        elif metric_text is None:
            metric_span = metric_before(in_sent, s_char, text)
            metric_text = metric_span.text if metric_span is not None else None
        if unit is None and metric_text is None:
            return None
        delta = rule_delta(before, after, sign)
        method = reported_method(sent, in_sent, main, s_char)
        datasets = [m for m in in_sent if m.label_ == "Dataset"]
        tasks = [m for m in in_sent if m.label_ == "Task"]
        dataset = reported_dataset(datasets, s_char, e_char, text)
        return {
            "value": value,
            "unit": unit,
            "delta": delta,
            "metric": metric_text,
            "metric_span": _chars(metric_span),
            "method_span": _chars(method),
            "dataset_span": _chars(dataset),
            "task_span": _chars(tasks[0] if tasks else None),
            "condition": setting(metric_span, dataset, method, in_sent, self.task_heads),
            "start": s_char,
            "end": e_char,
            "sentence": sent_index,
            "rule": f"{self.name}.pattern",
            "confidence": 0.7 if metric_span is not None else 0.5,
        }


def _own_names(doc: Doc, mentions: list[Span], main: Span | None) -> set[str]:
    """The names (lower case) of what the paper proposes: its proposed Method mentions,
    the main one, and the long forms or acronyms defined with them."""
    proposed = {(s, e) for s, e, _ in doc_data(doc, "kg_proposed")}
    found = [m for m in mentions if m.label_ == "Method" and (m.start_char, m.end_char) in proposed]
    if main is not None:
        found.append(main)
    info = doc_data(doc, "kg_mention_info")
    names = {m.text.lower() for m in found}
    groups = {info.get(mention_key(m), {}).get("group") for m in found} - {None}
    for m in mentions:  # the acronym of a proposed long form, or the long form of one
        group = info.get(mention_key(m), {}).get("group")
        if group in groups or m.text in groups:
            names.add(m.text.lower())
    return names | {g.lower() for g in groups}


def _is_own(row: dict, text: str, own: set[str]) -> bool | None:
    """Whether a result is the paper's own (its method is what the paper proposes), a
    baseline's (another method), or unknown (no method)."""
    if row["method_span"] is None:
        return None
    start, end = row["method_span"]
    return is_own_name(text[start:end], own)


def is_own_name(name: str, own: set[str]) -> bool:
    """Whether ``name`` names what the paper proposes: one of the ``own`` names (lower
    case), or a variant of one, the own name followed by a size, version or suffix
    ("ToRL-7B", "UCGM-T", "FooNet 2" of "ToRL", "UCGM", "FooNet").

    >>> is_own_name("ToRL-7B", {"torl"}), is_own_name("Torlesque", {"torl"})
    (True, False)
    """
    low = name.lower()
    if low in own:
        return True
    return any(
        len(o) >= 3 and low.startswith(o) and not low[len(o)].isalpha()
        for o in own
        if len(low) > len(o)
    )


def rule_delta(before: str, after: str, sign: str = "") -> bool:
    """Whether the words next to a number say it is a change: a sign, or a word such as
    "improves ... by" before it (``before``: the text before it in its sentence) or
    "gain", "faster" after it (``after``).

    >>> rule_delta("improves accuracy by ", "% over"), rule_delta("reaches ", "% accuracy")
    (True, False)
    """
    return bool(sign) or bool(_DELTA_LEFT.search(before[-25:])) or bool(_DELTA_RIGHT.match(after))


def change_cue(before: str, after: str) -> str | None:
    """Which way a reported change went, by the word that says so next to the number:
    ``"up"`` ("increases accuracy by 3%", "3% higher"), ``"down"`` ("reduces FID by 2.1",
    "30% fewer tokens") or None ("improves FID by 2.1" says better, not which way).
    ``before`` is the text before the number in its sentence,
    ``after`` the text after it; the word nearest the number counts. Across a corpus, the
    changes papers claim for a metric say which way is better (analytics learns that).

    >>> change_cue("our method reduces FID by ", " and"), change_cue("", "% higher accuracy")
    ('down', 'up')
    """
    right = _CLAUSE_END.split(after[:25], maxsplit=1)[0]  # not "3%, while reducing cost"
    up, down = _UP.search(right), _DOWN.search(right)
    if up or down:  # "3% higher", "30% fewer": the nearer word after the number
        return "up" if down is None or (up is not None and up.start() < down.start()) else "down"
    left = before[-40:]
    ups = [m.end() for m in _UP.finditer(left)]
    downs = [m.end() for m in _DOWN.finditer(left)]
    if not ups and not downs:
        return None
    return "up" if max(ups, default=-1) > max(downs, default=-1) else "down"


def rule_features(sentence: str, start: int, end: int, sign: str = "") -> list[str]:
    """What the rules read next to the number at ``sentence[start:end]``, as features of
    the score decision (:mod:`kg.nlp.results.score_decision`): their delta flag and change cue,
    and whether the number is an end of a range ("1-4", "75-80%").

    >>> rule_features("it improves accuracy by 3% over X", 24, 26)
    ['rule_delta=True', 'cue=None', 'range=False']
    """
    before, after = sentence[:start], sentence[end:]
    ranged = bool(re.match(r"\s?(?:[-–—]|to)\s?\d", after)) or bool(
        re.search(r"\d\s?(?:[-–—]|to)\s?$", before)
    )
    delta = rule_delta(before[-40:], after[:40], sign)
    return [f"rule_delta={delta}", f"cue={change_cue(before, after)}", f"range={ranged}"]


def _chars(span: Span | None) -> list[int] | None:
    return [span.start_char, span.end_char] if span is not None else None


@registry.misc("kg.metric_linker.v1")
def load_metric_linker(path: str = "none") -> AveragedPerceptron | None:
    """Load a metric linker ``scripts/train_result_linking.py`` trained (``"none"``, the
    default: the rules choose; kg ships no linker, see docs/quality.md)."""
    file = trained_file(path, "metric_linker.msgpack", "metric linker")
    return AveragedPerceptron.from_disk(file) if file else None


@registry.misc("kg.score_classifier.v1")
def load_score_classifier(
    path: str = "", shipped: str = "score_classifier.msgpack"
) -> AveragedPerceptron | None:
    """Load the decision that a number is a score, a change or no result (default: the
    shipped one, made by scripts/train_score_decision.py; ``"none"``: every number the
    rules read is kept)."""
    file = trained_file(path, shipped, "score classifier")
    return AveragedPerceptron.from_disk(file) if file else None


@Language.factory(
    "kg_results",
    assigns=["doc._.kg_results"],
    requires=["doc.spans", "doc._.kg_proposed"],
    default_config={
        "max_gap": 8,
        "number_parser": {"@misc": "kg.parse_number.v1"},
        "metric_linker": {"@misc": "kg.metric_linker.v1", "path": "none"},
        "score_classifier": {"@misc": "kg.score_classifier.v1", "path": ""},
        "lexicon": {"@misc": "kg.lexicon.v1", "path": ""},
    },
)
def make_results_extractor(
    nlp: Language,
    name: str,
    max_gap: int,
    number_parser,
    metric_linker,
    score_classifier,
    lexicon: Lexicon,
) -> ResultsExtractor:
    """Build the results extractor (``metric_linker``: the trained choice of each
    number's metric, None for the rules alone; ``score_classifier``: the learned decision
    that a number is a result, None to keep every number the rules read; ``lexicon``:
    the task words that name a score's setting, "ImageNet reconstruction")."""
    return ResultsExtractor(
        nlp, name, max_gap=max_gap, number_parser=number_parser, metric_linker=metric_linker,
        score_classifier=score_classifier, lexicon=lexicon,
    )  # fmt: skip

"""Reported results: numbers with their unit, metric, method, data set, task and delta flag."""

from __future__ import annotations

import itertools
import re

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import registry

from kg.nlp.component import KgComponent
from kg.nlp.extensions import ENTITY_SPANS, doc_data, mention_key
from kg.nlp.numbers import RANGE_GAP, find_numbers, make_number_parser, parse_number
from kg.nlp.perceptron import AveragedPerceptron
from kg.nlp.proposals import proposed_method
from kg.nlp.result_linking import Mention, NumberRow, link_metric
from kg.nlp.score_decision import decide, number_features
from kg.nlp.vocabulary import Lexicon
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
                    Mention(m.text, m.start_char, m.end_char, sent_index)
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
            kept = _segments_closed(self._decided(rows), in_sent, text, sent)
            kept = _respectively(kept, in_sent, sent.text)
            for row in kept:
                row["own"] = _is_own(row, text, own)
            by_sentence.append(kept)
        if self.metric_linker is not None:
            self._link_metrics([r for rows in by_sentence for r in rows], metrics, text)
        for rows in by_sentence:
            results.extend(_clauses_shared(_lists_shared(_ranges_shared(rows, text), text), text))

    def _decided(self, rows: list[tuple[dict, list[str]]]) -> list[dict]:
        """The rows the score classifier keeps (all without one): a number it calls no
        result goes, and it says which are deltas (:mod:`kg.nlp.score_decision`)."""
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

    def _link_metrics(self, rows: list[dict], metrics: list[Mention], text: str) -> None:
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
        metric_span = _metric_after(in_sent, e_char, text)
        metric_text = metric_span.text if metric_span is not None else None
        speed = _SPEED_RIGHT.match(after) if unit == "x" else None
        if metric_text is None and speed is not None:
            word = speed.group(1).lower()
            metric_text = "speed" if word in {"faster", "quicker"} else "speedup"
        elif metric_text is None:
            metric_span = _metric_before(in_sent, s_char, text)
            metric_text = metric_span.text if metric_span is not None else None
        if unit is None and metric_text is None:
            return None
        delta = rule_delta(before, after, sign)
        method = _reported_method(sent, in_sent, main, s_char)
        datasets = [m for m in in_sent if m.label_ == "Dataset"]
        tasks = [m for m in in_sent if m.label_ == "Task"]
        dataset = _reported_dataset(datasets, s_char, e_char, text)
        return {
            "value": value,
            "unit": unit,
            "delta": delta,
            "metric": metric_text,
            "metric_span": _chars(metric_span),
            "method_span": _chars(method),
            "dataset_span": _chars(dataset),
            "task_span": _chars(tasks[0] if tasks else None),
            "condition": _setting(metric_span, dataset, method, in_sent, self.task_heads),
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
    the score decision (:mod:`kg.nlp.score_decision`): their delta flag and change cue,
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


def _ranges_shared(rows: list[dict], text: str) -> list[dict]:
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


def _respectively(rows: list[dict], in_sent: list[Span], sentence: str) -> list[dict]:
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


def _segments_closed(rows: list[dict], in_sent: list[Span], text: str, sent: Span) -> list[dict]:
    """Give the numbers of a clause the data set that closes it: in each ";"-separated part
    of the sentence, a data set named after all its numbers ("94.1%, 92.9% and 93.8% in
    B") is the one of each number with no other data set between them, unless a single
    data set named before the numbers already says it ("on A, ... pretrained on B"; a list
    of several before them says none: "across A, B and C, ... 94.0%, 92.7% in A; ...")."""
    datasets = [m for m in in_sent if m.label_ == "Dataset"]
    if not rows or not datasets:
        return rows
    cuts = [sent.start_char] + [
        sent.start_char + i + 1 for i, ch in enumerate(sent.text) if ch == ";"
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


def _lists_shared(rows: list[dict], text: str) -> list[dict]:
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


def _clauses_shared(rows: list[dict], text: str) -> list[dict]:
    """Give a number with no metric the metric of the number before it in its sentence
    when a ";" separates them, the units agree and no other metric is named between: the
    next part of a parallel list ("Dice of 94.0% and 92.7% in A; 94.1% and 92.9% in B"),
    and on along that part's list."""
    for a, b in itertools.pairwise(rows):
        gap = text[a["end"] : b["start"]]
        parallel = ";" in gap or (gap and _LIST_GAP.fullmatch(gap))  # on along the list
        if b["metric"] is None and a["metric"] is not None and a["unit"] == b["unit"] and parallel:
            b["metric"], b["metric_span"] = a["metric"], a["metric_span"]
            b["confidence"] = a["confidence"]
    return rows


def _setting(metric, dataset, method, in_sent: list[Span], task_heads) -> str | None:
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


def _reported_method(sent: Span, in_sent: list[Span], main, s_char: int) -> Span | None:
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
    clause = sent.doc.text.rfind(";", sent.start_char, s_char) + 1  # 0: none
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


def _chars(span: Span | None) -> list[int] | None:
    return [span.start_char, span.end_char] if span is not None else None


def _metric_after(mentions: list[Span], end_char: int, text: str) -> Span | None:
    for m in mentions:
        if m.label_ == "Metric" and 0 <= m.start_char - end_char <= 25:
            gap = text[end_char : m.start_char]
            if len(gap.split()) <= 2 and not re.search(
                r"[;,]|\b(and|with|while|than|for|to|over|from)\b", gap
            ):
                return m
    return None


_OWN_LABEL = re.compile(r"[A-Za-z][\w-]*\s?[=:]\s?$")  # "AUC=", "F1: " just before a number


def _metric_before(mentions: list[Span], start_char: int, text: str) -> Span | None:
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


def _reported_dataset(datasets: list[Span], s_char: int, e_char: int, text: str) -> Span | None:
    """The data set a number is reported on: the nearest of the sentence's data sets that
    no clause break (";", ", and", ", while") separates from the number, else the nearest
    ("reaches 79.5 on A, and 81.3% on B": 81.3 is on B)."""

    def rank(m: Span) -> tuple[int, int]:
        gap = text[m.end_char : s_char] if m.end_char <= s_char else text[e_char : m.start_char]
        return len(_CLAUSE_BREAK.findall(gap)), abs(m.start_char - s_char)

    return min(datasets, key=rank) if datasets else None


def _nearest(spans: list[Span], char: int) -> Span | None:
    return min(spans, key=lambda s: abs(s.start_char - char)) if spans else None


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

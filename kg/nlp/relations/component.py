"""Relations between entity mentions: dependency patterns, sentence co-occurrence, paper scope."""

from __future__ import annotations

import math

from spacy.language import Language
from spacy.tokens import Doc, Span, Token
from spacy.util import minibatch, registry

from kg.nlp.component import KgComponent
from kg.nlp.entities.phrases import SentenceIndex
from kg.nlp.entities.proposals import is_named, proposed_method
from kg.nlp.extensions import ENTITY_SPANS, doc_data
from kg.nlp.models.perceptron import AveragedPerceptron
from kg.nlp.relations.pairs import (
    allowed_types,
    entity_groups,
    is_stated,
    iter_pair_candidates,
    pair_candidates,
)
from kg.resources import nlp_data_dir, trained_file
from kg.schema import RELATION_ENDS, RELATION_TYPES

__all__ = ["RelationExtractor", "RELATION_TYPES"]


_BEAT = {
    "outperform",
    "surpass",
    "beat",
    "exceed",
    "outpace",
    "outstrip",
    "dominate",
    "enhance",
    "improve",
}
_COMPARE = {"compare", "benchmark", "contrast"}
_SCORED_AT_ONCE = 2048  # entity pairs featurised and scored together
_NEAREST_METRICS = 8  # metrics a data set or task of a sentence is tied to, nearest first
_SELF = {"we", "our", "it", "ours", "this", "which"}


class RelationExtractor(KgComponent):
    """Find typed relations between the entity mentions of a doc.

    Reads ``doc.spans["kg_entities"]``, ``doc._.kg_proposed`` and ``doc._.kg_results``;
    writes ``doc._.kg_relations``: ``{"head": [s, e], "type", "tail": [s, e],
    "sentence", "rule", "confidence"}`` with char offsets of both mentions.

    With a ``classifier``, what the rules find becomes evidence: every pair of the
    paper's entities that a relation type can join is typed or rejected by the trained
    classifier (:mod:`kg.nlp.relations.pairs`), and a pair is kept when its best type
    scores ``bias`` or more above "no relation" (default: the bias the classifier was
    chosen with by cross-validation) and, for a win, a sentence states it
    (:func:`~kg.nlp.relations.pairs.is_stated`). Its confidence is the chance, calibrated
    on held-out folds, that the pair and type are right.
    """

    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        paper_scope: bool = True,
        uses_scope: str = "paper",
        classifier: AveragedPerceptron | None = None,
        bias: float | None = None,
    ) -> None:
        if uses_scope not in {"paper", "near"}:
            raise ValueError(f"uses_scope must be 'paper' or 'near', not {uses_scope!r}")
        self.name = name
        self.paper_scope = paper_scope
        self.uses_scope = uses_scope
        self.classifier = classifier
        meta = classifier.meta if classifier is not None else {}
        self.bias = bias if bias is not None else float(meta.get("bias", 0.0))
        self.calibration = tuple(meta.get("calibration", (0.25, 0.0)))

    def process(self, doc: Doc) -> None:
        mentions = list(doc.spans.get(ENTITY_SPANS, []))
        sentences = SentenceIndex(doc)
        main = proposed_method(doc, mentions) or _fallback_main(doc, mentions)
        out = doc_data(doc, "kg_relations")
        seen: set[tuple] = set()

        def add(head: Span, rtype: str, tail: Span, sent: int, rule: str, conf: float) -> None:
            heads, tails = RELATION_ENDS[rtype]
            if head.label_ not in heads or tail.label_ not in tails:
                return
            if head.text.lower() == tail.text.lower():
                return
            key = (head.start_char, rtype, tail.start_char)
            if key in seen:
                return
            seen.add(key)
            out.append(
                {
                    "head": [head.start_char, head.end_char],
                    "type": rtype,
                    "tail": [tail.start_char, tail.end_char],
                    "sentence": sent,
                    "rule": f"{self.name}.{rule}",
                    "confidence": conf,
                }
            )

        for index, sent in enumerate(sentences.sents):
            in_sent = [m for m in mentions if m.start >= sent.start and m.end <= sent.end]
            self._verb_patterns(sent, index, in_sent, main, add)
            self._cooccurrence(sent, index, in_sent, main, add)
        if self.paper_scope and main is not None:
            self._paper_scope(doc, mentions, main, add, out, sentences)
        if self.paper_scope:
            self._task_scope(mentions, add, sentences)
        for row in doc_data(doc, "kg_results"):
            self._from_result(doc, row, mentions, add)
        if self.classifier is not None:
            out[:] = self._classify(doc, mentions, out, main, sentences)

    def _confidence(self, margin: float) -> float:
        a, b = self.calibration
        return round(1 / (1 + math.exp(-(a * margin + b))), 3)

    def candidates(self, doc: Doc):
        """Return the entity pairs of a processed doc (its relations found by the rules)
        with their features: what the classifier is trained on."""
        mentions = list(doc.spans.get(ENTITY_SPANS, []))
        main = proposed_method(doc, mentions) or _fallback_main(doc, mentions)
        rules = doc_data(doc, "kg_relations")
        groups = entity_groups(doc, mentions)
        return pair_candidates(doc, groups, rules, main, SentenceIndex(doc))

    def _classify(self, doc, mentions, rule_relations, main, sentences) -> list[dict]:
        """Type or reject each candidate pair, scored :data:`_SCORED_AT_ONCE` at a time so
        that a long text's many pairs never sit in memory together."""
        groups = entity_groups(doc, mentions)
        pairs = iter_pair_candidates(doc, groups, rule_relations, main, sentences)
        classes = self.classifier.classes
        kept: dict[tuple, tuple[float, dict]] = {}
        for chunk in minibatch(pairs, _SCORED_AT_ONCE):
            matrix = self.classifier.score_matrix([p.features for p in chunk])
            self._keep_best(chunk, matrix.tolist(), classes, kept)
        return [rel for _, rel in sorted(kept.values(), key=lambda kv: kv[1]["head"])]

    def _keep_best(self, pairs, rows, classes, kept: dict[tuple, tuple[float, dict]]) -> None:
        for pair, row in zip(pairs, rows, strict=True):
            scores = dict(zip(classes, row, strict=True))
            types = [t for t in allowed_types(pair.head.label, pair.tail.label) if t in scores]
            if not types:
                continue
            best = max(types, key=lambda t: (scores[t], t))
            margin = scores[best] - scores.get("O", 0.0)
            if margin < self.bias or not is_stated(best, pair.features):
                continue
            ends = (pair.head.key, pair.tail.key)
            key = (best, *sorted(ends)) if best == "COMPARED_WITH" else (best, *ends)
            if key in kept and kept[key][0] >= margin:
                continue  # one COMPARED_WITH edge per pair, in its better-scored direction
            kept[key] = (margin, {
                "head": [pair.head_mention.start_char, pair.head_mention.end_char],
                "type": best,
                "tail": [pair.tail_mention.start_char, pair.tail_mention.end_char],
                "sentence": pair.sentence,
                "rule": f"{self.name}.classifier",
                "confidence": self._confidence(margin),
            })  # fmt: skip

    # -- sentence rules ------------------------------------------------------------------
    def _verb_patterns(self, sent: Span, index: int, in_sent: list[Span], main, add) -> None:
        for tok in sent:
            lemma = tok.lemma_.lower()
            if tok.pos_ not in {"VERB", "AUX"} and tok.lower_ not in {"better", "superior"}:
                continue
            if lemma in _BEAT or tok.lower_ in {"better", "superior"}:
                rtype, rule = "OUTPERFORMS", "beat_verb"
            elif lemma in _COMPARE:
                rtype, rule = "COMPARED_WITH", "compare_verb"
            else:
                continue
            subjects = _subject_mentions(tok, in_sent, main)
            objects = _object_mentions(tok, in_sent)
            for head in subjects:
                for tail in objects:
                    add(head, rtype, tail, index, rule, 0.75)

    def _cooccurrence(self, sent: Span, index: int, in_sent: list[Span], main, add) -> None:
        """Metrics named with the data sets and tasks of their sentence. (Other pairs named
        together cost more precision than they bring recall: on cross-validation a data set
        and a task in one sentence were a gold BENCHMARK_FOR 2 times in 15.)"""
        tasks = [m for m in in_sent if m.label_ == "Task"]
        datasets = [m for m in in_sent if m.label_ == "Dataset"]
        metrics = [m for m in in_sent if m.label_ == "Metric"]
        for subject in datasets + tasks:
            if len(metrics) > _NEAREST_METRICS:  # a list, not a sentence: its nearest ones
                near = sorted(metrics, key=lambda m: (abs(m.start - subject.start), m.start))
                chosen = sorted(near[:_NEAREST_METRICS], key=lambda m: m.start)
            else:
                chosen = metrics
            for metric in chosen:
                add(subject, "MEASURED_BY", metric, index, "cooccur", 0.4)

    def _paper_scope(
        self, doc: Doc, mentions: list[Span], main: Span, add, out, sentences: SentenceIndex
    ) -> None:
        """The paper's own method is applied to its tasks, evaluated on its data sets and uses
        the other methods it names, except those it is compared with."""
        text = doc.text
        rivals = {
            text[r["tail"][0] : r["tail"][1]].lower()
            for r in out
            if r["type"] in {"OUTPERFORMS", "COMPARED_WITH"}
        }
        main_sent = sentences.index(main.start)
        for m in mentions:
            where = sentences.index(m.start)
            if m.label_ == "Task":
                add(main, "APPLIED_TO", m, where, "paper_scope", 0.35)
            elif m.label_ == "Dataset":
                add(main, "EVALUATED_ON", m, where, "paper_scope", 0.35)
            elif (
                m.label_ == "Method"
                and (self.uses_scope == "paper" or where in {main_sent, main_sent + 1})
                and m.text.lower() not in rivals
            ):
                add(main, "USES", m, where, "paper_scope", 0.35)

    def _task_scope(self, mentions: list[Span], add, sentences: SentenceIndex) -> None:
        """The paper's first task is benchmarked by its data sets. (Its metrics come from
        sentences and results: tying every metric to the first task was right 2 times in 38.)"""
        task = next((m for m in mentions if m.label_ == "Task"), None)
        if task is None:
            return
        for m in mentions:
            if m.label_ == "Dataset":
                add(m, "BENCHMARK_FOR", task, sentences.index(m.start), "paper_scope", 0.3)

    def _from_result(self, doc: Doc, row: dict, mentions: list[Span], add) -> None:
        by_start = {m.start_char: m for m in mentions}
        method = by_start.get((row.get("method_span") or [None])[0])
        data = by_start.get((row.get("dataset_span") or [None])[0])
        metric = by_start.get((row.get("metric_span") or [None])[0])
        task = by_start.get((row.get("task_span") or [None])[0])
        if method is not None and data is not None:
            add(method, "EVALUATED_ON", data, row["sentence"], "result", 0.6)
        if metric is not None:
            for subject in (data, task):
                if subject is not None:
                    add(subject, "MEASURED_BY", metric, row["sentence"], "result", 0.6)


def _fallback_main(doc: Doc, mentions: list[Span]) -> Span | None:
    """Without a found proposal, the paper's own method is the first method named in a
    sentence where the authors speak ("we", "our", "this paper")."""
    info = doc_data(doc, "kg_mention_info")
    for sent in doc.sents:
        if not any(t.lower_ in {"we", "our", "ours"} for t in sent):
            continue
        for m in mentions:
            if m.label_ == "Method" and sent.start <= m.start < sent.end and is_named(m, info):
                return m
    return None


def _in_subtree(mention: Span, token: Token) -> bool:
    return token.left_edge.i <= mention.start and mention.end - 1 <= token.right_edge.i


def _subject_mentions(verb: Token, in_sent: list[Span], main) -> list[Span]:
    head = verb
    while head.dep_ in {"conj", "xcomp", "advcl", "relcl", "acl"} and not any(
        c.dep_ in {"nsubj", "nsubjpass"} for c in head.children
    ):
        if head.dep_ in {"relcl", "acl"}:  # "X, which outperforms Y" / "X outperforming Y"
            found = [m for m in in_sent if m.start <= head.head.i < m.end]
            return found or ([main] if main is not None else [])
        head = head.head
        if head is head.head:
            break
    for child in head.children:
        if child.dep_ in {"nsubj", "nsubjpass"}:
            found = [m for m in in_sent if _in_subtree(m, child) and m.label_ == "Method"]
            if found:
                return found[:2]
            if child.lower_ in _SELF or any(t.lower_ in _SELF for t in child.subtree):
                return [main] if main is not None else []
    return []


def _object_mentions(verb: Token, in_sent: list[Span]) -> list[Span]:
    objects: list[Span] = []
    for child in verb.children:
        if child.dep_ in {"dobj", "obj", "attr", "pobj", "oprd"}:
            objects += [m for m in in_sent if _in_subtree(m, child)]
        elif child.dep_ in {"prep", "agent", "acomp"} and child.lower_ not in {
            "on",
            "across",
            "in",
        }:
            for grandchild in child.subtree:
                if grandchild.dep_ == "pobj":
                    objects += [m for m in in_sent if _in_subtree(m, grandchild)]
                    break
    unique = {(m.start, m.end): m for m in objects}
    return [m for m in unique.values() if m.label_ == "Method"]


@Language.factory(
    "kg_relations",
    assigns=["doc._.kg_relations"],
    requires=["doc.spans", "doc._.kg_proposed", "doc._.kg_results"],
    default_config={
        "paper_scope": True,
        "uses_scope": "paper",
        "classifier": {"@misc": "kg.relation_classifier.v1", "path": "none"},
        "bias": None,
    },
)
def make_relation_extractor(
    nlp: Language,
    name: str,
    paper_scope: bool,
    uses_scope: str,
    classifier: AveragedPerceptron | None,
    bias: float | None,
) -> RelationExtractor:
    """Build the relation extractor (rules, plus the pair classifier when given)."""
    return RelationExtractor(
        nlp, name, paper_scope=paper_scope, uses_scope=uses_scope, classifier=classifier,
        bias=bias,
    )  # fmt: skip


@registry.misc("kg.relation_classifier.v1")
def load_relation_classifier(
    path: str = "", shipped: str = "relation_classifier.msgpack"
) -> AveragedPerceptron | None:
    """Load the entity-pair classifier (default: the shipped one, ``shipped`` in
    kg/nlp/data; ``"none"``: rules only)."""
    file = trained_file(path, shipped, "relation classifier")
    if file is None and path != "none":  # kg ships one: its absence is a broken install
        raise FileNotFoundError(f"relation classifier {nlp_data_dir() / shipped} not found")
    return AveragedPerceptron.from_disk(file) if file else None

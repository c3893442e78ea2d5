"""Scientific entity recognition (Method, Task, Dataset, Metric): the spaCy component.

Its parts, each a module of its own: where mentions may be (the candidates,
:mod:`kg.nlp.entities.candidates`), what the classifier sees of each
(:func:`~kg.nlp.entities.phrases.candidate_features`) and how it decides
(:mod:`kg.nlp.entities.classify`). Without a classifier, overlapping candidates are settled
by trust, then length. The component is swappable: any component that fills
``doc.spans["kg_entities"]`` and ``doc._.kg_mention_info`` can replace it.
"""

from __future__ import annotations

from collections import Counter

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import registry

from kg.nlp.component import KgComponent
from kg.nlp.entities.candidates import candidate_rules, find_candidates, plain_chunks
from kg.nlp.entities.classify import CONFIDENCE, GateSettings, classify, gate, select
from kg.nlp.entities.phrases import (
    Candidate,
    SentenceIndex,
    TokenTable,
    candidate_features,
    is_name_like,
    normalise_form,
    phrase_type,
)
from kg.nlp.entities.tagger_features import tagger_candidates, tagger_features
from kg.nlp.entities.vocabulary import Gazetteer, Lexicon, PhraseStats
from kg.nlp.extensions import ENTITY_SPANS, doc_data, mention_key
from kg.nlp.models.perceptron import AveragedPerceptron
from kg.resources import trained_file
from kg.schema import ENTITY_TYPES

__all__ = ["EntityRecognizer", "Candidate", "is_name_like", "phrase_type"]


class EntityRecognizer(KgComponent):
    """Find Method, Task, Dataset and Metric mentions.

    Reads the parse (noun chunks, POS, dependencies), ``doc._.kg_abbreviations`` and,
    when a ``kg_tagger`` ran before it, the encoder tagger's ``doc._.kg_tagger`` (its
    spans join the candidates, what it says of a span joins the classifier's features);
    writes ``doc.spans["kg_entities"]`` (label = type) and ``doc._.kg_mention_info``
    (``"start:end"`` char offsets -> rule, confidence, benchmark flag, abbreviation group,
    ``node``: False for a term the results step may read but the graph has no entity for).
    """

    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        lexicon: Lexicon,
        gazetteer: Gazetteer,
        max_chunk_tokens: int = 6,
        single_word_tasks: bool = False,
        metric_cues: bool = True,
        classifier: AveragedPerceptron | None = None,
        recall_bias: float = 0.0,
        always_keep: tuple[str, ...] = ("abbreviation", "name"),
        head_priors: dict[str, dict[str, int]] | None = None,
        word_clusters: dict[str, tuple[str, ...]] | None = None,
        phrase_stats: PhraseStats | None = None,
        gate_settings: GateSettings | None = None,
    ) -> None:
        self.name = name
        self.max_tagged = 10  # tokens of the longest span the tagger may propose
        self.phrase_stats = phrase_stats
        self.gate_settings = gate_settings or GateSettings()
        self.word_clusters = word_clusters
        self.head_priors = head_priors or {}
        self.always_keep = tuple(always_keep)
        self.recall_bias = recall_bias
        self.classifier = classifier
        self.lexicon = lexicon
        self.gazetteer = gazetteer
        self.rules = candidate_rules(
            nlp,
            lexicon,
            gazetteer,
            max_chunk_tokens=max_chunk_tokens,
            single_word_tasks=single_word_tasks,
            metric_cues=metric_cues,
        )

    def __len__(self) -> int:
        return len(self.gazetteer.lower) + len(self.gazetteer.exact)

    @property
    def labels(self) -> tuple[str, ...]:
        return ENTITY_TYPES

    def candidates(self, doc: Doc, table: TokenTable | None = None) -> list[Candidate]:
        """Return every candidate mention the rules propose (overlapping, typed or not)."""
        return find_candidates(self.rules, doc, table)

    def process(self, doc: Doc) -> None:
        if self.classifier is not None:
            chosen = classify(
                doc,
                self.featurised_spans(doc),
                self.classifier,
                self.lexicon,
                recall_bias=self.recall_bias,
                always_keep=self.always_keep,
            )
        else:
            chosen = select(self.candidates(doc))
        if self.phrase_stats is not None:
            chosen = gate(doc, chosen, self.phrase_stats, self.gate_settings)
        spans, info = [], doc_data(doc, "kg_mention_info")
        for cand in chosen:
            span = Span(doc, cand.start, cand.end, label=cand.label)
            spans.append(span)
            info[mention_key(span)] = {
                "rule": f"{self.name}.{cand.rule}",
                "confidence": cand.confidence or CONFIDENCE.get(cand.rule, 0.5),
                "benchmark": cand.benchmark,
                "group": cand.group,
                "node": cand.node,
            }
        doc.spans[ENTITY_SPANS] = spans

    def featurised_spans(self, doc: Doc) -> list[tuple[Span, list[Candidate], list[str]]]:
        """Return each distinct candidate span (rules and noun-phrase variants) with the
        candidates that propose it and the features the classifier scores it by."""
        table = TokenTable(doc)
        by_span: dict[tuple[int, int], list[Candidate]] = {}
        found = find_candidates(self.rules, doc, table) + plain_chunks(self.rules, doc, table)
        probs = doc._.kg_tagger
        if probs is not None:
            tagged = tagger_candidates(doc, probs)
            found += [c for c in tagged if c.end - c.start <= self.max_tagged]
        for cand in found:
            by_span.setdefault((cand.start, cand.end), []).append(cand)
        counts = Counter(normalise_form(table.span_text(s, e)) for s, e in by_span)
        sentences = SentenceIndex(doc)
        out = []
        for (start, end), cands in by_span.items():
            span = doc[start:end]
            feats = candidate_features(
                span,
                cands,
                self.lexicon,
                self.gazetteer,
                counts,
                self.head_priors,
                sentences,
                table,
                self.word_clusters,
            )
            if probs is not None:
                feats += tagger_features(probs, start, end)
            out.append((span, cands, feats))
        return out


@Language.factory(
    "kg_entities",
    assigns=["doc.spans", "doc._.kg_mention_info"],
    requires=["doc._.kg_abbreviations"],
    default_config={
        "lexicon": {"@misc": "kg.lexicon.v1", "path": ""},
        "gazetteer": {"@misc": "kg.gazetteer.v1", "path": ""},
        "max_chunk_tokens": 6,
        "single_word_tasks": False,
        "metric_cues": True,
        "classifier": {"@misc": "kg.entity_classifier.v1", "path": ""},
        "recall_bias": 0.0,
        "always_keep": ["abbreviation", "name"],
        "head_priors": {"@misc": "kg.head_priors.v1", "path": ""},
        "word_clusters": {"@misc": "kg.word_clusters.v1", "path": ""},
        "phrase_stats": {"@misc": "kg.phrase_stats.v1", "path": ""},
        "gate_min_seen": 5,
        "gate_max_rate": 0.1,
        "gate_min_taken": 3,
        "gate_type_share": 0.8,
    },
)
def make_entity_recognizer(
    nlp: Language,
    name: str,
    lexicon: Lexicon,
    gazetteer: Gazetteer,
    max_chunk_tokens: int,
    single_word_tasks: bool,
    metric_cues: bool,
    classifier: AveragedPerceptron | None,
    recall_bias: float,
    always_keep: list[str],
    head_priors: dict[str, dict[str, int]],
    word_clusters: dict[str, tuple[str, ...]] | None,
    phrase_stats: PhraseStats | None,
    gate_min_seen: int,
    gate_max_rate: float,
    gate_min_taken: int,
    gate_type_share: float,
) -> EntityRecognizer:
    """Build the scientific entity recognizer (rules, plus the classifier when given, and
    the annotators' record of phrases, ``phrase_stats``, as evidence across papers: see
    :func:`~kg.nlp.entities.classify.gate`)."""
    return EntityRecognizer(
        nlp,
        name,
        lexicon=lexicon,
        gazetteer=gazetteer,
        max_chunk_tokens=max_chunk_tokens,
        single_word_tasks=single_word_tasks,
        metric_cues=metric_cues,
        classifier=classifier,
        recall_bias=recall_bias,
        always_keep=tuple(always_keep),
        head_priors=head_priors,
        word_clusters=word_clusters,
        phrase_stats=phrase_stats,
        gate_settings=GateSettings(gate_min_seen, gate_max_rate, gate_min_taken, gate_type_share),
    )


@registry.misc("kg.entity_classifier.v1")
def load_entity_classifier(
    path: str = "", shipped: str = "entity_classifier.msgpack"
) -> AveragedPerceptron | None:
    """Load the candidate classifier (default: the shipped one, ``shipped`` in
    kg/nlp/data; ``"none"``: rules only)."""
    file = trained_file(path, shipped, "entity classifier")
    return AveragedPerceptron.from_disk(file) if file else None

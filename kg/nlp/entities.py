"""Scientific entity recognition (Method, Task, Dataset, Metric) from rules and word lists.

Candidates come from four sources, in order of trust: abbreviation definitions, the
gazetteer, name-like tokens ("GPT-4o", "ResNet-50", "LIBERO") typed by context, and noun
phrases typed by their head word. Overlaps are settled by trust, then length. The
component is swappable: any component that fills ``doc.spans["kg_entities"]`` and
``doc._.kg_mention_info`` can replace it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span

from kg.nlp.component import KgComponent
from kg.nlp.extensions import ENTITY_SPANS, doc_data
from kg.nlp.vocabulary import Gazetteer, Lexicon

__all__ = ["EntityRecognizer", "Candidate", "is_name_like", "phrase_type"]

ENTITY_TYPES = ("Method", "Task", "Dataset", "Metric")
_NAME_LIKE = re.compile(
    r"^(?=.*[A-Za-z])(?:[A-Z][a-z]*[A-Z0-9]|[A-Z]{2,}|[a-z]+[A-Z]|[A-Za-z]+[-_.]?\d|\d+[A-Za-z]*[A-Z])"
)
_VERSION = re.compile(r"^(?:v?\d+(?:\.\d+)*[A-Za-z]?|[0-9.]+[BMKbmk]|[A-Z]{1,3}|v\d+)$")
_EVAL_LEMMAS = {
    "evaluate", "test", "experiment", "benchmark", "achieve", "outperform", "result", "report",
    "surpass", "validate", "demonstrate", "obtain", "reach", "set", "score", "attain", "conduct",
    "performance", "accuracy", "show", "experiments", "evaluation",
}
_PRIORITY = {"abbreviation": 5, "gazetteer": 4, "name": 3, "noun_chunk": 2}
_CONFIDENCE = {"abbreviation": 0.85, "gazetteer": 0.8, "name": 0.7, "noun_chunk": 0.55}


@dataclass(frozen=True)
class Candidate:
    """A possible entity mention over tokens ``[start, end)``."""

    start: int
    end: int
    label: str
    rule: str
    benchmark: bool = False
    group: str | None = None


def is_name_like(text: str) -> bool:
    """Return True for tokens that look like a coined name ("LoRA", "GPT-4", "COCO").

    Examples
    --------
    >>> [is_name_like(t) for t in ("LoRA", "GPT-4", "COCO", "Model", "the", "wav2vec")]
    [True, True, True, False, False, True]
    """
    return bool(_NAME_LIKE.match(text))


def _content_tokens(span: Span, lexicon: Lexicon) -> Span | None:
    """Trim determiners, numbers, punctuation and generic adjectives from the left."""
    start, end = span.start, span.end
    doc = span.doc
    while start < end and (
        doc[start].lower_ in lexicon.generic_words
        or doc[start].pos_ in {"DET", "PRON", "PUNCT", "NUM", "ADP", "CCONJ", "PART"}
        or doc[start].is_stop
    ):
        start += 1
    while end > start and (doc[end - 1].pos_ in {"PUNCT", "PART"} or doc[end - 1].is_stop):
        end -= 1
    return doc[start:end] if end > start else None


def phrase_type(span: Span, lexicon: Lexicon) -> str | None:
    """Return the entity type a noun phrase's words suggest, or None.

    Reads the head (last) word and its modifiers: "few-shot learning" is a Task,
    "contrastive learning" a Method, "success rate" a Metric, "X benchmark" a Dataset.
    """
    words = [t.lower_ for t in span]
    text = span.text.lower()
    head = words[-1]
    lemma = span[-1].lemma_.lower()
    if text in lexicon.metric_words or _ends_with_metric(words, lexicon):
        return "Metric"
    if head in lexicon.dataset_heads or lemma in lexicon.dataset_heads:
        return "Dataset"
    if head == "learning" or lemma == "learning":
        mods = set(words[:-1]) | {"-".join(words[-3:-1])}
        return "Task" if mods & lexicon.task_learning_modifiers else "Method"
    if head in lexicon.task_heads or lemma in lexicon.task_heads:
        return "Task"
    if head in lexicon.method_heads or lemma in lexicon.method_heads:
        return "Method"
    return None


def _ends_with_metric(words: list[str], lexicon: Lexicon) -> bool:
    for size in (3, 2, 1):
        tail = " ".join(words[-size:])
        if len(words) >= size and tail in lexicon.metric_words:
            rest = words[:-size]
            return all(w in lexicon.metric_modifiers or w in lexicon.generic_words for w in rest)
    return False


class EntityRecognizer(KgComponent):
    """Find Method, Task, Dataset and Metric mentions.

    Reads the parse (noun chunks, POS, dependencies) and ``doc._.kg_abbreviations``;
    writes ``doc.spans["kg_entities"]`` (label = type) and ``doc._.kg_mention_info``
    (``"start:end"`` char offsets -> rule, confidence, benchmark flag, abbreviation group).
    """

    def __init__(
        self, nlp: Language, name: str, *, lexicon: Lexicon, gazetteer: Gazetteer,
        max_chunk_tokens: int = 6,
    ) -> None:
        self.name = name
        self.lexicon = lexicon
        self.gazetteer = gazetteer
        self.max_chunk_tokens = max_chunk_tokens
        self.lower_matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
        self.exact_matcher = PhraseMatcher(nlp.vocab, attr="ORTH")
        self._add_terms(nlp, self.lower_matcher, gazetteer.lower)
        self._add_terms(nlp, self.exact_matcher, gazetteer.exact)

    @staticmethod
    def _add_terms(nlp: Language, matcher: PhraseMatcher, rows) -> None:
        by_type: dict[str, list[Doc]] = {}
        for kind, term in rows:
            by_type.setdefault(kind, []).append(nlp.make_doc(term))
        for kind, docs in by_type.items():
            matcher.add(kind, docs)

    def __len__(self) -> int:
        return len(self.gazetteer.lower) + len(self.gazetteer.exact)

    @property
    def labels(self) -> tuple[str, ...]:
        return ENTITY_TYPES

    def process(self, doc: Doc) -> None:
        candidates = (
            self._from_abbreviations(doc)
            + self._from_gazetteer(doc)
            + self._from_names(doc)
            + self._from_noun_chunks(doc)
        )
        chosen = _select(candidates)
        spans, info = [], doc_data(doc, "kg_mention_info")
        for cand in chosen:
            span = Span(doc, cand.start, cand.end, label=cand.label)
            spans.append(span)
            info[f"{span.start_char}:{span.end_char}"] = {
                "rule": f"{self.name}.{cand.rule}",
                "confidence": _CONFIDENCE[cand.rule],
                "benchmark": cand.benchmark,
                "group": cand.group,
            }
        doc.spans[ENTITY_SPANS] = spans

    # -- candidate sources -------------------------------------------------------------
    def _from_abbreviations(self, doc: Doc) -> list[Candidate]:
        out: list[Candidate] = []
        types: dict[tuple[int, int], str | None] = {}
        for item in doc_data(doc, "kg_abbreviations"):
            long_span = doc.char_span(*item["long"], alignment_mode="expand")
            short_span = doc.char_span(*item["short"], alignment_mode="expand")
            if long_span is None or short_span is None:
                continue
            long_key = tuple(item["long"])
            if long_key not in types:
                trimmed = _content_tokens(long_span, self.lexicon)
                short_text = short_span.text
                label = None
                if trimmed is not None:
                    label = (
                        self.gazetteer.type_of(trimmed.text)
                        or self.gazetteer.type_of(short_text)
                        or phrase_type(trimmed, self.lexicon)
                        or self._context_type(short_span)
                    )
                types[long_key] = label
                if label and trimmed is not None:
                    out.append(Candidate(trimmed.start, trimmed.end, label, "abbreviation",
                                         self._is_benchmark(trimmed), group=trimmed.text))
            label = types[long_key]
            if label:
                group = doc.text[item["long"][0] : item["long"][1]]
                out.append(Candidate(short_span.start, short_span.end, label, "abbreviation",
                                     group=group))
        return out

    def _from_gazetteer(self, doc: Doc) -> list[Candidate]:
        out = []
        for matcher in (self.lower_matcher, self.exact_matcher):
            for match_id, start, end in matcher(doc):
                label = doc.vocab.strings[match_id]
                span = doc[start:end]
                if label == "Task" and end < len(doc) and doc[end].pos_ in {"NOUN", "PROPN"}:
                    continue  # "object detection model" is not the task
                if label == "Dataset" and self._is_benchmark(span):
                    out.append(Candidate(start, end, label, "gazetteer", True))
                else:
                    out.append(Candidate(start, end, label, "gazetteer"))
        return out

    def _from_names(self, doc: Doc) -> list[Candidate]:
        out = []
        i = 0
        while i < len(doc):
            tok = doc[i]
            if not self._name_token(tok):
                i += 1
                continue
            start, end = i, i + 1
            while end < len(doc) and self._continues_name(doc[end - 1], doc[end]):
                end += 1
            while end > start and doc[end - 1].text in {"-", "_"}:
                end -= 1
            span = doc[start:end]
            label = self.gazetteer.type_of(span.text) or self._context_type(span)
            out.append(Candidate(start, end, label, "name", label == "Dataset"
                                 and self._is_benchmark(span)))
            i = end
        return out

    def _from_noun_chunks(self, doc: Doc) -> list[Candidate]:
        out = []
        if not doc.has_annotation("DEP"):
            return out
        for chunk in doc.noun_chunks:
            span = _content_tokens(chunk, self.lexicon)
            if span is None or len(span) > self.max_chunk_tokens:
                continue
            if any(t.like_url or t.like_email or "$" in t.text or "\\" in t.text for t in span):
                continue
            label = phrase_type(span, self.lexicon)
            if label is None:
                continue
            head = span[-1].lower_
            if label == "Dataset":
                named = doc[span.start : span.end - 1]
                if len(named) and any(is_name_like(t.text) for t in named):
                    out.append(Candidate(named.start, named.end, "Dataset", "noun_chunk",
                                         head in self.lexicon.benchmark_heads))
                continue
            if label != "Metric" and len(span) == 1 and (
                head in self.lexicon.vague_heads or span[0].pos_ != "PROPN"
            ):
                continue
            if label != "Metric" and all(t.lower_ in self.lexicon.vague_heads for t in span):
                continue
            out.append(Candidate(span.start, span.end, label, "noun_chunk"))
        return out

    # -- helpers ---------------------------------------------------------------------
    def _continues_name(self, prev, tok) -> bool:
        if self._name_token(tok):
            return True
        if tok.text in {"-", "_"}:
            return not prev.whitespace_
        if _VERSION.match(tok.text) and tok.text[:1].isdigit():
            return not prev.whitespace_ or tok.text[-1:] in "BMKbmk" or "." in tok.text
        return False

    def _name_token(self, tok) -> bool:
        text = tok.text
        return (
            is_name_like(text)
            and text not in self.lexicon.generic_acronyms
            and not tok.like_url
            and not tok.like_num
            and "$" not in text
            and "\\" not in text
            and "%" not in text
            and not re.fullmatch(r"\d+[A-Za-z]{1,2}", text)  # 7B, 10x, 3D
        )

    def _is_benchmark(self, span: Span) -> bool:
        doc = span.doc
        window = doc[max(span.start - 2, 0) : min(span.end + 2, len(doc))]
        return any(t.lower_ in self.lexicon.benchmark_heads for t in window)

    def _context_type(self, span: Span) -> str:
        doc = span.doc
        nxt = doc[span.end] if span.end < len(doc) else None
        if nxt is not None and nxt.lower_ in self.lexicon.dataset_heads:
            return "Dataset"
        if nxt is not None and nxt.lower_ in self.lexicon.metric_heads and span.text.isupper():
            return "Metric"
        if span.text in self.lexicon.metric_words:
            return "Metric"
        root = span.root
        head = root
        for _ in range(4):  # walk up through conjunctions and appositions
            if head.dep_ in {"conj", "appos", "compound", "nmod"} and head.head is not head:
                head = head.head
            else:
                break
        if head.dep_ == "pobj" and head.head.lower_ in {"on", "across", "over"}:
            governor = head.head.head
            sent_lemmas = {t.lemma_.lower() for t in span.sent}
            if governor.lemma_.lower() in _EVAL_LEMMAS or sent_lemmas & _EVAL_LEMMAS:
                if governor.pos_ != "VERB" or governor.lemma_.lower() in _EVAL_LEMMAS:
                    return "Dataset"
        return "Method"


def _select(candidates: list[Candidate]) -> list[Candidate]:
    """Keep non-overlapping candidates, most trusted and longest first."""
    ordered = sorted(
        candidates, key=lambda c: (-_PRIORITY[c.rule], -(c.end - c.start), c.start)
    )
    taken: set[int] = set()
    chosen = []
    for cand in ordered:
        tokens = set(range(cand.start, cand.end))
        if tokens & taken:
            continue
        taken |= tokens
        chosen.append(cand)
    return sorted(chosen, key=lambda c: c.start)


@Language.factory(
    "kg_entities",
    assigns=["doc.spans", "doc._.kg_mention_info"],
    requires=["doc._.kg_abbreviations"],
    default_config={
        "lexicon": {"@misc": "kg.lexicon.v1", "path": ""},
        "gazetteer": {"@misc": "kg.gazetteer.v1", "path": ""},
        "max_chunk_tokens": 6,
    },
)
def make_entity_recognizer(
    nlp: Language, name: str, lexicon: Lexicon, gazetteer: Gazetteer, max_chunk_tokens: int
) -> EntityRecognizer:
    """Build the rule-based scientific entity recognizer."""
    return EntityRecognizer(
        nlp, name, lexicon=lexicon, gazetteer=gazetteer, max_chunk_tokens=max_chunk_tokens
    )

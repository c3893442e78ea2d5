"""Phrase-level building blocks of entity recognition: candidate spans, trimming, typing by
head word, name shapes, and the features the candidate classifier scores."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass

from spacy.tokens import Doc, Span

from kg.nlp.vocabulary import Gazetteer, Lexicon

__all__ = [
    "Candidate",
    "SentenceIndex",
    "candidate_features",
    "content_tokens",
    "head_key",
    "inner_phrases",
    "is_name_like",
    "light_trim",
    "normalise_form",
    "phrase_type",
    "sentence_of",
]

_NAME_LIKE = re.compile(
    r"^(?=.*[A-Za-z])(?:[A-Z][a-z]*[A-Z0-9]|[A-Z]{2,}|[a-z]+[A-Z]|[A-Za-z]+[-_.]?\d|\d+[A-Za-z]*[A-Z])"
)


_ENUMERATOR = re.compile(r"^\(?([ivx]{1,4}|[a-h]|\d)\)$")


@dataclass(frozen=True)
class Candidate:
    """A possible entity mention over tokens ``[start, end)``."""

    start: int
    end: int
    label: str
    rule: str
    benchmark: bool = False
    group: str | None = None
    confidence: float | None = None


def normalise_form(text: str) -> str:
    """Return a lower-cased, space-collapsed form used to count repeated phrases."""
    return " ".join(text.lower().split())


def candidate_features(
    span: Span,
    cands: list[Candidate],
    lexicon: Lexicon,
    gazetteer: Gazetteer,
    counts: Counter,
    priors: dict[str, dict[str, int]] | None = None,
    sentences: SentenceIndex | None = None,
) -> list[str]:
    """Return the sparse features the entity classifier scores a candidate span by."""
    doc = span.doc
    sentences = sentences or SentenceIndex(doc)
    tokens = list(span)
    head, first, root = tokens[-1], tokens[0], span.root
    gov = root.head
    text, lemma, gov_lemma = span.text, head.lemma_.lower(), gov.lemma_.lower()
    ptype, size = phrase_type(span, lexicon), len(tokens)
    feats = ["bias"]
    for c in cands:
        feats += [f"src={c.rule}", f"src={c.rule}:{c.label}"]
        if c.benchmark:
            feats.append("benchmark_word")
    feats += [
        f"ptype={ptype}",
        f"gaz={gazetteer.type_of(text)}",
        f"head={lemma}",
        f"head_suf={head.lower_[-3:]}",
        f"head_pos={head.pos_}",
        f"head_tag={head.tag_}",
        f"first={first.lower_}",
        f"first_pos={first.pos_}",
        f"len={min(size, 6)}",
        f"dep={root.dep_}",
        f"gov={gov_lemma}",
        f"gov_pos={gov.pos_}",
        f"dep_gov={root.dep_}_{gov_lemma}",
        f"count={min(counts[normalise_form(text)], 4)}",
        f"sent0={sentences.index(span.start) == 0}",
        f"vague_head={head.lower_ in lexicon.vague_heads}",
        f"name_like={any(is_name_like(t.text) for t in tokens)}",
        f"title={all(t.is_title or not t.is_alpha for t in tokens)}",
        f"lower={text.islower()}",
        f"digit={any(ch.isdigit() for ch in text)}",
        f"hyphen={'-' in text}",
    ]
    for tok in tokens[:-1]:
        feats += [f"mod={tok.lemma_.lower()}", f"mod_pos={tok.pos_}"]
    for cls in ("task_heads", "method_heads", "metric_heads", "dataset_heads", "vague_heads"):
        if lemma in getattr(lexicon, cls) or head.lower_ in getattr(lexicon, cls):
            feats.append(f"head_in={cls}")
            feats.append(f"head_in={cls}_len{min(size, 3)}")
    if size > 1:
        feats.append(f"gaz_tail={gazetteer.type_of(span[1:].text)}")
        feats.append(f"gaz_head={gazetteer.type_of(head.text)}")
    feats.append(f"sent_num={sentences.has_number(span.start)}")
    if root.dep_ in {"dobj", "pobj", "nsubj", "nsubjpass", "attr"} and gov.dep_ == "prep":
        feats.append(f"prep_verb={gov.lower_}_{gov.head.lemma_.lower()}")
    if sentences.we_before(span.start):
        feats.append("after_we")
    feats.append(f"ptype_len={ptype}_{min(size, 3)}")
    prior = (priors or {}).get(head_key(head.text))
    if prior:
        total = sum(prior.values())
        best = max(prior, key=lambda k: (prior[k], k))
        share = prior[best] / total
        feats.append(f"prior={best}")
        feats.append(f"prior={best}_{'strong' if share >= 0.7 else 'weak'}")
        feats.append(f"prior_o={'high' if prior.get('O', 0) / total > 0.3 else 'low'}")
    else:
        feats.append("prior=none")
    prev = doc[span.start - 1] if span.start > 0 else None
    nxt = doc[span.end] if span.end < len(doc) else None
    feats += [
        f"prev={prev.lower_ if prev is not None else '<s>'}",
        f"next={nxt.lower_ if nxt is not None else '</s>'}",
    ]
    if prev is not None and span.start > 1:
        feats.append(f"prev2={doc[span.start - 2].lower_}_{prev.lower_}")
    if nxt is not None and nxt.text == "(":
        feats.append("defines_acronym")
    return feats


class SentenceIndex:
    """Sentence of each token, computed once per doc (``Token.sent`` scans each time)."""

    def __init__(self, doc: Doc) -> None:
        self.sents = list(doc.sents)
        self._of = [0] * len(doc)
        for i, sent in enumerate(self.sents):
            for j in range(sent.start, sent.end):
                self._of[j] = i
        self._numbers = [any(t.like_num for t in s) for s in self.sents]
        self._we = [t.i for t in doc if t.lower_ in {"we", "our"}]

    def we_before(self, token_i: int) -> bool:
        """Whether "we" or "our" occurs in the token's sentence before it."""
        start = self.sents[self._of[token_i]].start
        k = bisect_left(self._we, start)
        return k < len(self._we) and self._we[k] < token_i

    def index(self, token_i: int) -> int:
        return self._of[token_i]

    def of(self, token_i: int) -> Span:
        return self.sents[self._of[token_i]]

    def has_number(self, token_i: int) -> bool:
        return self._numbers[self._of[token_i]]


def sentence_of(span: Span) -> Span:
    """The sentence around ``span``, found by walking to the nearest sentence starts."""
    doc = span.doc
    start = span.start
    while start > 0 and not doc[start].is_sent_start:
        start -= 1
    end = span.end
    while end < len(doc) and not doc[end].is_sent_start:
        end += 1
    return doc[start:end]


def head_key(word: str) -> str:
    word = word.lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def is_name_like(text: str) -> bool:
    """Return True for tokens that look like a coined name ("LoRA", "GPT-4", "COCO").

    Examples
    --------
    >>> [is_name_like(t) for t in ("LoRA", "GPT-4", "COCO", "Model", "the", "wav2vec")]
    [True, True, True, False, False, True]
    """
    return bool(_NAME_LIKE.match(text))


def _after_commas(span: Span) -> int:
    """Index of the first token after the last comma inside ``span`` (else its start)."""
    commas = [t.i for t in span if t.text == ","]
    return commas[-1] + 1 if commas else span.start


def content_tokens(span: Span, lexicon: Lexicon) -> Span | None:
    """Trim determiners, numbers, punctuation and generic adjectives from the left, and
    what comes before a comma ("scalable, hierarchical framework")."""
    start, end = _after_commas(span), span.end
    doc = span.doc
    while start < end and (
        doc[start].lower_ in lexicon.generic_words
        or doc[start].pos_ in {"DET", "PRON", "PUNCT", "NUM", "ADP", "CCONJ", "PART"}
        or doc[start].is_stop
        or (doc[start].tag_ in {"JJR", "JJS", "RBR", "RBS", "RB"} and end - start > 1)
        or _ENUMERATOR.match(doc[start].text)
        or (
            doc[start].text in {"i", "ii", "iii", "iv", "v", "vi"}
            and start + 1 < end
            and doc[start + 1].text == ")"
        )
        or doc[start].text == ")"
    ):
        start += 1
    while end > start and (doc[end - 1].pos_ in {"PUNCT", "PART"} or doc[end - 1].is_stop):
        end -= 1
    return doc[start:end] if end > start else None


def whole_words(span: Span) -> Span:
    """Return ``span`` widened to whole hyphen-joined words ("oss-120b" -> "gpt-oss-120b",
    "Thoughts" -> "Thoughts-as-Planning"), so no mention starts or ends inside a word."""
    doc = span.doc
    start, end = span.start, span.end

    def glued(left: int) -> bool:  # tokens left and left+1 touch and one of them is "-"
        return not doc[left].whitespace_ and "-" in (doc[left].text, doc[left + 1].text)

    while start > 0 and glued(start - 1) and doc[start - 1].text != "(":
        start -= 1
    while end < len(doc) and glued(end - 1) and doc[end].text not in {")", ",", "."}:
        end += 1
    while start < end and doc[start].text == "-":
        start += 1
    while end > start and doc[end - 1].text == "-":
        end -= 1
    return doc[start:end] if 0 < end - start <= 12 else span


def light_trim(span: Span) -> Span | None:
    """Trim only determiners, pronouns and punctuation from the left ("a two-stage X"), and
    what comes before a comma."""
    start, end = _after_commas(span), span.end
    doc = span.doc
    while start < end and (
        doc[start].pos_ in {"DET", "PRON", "PUNCT"} or doc[start].tag_ == "PRP$"
    ):
        start += 1
    while end > start and doc[end - 1].pos_ == "PUNCT":
        end -= 1
    return doc[start:end] if end > start else None


def inner_phrases(span: Span | None) -> list[Span]:
    """Return the shorter phrases inside a noun phrase that end at its last word, or at the
    word before a final noun that follows another noun ("scalable and efficient mechanistic
    interpretability" -> "mechanistic interpretability", "interpretability"; "continual
    learning methods" -> "learning methods", "methods", "continual learning", "learning").
    None starts or ends inside a hyphenated word or at a conjunction."""
    if span is None:
        return []
    doc = span.doc
    ends = [span.end]
    if len(span) >= 3 and span[-1].pos_ == "NOUN" and span[-2].pos_ in {"NOUN", "PROPN"}:
        ends.append(span.end - 1)
    out = []
    for end in ends:
        first = span.start if end < span.end else span.start + 1
        for start in range(first, end):
            tok = doc[start]
            if (
                tok.pos_ in {"PUNCT", "CCONJ"}
                or tok.text == "-"
                or (start > 0 and doc[start - 1].text == "-")
            ):
                continue
            out.append(doc[start:end])
    return out


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
        prefix = text[: text.rfind("learning")].strip()
        is_task = any(
            prefix == m or prefix.endswith((" " + m, "-" + m))
            for m in lexicon.task_learning_modifiers
        )
        return "Task" if is_task else "Method"
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

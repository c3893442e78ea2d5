"""Phrase-level building blocks of entity recognition: candidate spans, trimming, typing by
head word, name shapes, and the features the candidate classifier scores."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from spacy.attrs import (
    DEP,
    HEAD,
    IDX,
    IS_ALPHA,
    IS_PUNCT,
    IS_STOP,
    IS_TITLE,
    LEMMA,
    LIKE_EMAIL,
    LIKE_NUM,
    LIKE_URL,
    LOWER,
    ORTH,
    POS,
    SENT_START,
    SPACY,
    TAG,
)
from spacy.parts_of_speech import NAMES as POS_NAMES
from spacy.strings import get_string_id
from spacy.tokens import Doc, Span

from kg.nlp.entities.vocabulary import Gazetteer, Lexicon

__all__ = [
    "Candidate",
    "SentenceIndex",
    "TokenTable",
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
    node: bool = True  # False: a measure a result may name ("a score of 85") but no entity


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
    table: TokenTable | None = None,
    clusters: dict[str, tuple[str, ...]] | None = None,
) -> list[str]:
    """Return the sparse features the entity classifier scores a candidate span by;
    with ``clusters`` (word -> cluster ids), also the clusters of the span's head, first
    word, modifiers, governor and neighbours."""
    sentences = sentences or SentenceIndex(span.doc)
    tab = table if table is not None else TokenTable(span.doc)
    start, end = span.start, span.end
    root = span.root.i
    feats = ["bias"]
    for c in cands:
        feats += [f"src={c.rule}", f"src={c.rule}:{c.label}"]
        if c.benchmark:
            feats.append("benchmark_word")
    ptype = phrase_type(span, lexicon, tab)
    feats += _word_features(tab, start, end, root, ptype, lexicon, gazetteer, counts, sentences)
    feats += _head_features(tab, start, end, root, ptype, lexicon, gazetteer, sentences)
    feats += _prior_features((priors or {}).get(head_key(tab.text[end - 1])))
    feats += _neighbour_features(tab, start, end)
    if clusters:
        feats += _cluster_features(tab, start, end, tab.head[root], clusters)
    return feats


def _word_features(tab, start, end, root, ptype, lexicon, gazetteer, counts, sentences):
    """The span's words, head, governor, shape and repetition."""
    last, gov = end - 1, tab.head[root]
    text, gov_lemma, head_lower = tab.span_text(start, end), tab.lemma[gov], tab.lower[last]
    feats = [
        f"ptype={ptype}",
        f"gaz={gazetteer.type_of(text)}",
        f"head={tab.lemma[last]}",
        f"head_suf={head_lower[-3:]}",
        f"head_pos={tab.pos[last]}",
        f"head_tag={tab.tag[last]}",
        f"first={tab.lower[start]}",
        f"first_pos={tab.pos[start]}",
        f"len={min(end - start, 6)}",
        f"dep={tab.dep[root]}",
        f"gov={gov_lemma}",
        f"gov_pos={tab.pos[gov]}",
        f"dep_gov={tab.dep[root]}_{gov_lemma}",
        f"count={min(counts[normalise_form(text)], 4)}",
        f"sent0={sentences.index(start) == 0}",
        f"vague_head={head_lower in lexicon.vague_heads}",
        f"name_like={any(tab.name_like[start:end])}",
        f"title={all(tab.title_or_symbol[start:end])}",
        f"lower={text.islower()}",
        f"digit={any(map(str.isdigit, text))}",
        f"hyphen={'-' in text}",
    ]
    for i in range(start, last):
        feats += [f"mod={tab.lemma[i]}", f"mod_pos={tab.pos[i]}"]
    return feats


def _head_features(tab, start, end, root, ptype, lexicon, gazetteer, sentences):
    """The head's word lists, the gazetteer on the span's tail, the sentence's number, the
    verb a preposition attaches to, and a "we" before the span."""
    last, gov, size = end - 1, tab.head[root], end - start
    lemma, head_lower = tab.lemma[last], tab.lower[last]
    feats = []
    for cls, heads in (
        ("task_heads", lexicon.task_heads),
        ("method_heads", lexicon.method_heads),
        ("metric_heads", lexicon.metric_heads),
        ("dataset_heads", lexicon.dataset_heads),
        ("vague_heads", lexicon.vague_heads),
    ):
        if lemma in heads or head_lower in heads:
            feats.append(f"head_in={cls}")
            feats.append(f"head_in={cls}_len{min(size, 3)}")
    if size > 1:
        feats.append(f"gaz_tail={gazetteer.type_of(tab.span_text(start + 1, end))}")
        feats.append(f"gaz_head={gazetteer.type_of(tab.text[last])}")
    feats.append(f"sent_num={sentences.has_number(start)}")
    if tab.dep[root] in {"dobj", "pobj", "nsubj", "nsubjpass", "attr"} and tab.dep[gov] == "prep":
        feats.append(f"prep_verb={tab.lower[gov]}_{tab.lemma[tab.head[gov]]}")
    if sentences.we_before(start):
        feats.append("after_we")
    feats.append(f"ptype_len={ptype}_{min(size, 3)}")
    return feats


def _prior_features(prior: dict[str, int] | None) -> list[str]:
    """The label the head word most often had in the training data, and how strongly."""
    if not prior:
        return ["prior=none"]
    total = sum(prior.values())
    best = max(prior, key=lambda k: (prior[k], k))
    share = prior[best] / total
    return [
        f"prior={best}",
        f"prior={best}_{'strong' if share >= 0.7 else 'weak'}",
        f"prior_o={'high' if prior.get('O', 0) / total > 0.3 else 'low'}",
    ]


def _neighbour_features(tab, start: int, end: int) -> list[str]:
    feats = [
        f"prev={tab.lower[start - 1] if start > 0 else '<s>'}",
        f"next={tab.lower[end] if end < len(tab) else '</s>'}",
    ]
    if start > 1:
        feats.append(f"prev2={tab.lower[start - 2]}_{tab.lower[start - 1]}")
    if end < len(tab) and tab.text[end] == "(":
        feats.append("defines_acronym")
    return feats


def _cluster_features(tab, start: int, end: int, gov: int, clusters) -> list[str]:
    """The clusters of the span's head, first word, modifiers, governor and neighbours."""
    last = end - 1
    where = [("head", last), ("first", start), ("gov", gov)]
    where += [("mod", i) for i in range(start, last)]
    if start > 0:
        where.append(("prev", start - 1))
    if end < len(tab):
        where.append(("next", end))
    feats = []
    for role, i in where:
        feats += [f"c_{role}={c}" for c in clusters.get(tab.lower[i], ("oov",))]
    return feats


class TokenTable:
    """Each token's strings and flags as plain lists, read once per doc (looking them up
    through ``Token`` objects for every candidate phrase costs more than the features)."""

    def __init__(self, doc: Doc) -> None:
        strings = doc.vocab.strings
        attrs = [ORTH, LOWER, LEMMA, POS, TAG, DEP, HEAD, IS_TITLE, IS_ALPHA, IS_STOP, SPACY, IDX]
        attrs += [LIKE_URL, IS_PUNCT, SENT_START, LIKE_NUM, LIKE_EMAIL]
        columns = (
            doc.to_array(attrs).reshape(len(doc), len(attrs)).T.tolist()
            if len(doc)
            else [[] for _ in attrs]
        )
        orth, lower, lemma, pos, tag, dep, head, title, alpha, stop, space, idx = columns[:12]
        url, punct, sent_start, num, email = columns[12:]
        self.doc, self.doc_text = doc, doc.text
        self.idx = idx
        self.text = [strings[h] for h in orth]
        self.lower = [strings[h] for h in lower]
        self.lemma = [strings[h].lower() for h in lemma]
        self.pos = [POS_NAMES[p] for p in pos]
        self.tag = [strings[h] for h in tag]
        self.dep = [strings[h] for h in dep]
        self.head = [i + (h if h < 2**63 else h - 2**64) for i, h in enumerate(head)]
        self.is_title = [bool(v) for v in title]
        self.is_alpha = [bool(v) for v in alpha]
        self.is_stop = [bool(v) for v in stop]
        self.space_after = [bool(v) for v in space]
        self.like_url = [bool(v) for v in url]
        self.like_num = [bool(v) for v in num]
        self.like_email = [bool(v) for v in email]
        self.is_punct = [bool(v) for v in punct]
        self.is_sent_start = [v == 1 for v in sent_start]

    def __len__(self) -> int:
        return len(self.text)

    @cached_property
    def name_like(self) -> list[bool]:
        """Whether each token looks like a coined name (:func:`is_name_like`)."""
        return [is_name_like(text) for text in self.text]

    @cached_property
    def title_or_symbol(self) -> list[bool]:
        """Whether each token is title-cased or not alphabetic."""
        return [t or not a for t, a in zip(self.is_title, self.is_alpha, strict=True)]

    @cached_property
    def noun_chunks(self) -> list[Span]:
        """The doc's noun chunks (none without a parse)."""
        return list(self.doc.noun_chunks) if self.doc.has_annotation("DEP") else []

    def span_text(self, start: int, end: int) -> str:
        """``doc[start:end].text``, sliced from the doc's text."""
        return self.doc_text[self.idx[start] : self.idx[end - 1] + len(self.text[end - 1])]


class SentenceIndex:
    """Sentence of each token, computed once per doc (``Token.sent`` scans each time)."""

    def __init__(self, doc: Doc) -> None:
        self.sents = list(doc.sents)
        self._of = [0] * len(doc)
        for i, sent in enumerate(self.sents):
            for j in range(sent.start, sent.end):
                self._of[j] = i
        like_num, lower = doc.to_array([LIKE_NUM, LOWER]).T.tolist() if len(doc) else ([], [])
        self._numbers = [any(like_num[s.start : s.end]) for s in self.sents]
        we = {get_string_id("we"), get_string_id("our")}
        self._we = [i for i, word in enumerate(lower) if word in we]

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


def _after_commas(span: Span, tab: TokenTable) -> int:
    """Index of the first token after the last comma inside ``span`` (else its start)."""
    words = tab.text[span.start : span.end]
    return span.end - words[::-1].index(",") if "," in words else span.start


def _table(span: Span, table: TokenTable | None) -> TokenTable:
    return table if table is not None else TokenTable(span.doc)


def content_tokens(span: Span, lexicon: Lexicon, table: TokenTable | None = None) -> Span | None:
    """Trim determiners, numbers, punctuation and generic adjectives from the left, and
    what comes before a comma ("scalable, hierarchical framework"). ``table``, the doc's
    :class:`TokenTable`, saves reading the tokens again."""
    tab = _table(span, table)
    start, end = _after_commas(span, tab), span.end
    text, pos = tab.text, tab.pos
    while start < end and (
        tab.lower[start] in lexicon.generic_words
        or pos[start] in {"DET", "PRON", "PUNCT", "NUM", "ADP", "CCONJ", "PART"}
        or tab.is_stop[start]
        or (tab.tag[start] in {"JJR", "JJS", "RBR", "RBS", "RB"} and end - start > 1)
        or _ENUMERATOR.match(text[start])
        or (
            text[start] in {"i", "ii", "iii", "iv", "v", "vi"}
            and start + 1 < end
            and text[start + 1] == ")"
        )
        or text[start] == ")"
    ):
        start += 1
    while end > start and (pos[end - 1] in {"PUNCT", "PART"} or tab.is_stop[end - 1]):
        end -= 1
    return span.doc[start:end] if end > start else None


def whole_words(span: Span, table: TokenTable | None = None) -> Span:
    """Return ``span`` widened to whole hyphen-joined words ("oss-120b" -> "gpt-oss-120b",
    "Thoughts" -> "Thoughts-as-Planning"), so no mention starts or ends inside a word."""
    tab = _table(span, table)
    text, space = tab.text, tab.space_after
    start, end = span.start, span.end
    # tokens k and k+1 are glued when they touch and one of them is "-"
    while (
        start > 0
        and not space[start - 1]
        and "-" in (text[start - 1], text[start])
        and text[start - 1] != "("
    ):
        start -= 1
    while (
        end < len(text)
        and not space[end - 1]
        and "-" in (text[end - 1], text[end])
        and text[end] not in {")", ",", "."}
    ):
        end += 1
    while start < end and text[start] == "-":
        start += 1
    while end > start and text[end - 1] == "-":
        end -= 1
    if (start, end) == (span.start, span.end):
        return span
    return span.doc[start:end] if 0 < end - start <= 12 else span


def light_trim(span: Span, table: TokenTable | None = None) -> Span | None:
    """Trim only determiners, pronouns and punctuation from the left ("a two-stage X"), and
    what comes before a comma."""
    tab = _table(span, table)
    start, end = _after_commas(span, tab), span.end
    pos = tab.pos
    while start < end and (pos[start] in {"DET", "PRON", "PUNCT"} or tab.tag[start] == "PRP$"):
        start += 1
    while end > start and pos[end - 1] == "PUNCT":
        end -= 1
    return span.doc[start:end] if end > start else None


def inner_phrases(span: Span | None, table: TokenTable | None = None) -> list[Span]:
    """Return the shorter phrases inside a noun phrase that end at its last word, or at the
    word before a final noun that follows another noun ("scalable and efficient mechanistic
    interpretability" -> "mechanistic interpretability", "interpretability"; "continual
    learning methods" -> "learning methods", "methods", "continual learning", "learning").
    None starts or ends inside a hyphenated word or at a conjunction."""
    if span is None:
        return []
    tab = _table(span, table)
    text, pos, doc = tab.text, tab.pos, span.doc
    ends = [span.end]
    if len(span) >= 3 and pos[span.end - 1] == "NOUN" and pos[span.end - 2] in {"NOUN", "PROPN"}:
        ends.append(span.end - 1)
    out = []
    for end in ends:
        first = span.start if end < span.end else span.start + 1
        for start in range(first, end):
            if (
                pos[start] in {"PUNCT", "CCONJ"}
                or text[start] == "-"
                or (start > 0 and text[start - 1] == "-")
            ):
                continue
            out.append(doc[start:end])
    return out


def phrase_type(span: Span, lexicon: Lexicon, table: TokenTable | None = None) -> str | None:
    """Return the entity type a noun phrase's words suggest, or None.

    Reads the head (last) word and its modifiers: "few-shot learning" is a Task,
    "contrastive learning" a Method, "success rate" a Metric, "X benchmark" a Dataset.
    """
    tab = _table(span, table)
    words, lemma = tab.lower[span.start : span.end], tab.lemma[span.end - 1]
    text = tab.span_text(span.start, span.end).lower()
    head = words[-1]
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
    if words[-1] not in lexicon.metric_last_words:
        return False  # no metric name ends with this word
    for size in (3, 2, 1):
        tail = " ".join(words[-size:])
        if len(words) >= size and tail in lexicon.metric_words:
            rest = words[:-size]
            return all(w in lexicon.metric_modifiers or w in lexicon.generic_words for w in rest)
    return False

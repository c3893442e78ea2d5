"""Phrase-level building blocks of entity recognition: candidate spans, trimming, typing by
head word, name shapes, and the features the candidate classifier scores."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass

from spacy.attrs import DEP, HEAD, IS_ALPHA, IS_TITLE, LEMMA, LOWER, ORTH, POS, TAG
from spacy.tokens import Doc, Span

from kg.nlp.vocabulary import Gazetteer, Lexicon

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
) -> list[str]:
    """Return the sparse features the entity classifier scores a candidate span by."""
    doc = span.doc
    sentences = sentences or SentenceIndex(doc)
    tab = table or TokenTable(doc)
    start, end = span.start, span.end
    last = end - 1
    root = span.root.i
    gov = tab.head[root]
    text, lemma, gov_lemma = span.text, tab.lemma[last], tab.lemma[gov]
    head_lower = tab.lower[last]
    ptype, size = phrase_type(span, lexicon), end - start
    feats = ["bias"]
    for c in cands:
        feats += [f"src={c.rule}", f"src={c.rule}:{c.label}"]
        if c.benchmark:
            feats.append("benchmark_word")
    words = tab.text[start:end]
    feats += [
        f"ptype={ptype}",
        f"gaz={gazetteer.type_of(text)}",
        f"head={lemma}",
        f"head_suf={head_lower[-3:]}",
        f"head_pos={tab.pos[last]}",
        f"head_tag={tab.tag[last]}",
        f"first={tab.lower[start]}",
        f"first_pos={tab.pos[start]}",
        f"len={min(size, 6)}",
        f"dep={tab.dep[root]}",
        f"gov={gov_lemma}",
        f"gov_pos={tab.pos[gov]}",
        f"dep_gov={tab.dep[root]}_{gov_lemma}",
        f"count={min(counts[normalise_form(text)], 4)}",
        f"sent0={sentences.index(start) == 0}",
        f"vague_head={head_lower in lexicon.vague_heads}",
        f"name_like={any(is_name_like(w) for w in words)}",
        f"title={all(tab.is_title[i] or not tab.is_alpha[i] for i in range(start, end))}",
        f"lower={text.islower()}",
        f"digit={any(map(str.isdigit, text))}",
        f"hyphen={'-' in text}",
    ]
    for i in range(start, last):
        feats += [f"mod={tab.lemma[i]}", f"mod_pos={tab.pos[i]}"]
    for cls in ("task_heads", "method_heads", "metric_heads", "dataset_heads", "vague_heads"):
        if lemma in getattr(lexicon, cls) or head_lower in getattr(lexicon, cls):
            feats.append(f"head_in={cls}")
            feats.append(f"head_in={cls}_len{min(size, 3)}")
    if size > 1:
        feats.append(f"gaz_tail={gazetteer.type_of(span[1:].text)}")
        feats.append(f"gaz_head={gazetteer.type_of(words[-1])}")
    feats.append(f"sent_num={sentences.has_number(start)}")
    if tab.dep[root] in {"dobj", "pobj", "nsubj", "nsubjpass", "attr"} and tab.dep[gov] == "prep":
        feats.append(f"prep_verb={tab.lower[gov]}_{tab.lemma[tab.head[gov]]}")
    if sentences.we_before(start):
        feats.append("after_we")
    feats.append(f"ptype_len={ptype}_{min(size, 3)}")
    prior = (priors or {}).get(head_key(words[-1]))
    if prior:
        total = sum(prior.values())
        best = max(prior, key=lambda k: (prior[k], k))
        share = prior[best] / total
        feats.append(f"prior={best}")
        feats.append(f"prior={best}_{'strong' if share >= 0.7 else 'weak'}")
        feats.append(f"prior_o={'high' if prior.get('O', 0) / total > 0.3 else 'low'}")
    else:
        feats.append("prior=none")
    feats += [
        f"prev={tab.lower[start - 1] if start > 0 else '<s>'}",
        f"next={tab.lower[end] if end < len(tab) else '</s>'}",
    ]
    if start > 1:
        feats.append(f"prev2={tab.lower[start - 2]}_{tab.lower[start - 1]}")
    if end < len(tab) and tab.text[end] == "(":
        feats.append("defines_acronym")
    return feats


class TokenTable:
    """Each token's strings and flags as plain lists, read once per doc (looking them up
    through ``Token`` objects for every candidate phrase costs more than the features)."""

    def __init__(self, doc: Doc) -> None:
        strings = doc.vocab.strings
        attrs = [ORTH, LOWER, LEMMA, POS, TAG, DEP, HEAD, IS_TITLE, IS_ALPHA]
        columns = (
            doc.to_array(attrs).reshape(len(doc), len(attrs)).T.tolist()
            if len(doc)
            else [[] for _ in attrs]
        )
        orth, lower, lemma, pos, tag, dep, head, title, alpha = columns
        self.text = [strings[h] for h in orth]
        self.lower = [strings[h] for h in lower]
        self.lemma = [strings[h].lower() for h in lemma]
        self.pos = [t.pos_ for t in doc] if len(doc) else []
        self.tag = [strings[h] for h in tag]
        self.dep = [strings[h] for h in dep]
        self.head = [i + (h if h < 2**63 else h - 2**64) for i, h in enumerate(head)]
        self.is_title = [bool(v) for v in title]
        self.is_alpha = [bool(v) for v in alpha]

    def __len__(self) -> int:
        return len(self.text)


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

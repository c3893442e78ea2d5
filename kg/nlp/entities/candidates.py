"""Where entity mentions may be: the candidate spans of kg's entity recognizer.

Candidates come from four sources, in order of trust: abbreviation definitions, the
gazetteer, name-like tokens ("GPT-4o", "ResNet-50", "LIBERO") typed by context, and noun
phrases typed by their head word; :func:`plain_chunks` adds every noun
phrase and its variants, untyped, for the classifier to judge
(:mod:`kg.nlp.entities.classify`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span

from kg.nlp.entities.phrases import (
    Candidate,
    TokenTable,
    content_tokens,
    inner_phrases,
    is_name_like,
    light_trim,
    phrase_type,
    sentence_of,
    whole_words,
)
from kg.nlp.entities.vocabulary import Gazetteer, Lexicon
from kg.nlp.extensions import doc_data

__all__ = [
    "SOURCES",
    "CandidateRules",
    "abbreviation_candidates",
    "candidate_rules",
    "find_candidates",
    "gazetteer_candidates",
    "name_candidates",
    "noun_chunk_candidates",
    "plain_chunks",
    "title_candidates",
]

_VERSION = re.compile(r"^(?:v?\d+(?:\.\d+)*[A-Za-z]?|[0-9.]+[BMKbmk]|[A-Z]{1,3}|v\d+)$")
_DATASET_NAME = re.compile(
    r"(Bench(mark)?|bench|Arena|Eval|QA|Corpus|Set|Data|Gym|Suite)(-?\d[\w.]*)?$"
)
_VERSION_NUMBER = re.compile(r"\d+(\.\d+)*[A-Za-z]?")
_BENCHMARK_NAME = re.compile(r"(Bench(mark)?|bench|Arena|Suite|Gym)(-?\d[\w.]*)?$")


@dataclass(frozen=True)
class CandidateRules:
    """What the candidate sources read: the word lists (``lexicon``, ``gazetteer``), the
    gazetteer's phrase matchers, and the options: ``max_chunk_tokens`` bounds a noun
    phrase, ``single_word_tasks`` lets a one-word gazetteer task through as trusted,
    ``metric_cues`` keeps a metric only in a sentence that reports a number or a
    comparison. :func:`candidate_rules` makes one."""

    lexicon: Lexicon
    gazetteer: Gazetteer
    lower_matcher: PhraseMatcher
    exact_matcher: PhraseMatcher
    max_chunk_tokens: int = 6
    single_word_tasks: bool = False
    metric_cues: bool = True


def candidate_rules(
    nlp: Language,
    lexicon: Lexicon,
    gazetteer: Gazetteer,
    *,
    max_chunk_tokens: int = 6,
    single_word_tasks: bool = False,
    metric_cues: bool = True,
) -> CandidateRules:
    """Return the :class:`CandidateRules` of these word lists, the gazetteer's terms
    matched by phrase matchers of ``nlp``'s vocabulary (lower-cased and exact)."""
    lower_matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
    exact_matcher = PhraseMatcher(nlp.vocab, attr="ORTH")
    _add_terms(nlp, lower_matcher, gazetteer.lower)
    _add_terms(nlp, exact_matcher, gazetteer.exact)
    return CandidateRules(lexicon, gazetteer, lower_matcher, exact_matcher,
                          max_chunk_tokens, single_word_tasks, metric_cues)  # fmt: skip


def _add_terms(nlp: Language, matcher: PhraseMatcher, rows) -> None:
    by_type: dict[str, list[Doc]] = {}
    for kind, term in rows:
        by_type.setdefault(kind, []).append(nlp.make_doc(term))
    for kind, docs in by_type.items():
        matcher.add(kind, docs)


def find_candidates(
    rules: CandidateRules, doc: Doc, table: TokenTable | None = None
) -> list[Candidate]:
    """Return every candidate mention the sources propose (overlapping, typed or not),
    in the order of :data:`SOURCES`, each widened to whole words, those the rules keep."""
    table = table if table is not None else TokenTable(doc)
    out = []
    for source in SOURCES:
        for cand in source(rules, doc, table):
            span = whole_words(doc[cand.start : cand.end], table)
            cand = replace(cand, start=span.start, end=span.end)
            if _keep(rules, doc, cand, table):
                out.append(cand)
    return out


def plain_chunks(rules: CandidateRules, doc: Doc, table: TokenTable) -> list[Candidate]:
    out = []
    for chunk in table.noun_chunks:
        trimmed = light_trim(chunk, table)
        variants = [content_tokens(chunk, rules.lexicon, table), trimmed]
        for span in list(variants):
            if span is None or len(span) < 2:
                continue
            if span[-1].lemma_.lower() in rules.lexicon.context_nouns:
                variants.append(span[:-1])  # "image classification tasks"
            if span[0].tag_ in {"VBN", "VBD"}:
                variants.append(span[1:])  # "trained Transformers" -> "Transformers"
        variants += inner_phrases(trimmed, table)
        seen: set[tuple[int, int]] = set()  # ordered and unique, so training is repeatable
        for span in variants:
            span = whole_words(span, table) if span is not None else None
            if span is None or len(span) > rules.max_chunk_tokens:
                continue
            start, end = span.start, span.end
            if (
                (start, end) in seen
                or table.span_text(start, end).lower() in rules.lexicon.research_fields
                or any(
                    table.like_url[i]
                    or "$" in table.text[i]
                    or "\\" in table.text[i]
                    or "http" in table.lower[i]
                    for i in range(start, end)
                )
            ):
                continue
            seen.add((span.start, span.end))
            out.append(Candidate(span.start, span.end, "O", "chunk"))
    return out


def abbreviation_candidates(rules: CandidateRules, doc: Doc, table: TokenTable) -> list[Candidate]:
    out: list[Candidate] = []
    types: dict[tuple[int, int], str | None] = {}
    for item in doc_data(doc, "kg_abbreviations"):
        long_span = doc.char_span(*item["long"], alignment_mode="expand")
        short_span = doc.char_span(*item["short"], alignment_mode="expand")
        if long_span is None or short_span is None:
            continue
        long_key = tuple(item["long"])
        if long_key not in types:
            trimmed = light_trim(long_span, table)
            short_text = short_span.text
            label = None
            if trimmed is not None:
                label = (
                    phrase_type(trimmed, rules.lexicon, table)
                    or rules.gazetteer.type_of(trimmed.text)
                    or rules.gazetteer.type_of(short_text)
                    or _context_type(rules, short_span)
                )
            types[long_key] = label
            if label and trimmed is not None:
                out.append(
                    Candidate(
                        trimmed.start,
                        trimmed.end,
                        label,
                        "abbreviation",
                        _is_benchmark(rules, trimmed),
                        group=trimmed.text,
                    )
                )
        label = types[long_key]
        if label:
            group = table.doc_text[item["long"][0] : item["long"][1]]
            out.append(
                Candidate(short_span.start, short_span.end, label, "abbreviation", group=group)
            )
    return out


def gazetteer_candidates(rules: CandidateRules, doc: Doc, table: TokenTable) -> list[Candidate]:
    out = []
    for matcher in (rules.lower_matcher, rules.exact_matcher):
        for match_id, start, end in matcher(doc):
            label = doc.vocab.strings[match_id]
            span = doc[start:end]
            if (
                label == "Task"
                and end < len(doc)
                and doc[end].pos_ in {"NOUN", "PROPN"}
                and doc[end].lemma_.lower() not in rules.lexicon.context_nouns
            ):
                continue  # "object detection model" is not the task, "... tasks" is
            if label == "Task" and phrase_type(span, rules.lexicon, table) == "Method":
                label = "Method"  # "knowledge distillation" is used as a technique
            if label == "Task" and len(span) == 1 and not rules.single_word_tasks:
                out.append(Candidate(start, end, label, "gazetteer_word"))
                continue
            if label == "Dataset" and _is_benchmark(rules, span):
                out.append(Candidate(start, end, label, "gazetteer", True))
            else:
                out.append(Candidate(start, end, label, "gazetteer"))
    return out


def name_candidates(rules: CandidateRules, doc: Doc, table: TokenTable) -> list[Candidate]:
    out = []
    names = _name_flags(rules, table)
    i = 0
    while i < len(doc):
        if not names[i]:
            i += 1
            continue
        start, end = i, i + 1
        while end < len(doc) and _continues_name(rules, doc[end - 1], doc[end]):
            end += 1
        while end > start and table.text[end - 1] in {"-", "_"}:
            end -= 1
        span = doc[start:end]
        label = rules.gazetteer.type_of(span.text) or _context_type(rules, span)
        bench = label == "Dataset" and (
            _is_benchmark(rules, span) or bool(_BENCHMARK_NAME.search(span.text))
        )
        out.append(Candidate(start, end, label, "name", bench))
        i = end
    return out + title_candidates(rules, doc, table, names)


def title_candidates(
    rules: CandidateRules, doc: Doc, table: TokenTable, names: list[bool]
) -> list[Candidate]:
    """Title-case names: "Barlow Twins", "Stable-Diffusion", "Llama 3", "Gemini 1.5"."""
    out = []
    n, text, lower, sent_start = len(table), table.text, table.lower, table.is_sent_start
    title = [t and a for t, a in zip(table.is_title, table.is_alpha, strict=True)]
    i = 0
    while i < n:
        if not title[i] or lower[i] in rules.lexicon.generic_words:
            i += 1
            continue
        end = i + 1
        while (
            end < n
            and not sent_start[end]
            and (
                title[end]
                or (
                    text[end] == "-"
                    and not table.space_after[end - 1]
                    and end + 1 < n
                    and table.is_title[end + 1]
                )
            )
        ):
            end += 1
        versioned = (
            end < n
            and not sent_start[end]
            and _VERSION_NUMBER.fullmatch(text[end]) is not None
            and lower[end - 1] not in rules.lexicon.not_names
        )
        if versioned:
            end += 1
        multi = end - i >= 2 and not sent_start[i]
        if (multi or versioned) and not any(names[i:end]):
            span = doc[i:end]
            out.append(
                Candidate(
                    i,
                    end,
                    rules.gazetteer.type_of(span.text) or _context_type(rules, span),
                    "title",
                )
            )
        i = end
    return out


def noun_chunk_candidates(rules: CandidateRules, doc: Doc, table: TokenTable) -> list[Candidate]:
    out = []
    for chunk in table.noun_chunks:
        span = content_tokens(chunk, rules.lexicon, table)
        if span is None or len(span) > rules.max_chunk_tokens:
            continue
        if any(
            table.like_url[i]
            or table.like_email[i]
            or "$" in table.text[i]
            or "\\" in table.text[i]
            for i in range(span.start, span.end)
        ):
            continue
        label = phrase_type(span, rules.lexicon, table)
        if label is None:
            continue
        head = span[-1].lower_
        if label == "Dataset":
            named = doc[span.start : span.end - 1]
            if len(named) and any(is_name_like(t.text) for t in named):
                out.append(
                    Candidate(
                        named.start,
                        named.end,
                        "Dataset",
                        "noun_chunk",
                        head in rules.lexicon.benchmark_heads,
                    )
                )
            continue
        if (
            label != "Metric"
            and len(span) == 1
            and (head in rules.lexicon.vague_heads or span[0].pos_ != "PROPN")
        ):
            continue
        if label != "Metric" and not _specific(rules, span):
            continue
        out.append(Candidate(span.start, span.end, label, "noun_chunk"))
    return out


SOURCES = (
    abbreviation_candidates,
    gazetteer_candidates,
    name_candidates,
    noun_chunk_candidates,
)
"""The candidate sources in order of trust: abbreviation definitions, the gazetteer,
name-like tokens and title-case names typed by context, noun phrases typed by their head."""


def _keep(rules: CandidateRules, doc: Doc, cand: Candidate, table: TokenTable) -> bool:
    start, end = cand.start, cand.end
    lower = table.lower
    if any(table.is_sent_start[start + 1 : end]):
        return False  # never across a sentence boundary
    if table.span_text(start, end).lower() in rules.lexicon.research_fields:
        return False  # an area of research is neither a technique nor a problem
    if any(
        table.like_url[i] or "http" in lower[i] or "github" in lower[i] or "://" in table.text[i]
        for i in range(start, end)
    ):
        return False
    if (
        cand.rule != "abbreviation"
        and cand.label != "Metric"
        and all(
            lower[i] in rules.lexicon.generic_words
            or lower[i] in rules.lexicon.vague_heads
            or table.is_punct[i]
            or table.is_stop[i]
            for i in range(start, end)
        )
    ):
        return False
    span = doc[start:end]
    if cand.label == "Metric" and cand.rule != "abbreviation" and rules.metric_cues:
        return _metric_supported(rules, span)
    return True


def _specific(rules: CandidateRules, span: Span) -> bool:
    """A phrase with a vague head ("models") needs a modifier that names something."""
    head = span[-1]
    mods = list(span[:-1])
    if all(t.lower_ in rules.lexicon.vague_heads or t.is_punct for t in span):
        return False
    if head.lower_ not in rules.lexicon.vague_heads:
        return True
    strong = [t for t in mods if t.pos_ in {"PROPN"} or is_name_like(t.text)]
    if head.tag_ in {"NNS", "NNPS"} and not strong:
        return False
    return bool(strong) or any(
        t.pos_ == "NOUN" or "-" in t.text or t.text == "-"
        for t in mods
        if t.lower_ not in rules.lexicon.vague_heads
    )


def _metric_supported(rules: CandidateRules, span: Span) -> bool:
    """Metrics count when the sentence reports a number or a comparison on them."""
    sent = sentence_of(span)
    return any(t.like_num or t.text == "%" for t in sent) or any(
        t.lemma_.lower() in rules.lexicon.cue_lemmas for t in sent
    )


def _continues_name(rules: CandidateRules, prev, tok) -> bool:
    doc = tok.doc
    if tok.is_sent_start:
        return False
    if _name_token(rules, tok):
        return True
    if tok.text in {"-", "_"}:
        return not prev.whitespace_
    if (
        prev.text in {"-", "_"}
        and not prev.whitespace_
        and not tok.text.endswith(".")
        and (tok.text[:1].isupper() or tok.text[:1].isdigit())
    ):
        return True  # XLS-R, Llama-Chat, but not LLM-based
    if (
        tok.is_title
        and tok.i + 1 < len(doc)
        and _name_token(rules, doc[tok.i + 1])
        and not doc[tok.i + 1].is_sent_start
    ):
        return True  # NYU Depth V2
    if _VERSION.match(tok.text) and tok.text[:1].isdigit():
        return not prev.whitespace_ or tok.text[-1:] in "BMKbmk" or "." in tok.text
    return False


def _name_token(rules: CandidateRules, tok) -> bool:
    return is_name_like(tok.text) and _usable_name(rules, tok.text, tok.like_url, tok.like_num)


def _name_flags(rules: CandidateRules, table: TokenTable) -> list[bool]:
    """:meth:`_name_token` of each token of the table's doc."""
    columns = (table.name_like, table.text, table.like_url, table.like_num)
    return [
        like and _usable_name(rules, text, url, num)
        for like, text, url, num in zip(*columns, strict=True)
    ]


def _usable_name(rules: CandidateRules, text: str, like_url: bool, like_num: bool) -> bool:
    """Whether a name-like word counts as a name (it is not a generic acronym, URL,
    number, size or formula)."""
    return (
        text not in rules.lexicon.generic_acronyms
        and not like_url
        and not like_num
        and "$" not in text
        and "\\" not in text
        and "%" not in text
        and not any(ch in text for ch in "/():;=<>{}[]")
        and not re.fullmatch(r"\d+[A-Za-z]{1,2}", text)  # 7B, 10x, 3D
    )


def _is_benchmark(rules: CandidateRules, span: Span) -> bool:
    doc = span.doc
    window = doc[max(span.start - 2, 0) : min(span.end + 2, len(doc))]
    return any(t.lower_ in rules.lexicon.benchmark_heads for t in window)


def _context_type(rules: CandidateRules, span: Span) -> str:
    doc = span.doc
    if _DATASET_NAME.search(span.text):
        return "Dataset"
    nxt = doc[span.end] if span.end < len(doc) else None
    if nxt is not None and nxt.lower_ in rules.lexicon.dataset_heads:
        return "Dataset"
    if nxt is not None and nxt.lower_ in rules.lexicon.metric_heads and span.text.isupper():
        return "Metric"
    if span.text in rules.lexicon.metric_words:
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
        sent_lemmas = {t.lemma_.lower() for t in sentence_of(span)}
        evaluation = rules.lexicon.eval_lemmas
        if governor.lemma_.lower() in evaluation or sent_lemmas & evaluation:
            if governor.pos_ != "VERB" or governor.lemma_.lower() in evaluation:
                return "Dataset"
    return "Method"

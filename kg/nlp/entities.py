"""Scientific entity recognition (Method, Task, Dataset, Metric) from rules and word lists.

Candidates come from four sources, in order of trust: abbreviation definitions, the
gazetteer, name-like tokens ("GPT-4o", "ResNet-50", "LIBERO") typed by context, and noun
phrases typed by their head word. Overlaps are settled by trust, then length. The
component is swappable: any component that fills ``doc.spans["kg_entities"]`` and
``doc._.kg_mention_info`` can replace it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

import numpy as np
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span
from spacy.util import registry

from kg.nlp.component import KgComponent
from kg.nlp.extensions import ENTITY_SPANS, doc_data, mention_key
from kg.nlp.perceptron import AveragedPerceptron
from kg.nlp.phrases import (
    Candidate,
    SentenceIndex,
    TokenTable,
    candidate_features,
    content_tokens,
    inner_phrases,
    is_name_like,
    light_trim,
    normalise_form,
    phrase_type,
    sentence_of,
    whole_words,
)
from kg.nlp.vocabulary import Gazetteer, Lexicon
from kg.resources import trained_file
from kg.schema import ENTITY_TYPES

__all__ = ["EntityRecognizer", "Candidate", "is_name_like", "phrase_type"]

_VERSION = re.compile(r"^(?:v?\d+(?:\.\d+)*[A-Za-z]?|[0-9.]+[BMKbmk]|[A-Z]{1,3}|v\d+)$")
_DATASET_NAME = re.compile(
    r"(Bench(mark)?|bench|Arena|Eval|QA|Corpus|Set|Data|Gym|Suite)(-?\d[\w.]*)?$"
)
_VERSION_NUMBER = re.compile(r"\d+(\.\d+)*[A-Za-z]?")
_BENCHMARK_NAME = re.compile(r"(Bench(mark)?|bench|Arena|Suite|Gym)(-?\d[\w.]*)?$")
_PRIORITY = {
    "abbreviation": 5,
    "gazetteer": 4,
    "name": 3,
    "gazetteer_word": 2,
    "title": 2,
    "noun_chunk": 2,
    "chunk": 1,
}
_CONFIDENCE = {
    "abbreviation": 0.85,
    "gazetteer": 0.8,
    "name": 0.7,
    "gazetteer_word": 0.6,
    "title": 0.6,
    "noun_chunk": 0.55,
    "chunk": 0.5,
}


class EntityRecognizer(KgComponent):
    """Find Method, Task, Dataset and Metric mentions.

    Reads the parse (noun chunks, POS, dependencies) and ``doc._.kg_abbreviations``;
    writes ``doc.spans["kg_entities"]`` (label = type) and ``doc._.kg_mention_info``
    (``"start:end"`` char offsets -> rule, confidence, benchmark flag, abbreviation group).
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
    ) -> None:
        self.name = name
        self.word_clusters = word_clusters
        self.head_priors = head_priors or {}
        self.always_keep = tuple(always_keep)
        self.recall_bias = recall_bias
        self.classifier = classifier
        self.single_word_tasks = single_word_tasks
        self.metric_cues = metric_cues
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

    def candidates(self, doc: Doc, table: TokenTable | None = None) -> list[Candidate]:
        """Return every candidate mention the rules propose (overlapping, typed or not)."""
        table = table if table is not None else TokenTable(doc)
        found = (
            self._from_abbreviations(doc, table)
            + self._from_gazetteer(doc, table)
            + self._from_names(doc, table)
            + self._from_noun_chunks(doc, table)
        )
        out = []
        for cand in found:
            span = whole_words(doc[cand.start : cand.end], table)
            cand = replace(cand, start=span.start, end=span.end)
            if self._keep(doc, cand, table):
                out.append(cand)
        return out

    def process(self, doc: Doc) -> None:
        if self.classifier is not None:
            chosen = self._classify(doc)
        else:
            chosen = _select(self.candidates(doc))
        spans, info = [], doc_data(doc, "kg_mention_info")
        for cand in chosen:
            span = Span(doc, cand.start, cand.end, label=cand.label)
            spans.append(span)
            info[mention_key(span)] = {
                "rule": f"{self.name}.{cand.rule}",
                "confidence": cand.confidence or _CONFIDENCE.get(cand.rule, 0.5),
                "benchmark": cand.benchmark,
                "group": cand.group,
            }
        doc.spans[ENTITY_SPANS] = spans

    def featurised_spans(self, doc: Doc) -> list[tuple[Span, list[Candidate], list[str]]]:
        """Return each distinct candidate span (rules and noun-phrase variants) with the
        candidates that propose it and the features the classifier scores it by."""
        table = TokenTable(doc)
        by_span: dict[tuple[int, int], list[Candidate]] = {}
        for cand in self.candidates(doc, table) + self._plain_chunks(doc, table):
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
            out.append((span, cands, feats))
        return out

    def _classify(self, doc: Doc) -> list[Candidate]:
        """Type or reject each candidate span with the trained classifier."""
        scored: list[Candidate] = []
        long_label: dict[str, str] = {}
        featurised = self.featurised_spans(doc)
        classes = self.classifier.classes
        matrix = self.classifier.score_matrix([feats for _, _, feats in featurised])
        labels, over_o = _best_entity_types(matrix, classes)
        for (span, cands, _), label, lead in zip(featurised, labels, over_o, strict=True):
            start, end = span.start, span.end
            margin = lead + self.recall_bias
            if margin <= 0:
                trusted = [c for c in cands if c.rule in self.always_keep]
                label, margin = (trusted[0].label, 1.0) if trusted else ("O", margin)
            listed = next((c.label for c in cands if c.rule == "gazetteer"), None)
            if label != "O" and listed in classes:  # a listed name keeps its listed type
                label = listed
            best = max(cands, key=lambda c: _PRIORITY.get(c.rule, 1))
            if best.group and best.rule == "abbreviation" and span.text == best.group:
                long_label[best.group] = label
            if label == "O":
                continue
            conf = round(min(0.95, 0.5 + margin / 40), 3)
            scored.append(
                Candidate(
                    start,
                    end,
                    label,
                    best.rule,
                    benchmark=label == "Dataset" and any(c.benchmark for c in cands),
                    group=best.group,
                    confidence=conf,
                )
            )
        # a short form follows its long form's decision
        scored = [
            c
            for c in scored
            if not (
                c.rule == "abbreviation"
                and c.group
                and doc[c.start : c.end].text != c.group
                and long_label.get(c.group, c.label) == "O"
            )
        ]
        scored = [
            c
            if not (
                c.rule == "abbreviation" and c.group in long_label and long_label[c.group] != "O"
            )
            else replace(c, label=long_label[c.group])
            for c in scored
        ]
        return self._harmonise_types(doc, _select(scored, by_confidence=True))

    def _harmonise_types(self, doc: Doc, chosen: list[Candidate]) -> list[Candidate]:
        """Give coordinated names one type ("on NQ-Open, NQ-Swap and XSum") and type a name
        by its apposition ("CodeTrace, a benchmark of ...")."""
        root_of = {doc[c.start : c.end].root.i: k for k, c in enumerate(chosen)}
        parent = list(range(len(chosen)))

        def find(k: int) -> int:
            while parent[k] != k:
                k = parent[k]
            return k

        for i, k in root_of.items():
            tok = doc[i]
            if tok.dep_ == "conj" and tok.head.i in root_of:
                parent[find(k)] = find(root_of[tok.head.i])
        clusters: dict[int, list[int]] = {}
        for k in range(len(chosen)):
            clusters.setdefault(find(k), []).append(k)
        out = list(chosen)
        for members in clusters.values():
            if len(members) < 2:
                continue
            votes = Counter(
                chosen[k].label for k in members if chosen[k].rule in {"gazetteer", "abbreviation"}
            )
            if not votes:
                continue
            label = votes.most_common(1)[0][0]
            for k in members:
                if chosen[k].rule == "name" and chosen[k].label != label:
                    out[k] = replace(chosen[k], label=label)
        votes_by_form: dict[str, Counter] = {}
        for c in out:  # one phrase, one type within a paper
            form = normalise_form(doc[c.start : c.end].text).rstrip("s")
            votes_by_form.setdefault(form, Counter())[c.label] += c.confidence or 0.5
        for k, c in enumerate(out):
            form = normalise_form(doc[c.start : c.end].text).rstrip("s")
            best = votes_by_form[form].most_common(1)[0][0]
            if best != c.label:
                out[k] = replace(c, label=best)
        task_end = {c.end for c in out if c.label == "Task"}
        for k, c in enumerate(out):
            if (
                c.rule == "name"
                and c.start >= 2
                and doc[c.start - 1].text == "("
                and c.start - 1 in task_end
            ):
                out[k] = replace(c, label="Dataset", benchmark=False)
                continue
            root = doc[c.start : c.end].root
            neighbours = list(root.children) + ([root.head] if root.dep_ == "appos" else [])
            for child in neighbours:
                if (child.dep_ == "appos" or child is root.head) and (
                    child.lemma_.lower() in self.lexicon.dataset_heads
                ):
                    bench = child.lemma_.lower() in self.lexicon.benchmark_heads
                    out[k] = replace(c, label="Dataset", benchmark=bench)
        return out

    def _plain_chunks(self, doc: Doc, table: TokenTable) -> list[Candidate]:
        out = []
        for chunk in table.noun_chunks:
            trimmed = light_trim(chunk, table)
            variants = [content_tokens(chunk, self.lexicon, table), trimmed]
            for span in list(variants):
                if span is None or len(span) < 2:
                    continue
                if span[-1].lemma_.lower() in self.lexicon.context_nouns:
                    variants.append(span[:-1])  # "image classification tasks"
                if span[0].tag_ in {"VBN", "VBD"}:
                    variants.append(span[1:])  # "trained Transformers" -> "Transformers"
            variants += inner_phrases(trimmed, table)
            seen: set[tuple[int, int]] = set()  # ordered and unique, so training is repeatable
            for span in variants:
                span = whole_words(span, table) if span is not None else None
                if span is None or len(span) > self.max_chunk_tokens:
                    continue
                start, end = span.start, span.end
                if (
                    (start, end) in seen
                    or table.span_text(start, end).lower() in self.lexicon.research_fields
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

    # -- candidate sources -------------------------------------------------------------
    def _from_abbreviations(self, doc: Doc, table: TokenTable) -> list[Candidate]:
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
                        phrase_type(trimmed, self.lexicon, table)
                        or self.gazetteer.type_of(trimmed.text)
                        or self.gazetteer.type_of(short_text)
                        or self._context_type(short_span)
                    )
                types[long_key] = label
                if label and trimmed is not None:
                    out.append(
                        Candidate(
                            trimmed.start,
                            trimmed.end,
                            label,
                            "abbreviation",
                            self._is_benchmark(trimmed),
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

    def _from_gazetteer(self, doc: Doc, table: TokenTable) -> list[Candidate]:
        out = []
        for matcher in (self.lower_matcher, self.exact_matcher):
            for match_id, start, end in matcher(doc):
                label = doc.vocab.strings[match_id]
                span = doc[start:end]
                if (
                    label == "Task"
                    and end < len(doc)
                    and doc[end].pos_ in {"NOUN", "PROPN"}
                    and doc[end].lemma_.lower() not in self.lexicon.context_nouns
                ):
                    continue  # "object detection model" is not the task, "... tasks" is
                if label == "Task" and phrase_type(span, self.lexicon, table) == "Method":
                    label = "Method"  # "knowledge distillation" is used as a technique
                if label == "Task" and len(span) == 1 and not self.single_word_tasks:
                    out.append(Candidate(start, end, label, "gazetteer_word"))
                    continue
                if label == "Dataset" and self._is_benchmark(span):
                    out.append(Candidate(start, end, label, "gazetteer", True))
                else:
                    out.append(Candidate(start, end, label, "gazetteer"))
        return out

    def _from_names(self, doc: Doc, table: TokenTable) -> list[Candidate]:
        out = []
        names = self._name_flags(table)
        i = 0
        while i < len(doc):
            if not names[i]:
                i += 1
                continue
            start, end = i, i + 1
            while end < len(doc) and self._continues_name(doc[end - 1], doc[end]):
                end += 1
            while end > start and table.text[end - 1] in {"-", "_"}:
                end -= 1
            span = doc[start:end]
            label = self.gazetteer.type_of(span.text) or self._context_type(span)
            bench = label == "Dataset" and (
                self._is_benchmark(span) or bool(_BENCHMARK_NAME.search(span.text))
            )
            out.append(Candidate(start, end, label, "name", bench))
            i = end
        return out + self._from_titles(doc, table, names)

    def _from_titles(self, doc: Doc, table: TokenTable, names: list[bool]) -> list[Candidate]:
        """Title-case names: "Barlow Twins", "Stable-Diffusion", "Llama 3", "Gemini 1.5"."""
        out = []
        n, text, lower, sent_start = len(table), table.text, table.lower, table.is_sent_start
        title = [t and a for t, a in zip(table.is_title, table.is_alpha, strict=True)]
        i = 0
        while i < n:
            if not title[i] or lower[i] in self.lexicon.generic_words:
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
                and lower[end - 1] not in self.lexicon.not_names
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
                        self.gazetteer.type_of(span.text) or self._context_type(span),
                        "title",
                    )
                )
            i = end
        return out

    def _from_noun_chunks(self, doc: Doc, table: TokenTable) -> list[Candidate]:
        out = []
        for chunk in table.noun_chunks:
            span = content_tokens(chunk, self.lexicon, table)
            if span is None or len(span) > self.max_chunk_tokens:
                continue
            if any(
                table.like_url[i]
                or table.like_email[i]
                or "$" in table.text[i]
                or "\\" in table.text[i]
                for i in range(span.start, span.end)
            ):
                continue
            label = phrase_type(span, self.lexicon, table)
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
                            head in self.lexicon.benchmark_heads,
                        )
                    )
                continue
            if (
                label != "Metric"
                and len(span) == 1
                and (head in self.lexicon.vague_heads or span[0].pos_ != "PROPN")
            ):
                continue
            if label != "Metric" and not self._specific(span):
                continue
            out.append(Candidate(span.start, span.end, label, "noun_chunk"))
        return out

    # -- helpers ---------------------------------------------------------------------
    def _keep(self, doc: Doc, cand: Candidate, table: TokenTable) -> bool:
        start, end = cand.start, cand.end
        lower = table.lower
        if any(table.is_sent_start[start + 1 : end]):
            return False  # never across a sentence boundary
        if table.span_text(start, end).lower() in self.lexicon.research_fields:
            return False  # an area of research is neither a technique nor a problem
        if any(
            table.like_url[i]
            or "http" in lower[i]
            or "github" in lower[i]
            or "://" in table.text[i]
            for i in range(start, end)
        ):
            return False
        if (
            cand.rule != "abbreviation"
            and cand.label != "Metric"
            and all(
                lower[i] in self.lexicon.generic_words
                or lower[i] in self.lexicon.vague_heads
                or table.is_punct[i]
                or table.is_stop[i]
                for i in range(start, end)
            )
        ):
            return False
        span = doc[start:end]
        if cand.label == "Metric" and cand.rule != "abbreviation" and self.metric_cues:
            return self._metric_supported(span)
        return True

    def _specific(self, span: Span) -> bool:
        """A phrase with a vague head ("models") needs a modifier that names something."""
        head = span[-1]
        mods = list(span[:-1])
        if all(t.lower_ in self.lexicon.vague_heads or t.is_punct for t in span):
            return False
        if head.lower_ not in self.lexicon.vague_heads:
            return True
        strong = [t for t in mods if t.pos_ in {"PROPN"} or is_name_like(t.text)]
        if head.tag_ in {"NNS", "NNPS"} and not strong:
            return False
        return bool(strong) or any(
            t.pos_ == "NOUN" or "-" in t.text or t.text == "-"
            for t in mods
            if t.lower_ not in self.lexicon.vague_heads
        )

    def _metric_supported(self, span: Span) -> bool:
        """Metrics count when the sentence reports a number or a comparison on them."""
        sent = sentence_of(span)
        return any(t.like_num or t.text == "%" for t in sent) or any(
            t.lemma_.lower() in self.lexicon.cue_lemmas for t in sent
        )

    def _continues_name(self, prev, tok) -> bool:
        doc = tok.doc
        if tok.is_sent_start:
            return False
        if self._name_token(tok):
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
            and self._name_token(doc[tok.i + 1])
            and not doc[tok.i + 1].is_sent_start
        ):
            return True  # NYU Depth V2
        if _VERSION.match(tok.text) and tok.text[:1].isdigit():
            return not prev.whitespace_ or tok.text[-1:] in "BMKbmk" or "." in tok.text
        return False

    def _name_token(self, tok) -> bool:
        return is_name_like(tok.text) and self._usable_name(tok.text, tok.like_url, tok.like_num)

    def _name_flags(self, table: TokenTable) -> list[bool]:
        """:meth:`_name_token` of each token of the table's doc."""
        columns = (table.name_like, table.text, table.like_url, table.like_num)
        return [
            like and self._usable_name(text, url, num)
            for like, text, url, num in zip(*columns, strict=True)
        ]

    def _usable_name(self, text: str, like_url: bool, like_num: bool) -> bool:
        """Whether a name-like word counts as a name (it is not a generic acronym, URL,
        number, size or formula)."""
        return (
            text not in self.lexicon.generic_acronyms
            and not like_url
            and not like_num
            and "$" not in text
            and "\\" not in text
            and "%" not in text
            and not any(ch in text for ch in "/():;=<>{}[]")
            and not re.fullmatch(r"\d+[A-Za-z]{1,2}", text)  # 7B, 10x, 3D
        )

    def _is_benchmark(self, span: Span) -> bool:
        doc = span.doc
        window = doc[max(span.start - 2, 0) : min(span.end + 2, len(doc))]
        return any(t.lower_ in self.lexicon.benchmark_heads for t in window)

    def _context_type(self, span: Span) -> str:
        doc = span.doc
        if _DATASET_NAME.search(span.text):
            return "Dataset"
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
            sent_lemmas = {t.lemma_.lower() for t in sentence_of(span)}
            evaluation = self.lexicon.eval_lemmas
            if governor.lemma_.lower() in evaluation or sent_lemmas & evaluation:
                if governor.pos_ != "VERB" or governor.lemma_.lower() in evaluation:
                    return "Dataset"
        return "Method"


def _best_entity_types(matrix: np.ndarray, classes: list[str]) -> tuple[list[str], list[float]]:
    """For each row of class scores: the best class other than "O" (a tie goes to the
    later name), and how far its score is above that of "O"."""
    others = sorted((c for c in classes if c != "O"), reverse=True)
    columns = matrix[:, [classes.index(c) for c in others]]
    best = columns.argmax(axis=1)
    lead = columns[np.arange(len(columns)), best] - matrix[:, classes.index("O")]
    return [others[k] for k in best.tolist()], lead.tolist()


def _select(candidates: list[Candidate], by_confidence: bool = False) -> list[Candidate]:
    """Keep non-overlapping candidates, most trusted (or confident) and longest first."""
    if by_confidence:
        ordered = sorted(
            candidates, key=lambda c: (-(c.confidence or 0), -(c.end - c.start), c.start)
        )
    else:
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
        "single_word_tasks": False,
        "metric_cues": True,
        "classifier": {"@misc": "kg.entity_classifier.v1", "path": ""},
        "recall_bias": 0.0,
        "always_keep": ["abbreviation", "name"],
        "head_priors": {"@misc": "kg.head_priors.v1", "path": ""},
        "word_clusters": {"@misc": "kg.word_clusters.v1", "path": ""},
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
) -> EntityRecognizer:
    """Build the scientific entity recognizer (rules, plus the classifier when given)."""
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
    )


@registry.misc("kg.entity_classifier.v1")
def load_entity_classifier(path: str = "") -> AveragedPerceptron | None:
    """Load the candidate classifier (default: the shipped one; ``"none"``: rules only)."""
    file = trained_file(path, "entity_classifier.json", "entity classifier")
    return AveragedPerceptron.from_disk(file) if file else None

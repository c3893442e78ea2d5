"""What each worker of a run does: load the pipeline once, extract chunks of records
with bounded memory. The process pool (:mod:`kg.nlp.running.runner`) and Dask
(:mod:`kg.nlp.running.distributed`) both run these."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from functools import lru_cache

from spacy.language import Language

from kg.ingest.record import Record, Skipped
from kg.nlp.extraction import PaperExtraction
from kg.nlp.pipeline import doc_to_extraction, load_pipeline, pipe_texts
from kg.nlp.text import clean_text_map

__all__ = [
    "Stamp",
    "cached_pipeline",
    "config_stamp",
    "one_blas_thread_each",
    "process_chunk",
    "process_records",
    "start_worker",
]

# A process keeps the words its first abstracts add (common words, mostly) in the vocab and
# the tokenizer's cache, until the string store has grown by this much; later chunks run in
# memory zones that free what they add. Memory stays bounded, and common words stay cheap
# to tokenize (about 0.5 ms per abstract: the tokenizer caches nothing inside a zone).
_KEPT_STRINGS = 20_000


Stamp = tuple[int, int] | None


def config_stamp(config: str | None) -> Stamp:
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
def cached_pipeline(base: str | None, config: str | None, stamp: Stamp) -> tuple[Language, int]:
    """The pipeline, and the string-store size up to which chunks keep their words."""
    nlp = load_pipeline(base, config)
    return nlp, len(nlp.vocab.strings) + _KEPT_STRINGS


def start_worker(base: str | None, config: str | None, stamp: Stamp) -> None:
    """Load the pipeline in a new worker process and leave it out of garbage collection
    scans: it lives as long as the worker. A pipeline that fails to load is reported by
    the first chunk, which loads it again."""
    try:
        cached_pipeline(base, config, stamp)
    except Exception:  # noqa: BLE001 - process_chunk raises it where the caller sees it
        return
    gc.freeze()


def process_chunk(args: tuple[str | None, str | None, Stamp, list[Record], int]) -> list:
    base, config, stamp, records, batch_size = args
    nlp, kept_strings = cached_pipeline(base, config, stamp)
    return list(process_records(nlp, records, batch_size, kept_strings))


def process_records(nlp: Language, records: list[Record], batch_size: int, kept_strings: int = 0):
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


_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextmanager
def one_blas_thread_each() -> Iterator[None]:
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

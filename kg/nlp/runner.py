"""Running the pipeline over many records: one chunk runner for the process pool and
Dask (:mod:`kg.nlp.distributed`), streaming, with bounded memory."""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from functools import lru_cache
from itertools import chain
from pathlib import Path

from spacy.language import Language

from kg.ingest.record import Record, Skipped
from kg.nlp.extraction import PaperExtraction
from kg.nlp.pipeline import doc_to_extraction, load_pipeline, pipe_texts
from kg.nlp.text import clean_text_map
from kg.util.tables import batched as _chunks

__all__ = [
    "cached_pipeline",
    "config_stamp",
    "extract",
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
        from kg.nlp.distributed import extract_on_dask  # Dask loads only when asked

        yield from extract_on_dask(
            records, scheduler, batch_size=batch_size, base=base, config=config
        )
        return
    config_s = str(config) if config else None
    stamp = config_stamp(config_s)
    if n_process <= 1:
        nlp, kept_strings = cached_pipeline(base, config_s, stamp)
        for chunk in _chunks(records, batch_size):
            yield from process_records(nlp, chunk, batch_size, kept_strings)
        return
    ctx = mp.get_context("spawn")
    with (
        one_blas_thread_each(),
        ctx.Pool(n_process, initializer=start_worker, initargs=(base, config_s, stamp)) as pool,
    ):
        pending: deque = deque()
        for chunk in _chunks(records, batch_size):
            task = (base, config_s, stamp, chunk, batch_size)
            pending.append(pool.apply_async(process_chunk, (task,)))
            if len(pending) >= 2 * n_process:
                yield from pending.popleft().get()
        while pending:
            yield from pending.popleft().get()


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

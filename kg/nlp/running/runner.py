"""Running the pipeline over many records: streaming chunks to a process pool or to Dask
(:mod:`kg.nlp.running.distributed`), with bounded memory; each chunk is run by
:mod:`kg.nlp.running.workers`."""

from __future__ import annotations

import multiprocessing as mp
from collections import deque
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path

from kg.ingest.record import Record, Skipped
from kg.nlp.extraction import PaperExtraction
from kg.nlp.running.workers import (
    cached_pipeline,
    config_stamp,
    one_blas_thread_each,
    process_chunk,
    process_records,
    start_worker,
)
from kg.util.tables import batched as _chunks

__all__ = ["extract"]


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
    instead (:mod:`kg.nlp.running.distributed`). A record the pipeline fails on comes out as
    ``Skipped``.
    """
    records = iter(records)
    first = next(records, None)
    if first is None:
        return  # nothing to extract (a resumed or added-to build): no pipeline, no workers
    records = chain([first], records)
    if scheduler is not None:
        from kg.nlp.running.distributed import extract_on_dask  # Dask loads only when asked

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

"""Extraction on a Dask cluster: the same chunks as the process pool, as Dask tasks.

``extract(records, scheduler="tcp://host:8786")`` sends chunks of records to the
workers of a running ``dask.distributed`` cluster; ``scheduler="local:N"`` starts a
local cluster of ``N`` single-threaded worker processes for the run. Each worker loads
the pipeline once (it is cached per process) and returns a chunk's extractions; results
come back in input order, and at most two chunks per worker are in flight, so memory on
the calling side stays bounded however long the input is.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from functools import lru_cache
from pathlib import Path

from kg.errors import KgError
from kg.ingest.record import Record, Skipped
from kg.nlp.extraction import PaperExtraction
from kg.nlp.running.workers import (
    config_stamp,
    one_blas_thread_each,
    process_chunk,
    start_worker,
)
from kg.util.tables import batched as _chunks

__all__ = ["extract_on_dask", "parse_scheduler", "LOCAL_WORKER_CONFIG"]

LOCAL_WORKER_CONFIG = {
    # the statistical profiler samples every thread's stack each 10 ms: CPU the
    # pipeline needs (measured: local:2 ran at ~78% of -j 2 with it on)
    "distributed.worker.profile.enabled": False,
    # one BLAS thread per worker; no MALLOC_TRIM_THRESHOLD_ (Dask sets 64 KiB, which
    # also fixes glibc's mmap threshold and makes spaCy's allocations slower)
    "distributed.nanny.pre-spawn-environ": {
        "OMP_NUM_THREADS": 1,
        "MKL_NUM_THREADS": 1,
        "OPENBLAS_NUM_THREADS": 1,
    },
}
"""Dask settings for the workers of ``--scheduler local:N`` (a remote cluster's workers
take theirs from their own Dask config; the README lists the same two)."""


def parse_scheduler(scheduler: str) -> tuple[str, int | str]:
    """Return ``("local", N)`` for ``local:N`` or ``("remote", address)`` for an address.

    Examples
    --------
    >>> parse_scheduler("local:2"), parse_scheduler("tcp://10.0.0.5:8786")
    (('local', 2), ('remote', 'tcp://10.0.0.5:8786'))
    """
    if scheduler.startswith("local:"):
        n = scheduler.removeprefix("local:")
        if not n.isdigit() or int(n) < 1:
            raise KgError(f"--scheduler {scheduler!r}: write local:N with N >= 1, e.g. local:2")
        return "local", int(n)
    if "://" not in scheduler:
        raise KgError(
            f"--scheduler {scheduler!r}: give a Dask scheduler address (tcp://HOST:8786) or local:N"
        )
    return "remote", scheduler


def extract_on_dask(
    records: Iterable[Record],
    scheduler: str,
    *,
    batch_size: int = 64,
    base: str | None = None,
    config: str | Path | None = None,
) -> Iterator[PaperExtraction | Skipped]:
    """Yield the extraction of each record, in input order, computed on Dask workers."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - distributed is a dependency
        raise KgError("--scheduler needs dask.distributed: pip install 'distributed'") from exc
    kind, where = parse_scheduler(scheduler)
    config_s = str(config) if config else None
    stamp = config_stamp(config_s)
    with ExitStack() as stack:
        if kind == "local":
            stack.enter_context(one_blas_thread_each())
            stack.enter_context(dask.config.set(LOCAL_WORKER_CONFIG))
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=int(where),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
            )
            client = stack.enter_context(Client(cluster))
        else:
            try:
                client = stack.enter_context(Client(str(where), timeout="30s"))
            except OSError as exc:
                raise KgError(
                    f"cannot reach the Dask scheduler at {where} ({exc}); is `dask scheduler` "
                    "running there and reachable from here?"
                ) from exc
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        pending: deque = deque()
        for i, chunk in enumerate(_chunks(records, batch_size)):
            task = (base, config_s, stamp, chunk, batch_size)
            pending.append(client.submit(_extract_chunk, task, key=f"kg-extract-{i}", pure=False))
            if len(pending) >= 2 * workers:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()


@lru_cache(maxsize=2)
def _worker_ready(base: str | None, config: str | None, stamp) -> None:
    """Load the pipeline once in this worker process and leave it out of garbage
    collection scans, as the process pool's initializer does."""
    start_worker(base, config, stamp)


def _extract_chunk(task: tuple) -> list:
    """The Dask task: one chunk of records through the pipeline of this worker."""
    _worker_ready(*task[:3])
    return process_chunk(task)

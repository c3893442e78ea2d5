"""Peak memory of an extraction worker against the length of one abstract.

Usage:
    python benchmarks/record_memory.py [--lengths 1000,10000,50000,100000] [--json OUT]

For each length and each kind of text, a fresh process loads kg's pipeline, extracts one
ordinary abstract (so the pipeline is warm), resets the kernel's peak counter (VmHWM,
through ``/proc/self/clear_refs``; Linux) and extracts one record of that length the way a
``kg build`` worker does (``kg.nlp.running.workers.process_records``). The figure is that
record's peak over the worker's resident memory before it. Kinds of text, made from
the shared corpus (``../shared/corpora/ml_abstracts.jsonl.gz``), nothing shipped:

- ``abstracts``: abstracts of the corpus run together;
- ``names``: capitalised word pairs with an acronym each, "Word Word (WW12)", so every
  few words name a new entity (the worst case for the relation step's pairs);
- ``results``: "X reaches 81.2% accuracy on Y," repeated, one long sentence of results.

The goal (issue 45): a 100,000-character record costs under 300 MB more than a normal
one; the exit status is 1 when a kind's largest figure exceeds its 1,000-character
figure by 300 MB or more.
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing as mp
import random
import re
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "ml_abstracts.jsonl.gz"
LIMIT_MB = 300
WARM_UP = (
    "We propose a sparse attention model for long documents. On two summarisation "
    "benchmarks it improves ROUGE-L by 1.2 points over a dense baseline."
)


def _corpus_texts(n: int = 400) -> list[str]:
    out = []
    with gzip.open(CORPUS, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            text = rec.get("abstract") or rec.get("text") or ""
            out.append(" ".join(text.split()))
            if len(out) >= n:
                break
    return out


def make_text(kind: str, length: int, seed: int = 0) -> str:
    """A text of ``length`` characters of the given kind (see the module's docstring)."""
    rng = random.Random(seed)
    texts = _corpus_texts()
    words = re.findall(r"[A-Za-z][a-z]{3,}", " ".join(texts))
    parts: list[str] = []
    size = 0
    i = 0
    while size < length:
        if kind == "abstracts":
            part = texts[i % len(texts)]
        elif kind == "names":
            a, b = rng.choice(words), rng.choice(words)
            part = f"{a.capitalize()} {b.capitalize()} ({a[0].upper()}{b[0].upper()}{i})"
        elif kind == "results":
            method, data = rng.choice(words).capitalize(), rng.choice(words).capitalize()
            part = f"{method} reaches {rng.uniform(10, 99):.1f}% accuracy on {data},"
        else:
            raise ValueError(f"unknown kind {kind!r}")
        parts.append(part)
        size += len(part) + 1
        i += 1
    return " ".join(parts)[:length]


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


def _reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")


def _measure(text: str, queue) -> None:
    from kg.ingest.record import Record
    from kg.nlp.running.workers import cached_pipeline as _cached_pipeline
    from kg.nlp.running.workers import process_records as _process_records

    nlp, kept = _cached_pipeline(None, None, None)
    _process_records(nlp, [Record(id="warm", text=WARM_UP)], 64, kept)
    _reset_peak()
    before = _peak_mb()
    start = time.perf_counter()
    out = _process_records(nlp, [Record(id="long", text=text)], 64, kept)
    seconds = time.perf_counter() - start
    entities = len(getattr(out[0], "mentions", []))
    queue.put({"before_mb": before, "peak_mb": _peak_mb(), "seconds": seconds,
               "mentions": entities, "result": type(out[0]).__name__})  # fmt: skip


def measure(kind: str, length: int) -> dict:
    """Run one record of ``kind`` and ``length`` in a fresh worker process."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_measure, args=(make_text(kind, length), queue))
    proc.start()
    row = queue.get()
    proc.join()
    return {"kind": kind, "chars": length, **row, "extra_mb": row["peak_mb"] - row["before_mb"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="1000,10000,50000,100000")
    parser.add_argument("--kinds", default="abstracts,names,results")
    parser.add_argument("--json", type=Path, help="Also write the rows as JSON here.")
    args = parser.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    rows = []
    print(
        f"{'kind':10} {'chars':>8} {'mentions':>8} {'seconds':>8} {'worker MB':>10} {'extra MB':>9}"
    )
    for kind in args.kinds.split(","):
        for length in lengths:
            row = measure(kind, length)
            rows.append(row)
            print(f"{kind:10} {length:8,} {row['mentions']:8,} {row['seconds']:8.1f} "
                  f"{row['peak_mb']:10.0f} {row['extra_mb']:9.0f}", flush=True)  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    worst = 0.0
    for kind in {r["kind"] for r in rows}:
        mine = [r for r in rows if r["kind"] == kind]
        worst = max(worst, max(r["peak_mb"] for r in mine) - min(r["peak_mb"] for r in mine))
    print(f"largest growth of the worker's peak with record length: {worst:.0f} MB "
          f"(goal: under {LIMIT_MB} MB)")  # fmt: skip
    return 0 if worst < LIMIT_MB else 1


if __name__ == "__main__":
    raise SystemExit(main())

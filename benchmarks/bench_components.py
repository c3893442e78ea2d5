"""Benchmark the extraction pipeline component by component: seconds and share of the time.

Usage:
    python benchmarks/bench_components.py --limit 1000

Reads the first N abstracts of ../shared/corpora/ml_abstracts.jsonl.gz (never copied into
the repo), runs kg's pipeline over them in batches in one process and times the tokenizer
and each component separately, so speed work can go where the time goes.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import time
from pathlib import Path

from kg.nlp import load_pipeline
from kg.nlp.text import clean_text

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "ml_abstracts.jsonl.gz"


def component_seconds(texts: list[str], batch_size: int = 64) -> dict[str, float]:
    """Return the seconds the tokenizer and each pipeline component spend on ``texts``."""
    nlp = load_pipeline()
    seconds = dict.fromkeys(["tokenizer", *nlp.pipe_names], 0.0)
    for i in range(0, len(texts), batch_size):
        start = time.perf_counter()
        docs = [nlp.make_doc(t) for t in texts[i : i + batch_size]]
        seconds["tokenizer"] += time.perf_counter() - start
        for name, proc in nlp.pipeline:
            start = time.perf_counter()
            docs = list(proc.pipe(docs)) if hasattr(proc, "pipe") else [proc(d) for d in docs]
            seconds[name] += time.perf_counter() - start
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=1000, help="abstracts to run")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    with gzip.open(args.corpus, "rt", encoding="utf-8") as fh:
        rows = (json.loads(line) for line in fh)
        texts = [clean_text(r["abstract"]) for r in itertools.islice(rows, args.limit)]
    seconds = component_seconds(texts)
    total = sum(seconds.values())
    print(f"{len(texts)} abstracts, {total:.1f} s, {len(texts) / total:.1f} abstracts/s")
    print("| component | seconds | share |\n|---|---|---|")
    for name, sec in seconds.items():
        print(f"| {name} | {sec:.1f} | {sec / total:.0%} |")


if __name__ == "__main__":
    main()

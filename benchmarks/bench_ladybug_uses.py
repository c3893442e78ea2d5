"""Benchmark LadybugDB's write of one heavy relationship table: a synthetic USES.

Usage:
    python benchmarks/bench_ladybug_uses.py                  # kg's size rule
    python benchmarks/bench_ladybug_uses.py --both           # force both directions
    python benchmarks/bench_ladybug_uses.py --uses 400000    # a bigger table

The table is shaped like USES of the 288k-abstract build (the corpus four times): 170,153
methods, 181,900 Method -> Method relationships whose sources are skewed towards a few
hubs, each with 4-20 papers and up to 25 evidence sentences, about 325 MB as CSV. It is
written with :func:`kg.exporters.ladybug.write_database` under the build's buffer pool
(``KG_LADYBUG_MEMORY_MB``, default 512); the script prints each ``COPY``, the total time and
the process's peak resident memory. Nothing is read from ``../shared``.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg.exporters import ladybug  # noqa: E402
from kg.graph.store import json_text  # noqa: E402

_WORDS = (
    "the model we propose uses a transformer encoder with attention over tokens "
    "and improves accuracy on long inputs"
).split()


class SyntheticUses:
    """A graph source (the interface of :mod:`kg.graph.store`) of methods and USES."""

    def __init__(self, methods: int, uses: int, seed: int = 11) -> None:
        self.methods, self.uses, self.seed = methods, uses, seed

    def label_counts(self) -> Counter:
        return Counter({"Method": self.methods})

    def type_counts(self) -> Counter:
        return Counter({"USES": self.uses})

    def nodes(self, label: str | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
        if label not in (None, "Method"):
            return
        for i in range(self.methods):
            key = f"method:x{i}"
            yield key, {
                "key": key, "type": "Method", "name": f"x{i}", "aliases": [f"x{i}a"],
                "support": 1, "mention_count": 1, "proposed_count": 0, "benchmark": False,
            }  # fmt: skip

    def edges(
        self, rtype: str | None = None, *, evidence_json: bool = False
    ) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
        if rtype not in (None, "USES"):
            return
        rng = random.Random(self.seed)
        seen: set[tuple[int, int]] = set()
        while len(seen) < self.uses:
            u, v = int(self.methods * rng.random() ** 2), rng.randrange(self.methods)
            if (u, v) in seen or u == v:
                continue
            seen.add((u, v))
            k = 1
            while rng.random() < 0.2:
                k += 1
            papers = [
                f"2401.{rng.randrange(99999):05d}{suffix}"
                for _ in range(k)
                for suffix in ("", "-copy1", "-copy2", "-copy3")
            ]
            evidence = [
                {
                    "sentence": 2,
                    "text": " ".join(rng.choice(_WORDS) for _ in range(rng.randint(18, 32))),
                    "head_span": [10, 20],
                    "tail_span": [30, 44],
                    "rule": "kg_relations.classifier",
                    "confidence": 0.61,
                    "paper": paper,
                }  # fmt: skip
                for paper in papers[:25]
            ]
            props = {"support": len(papers), "confidence": 0.6, "papers": papers}
            if evidence_json:
                evidence = json_text(evidence)
            yield f"method:x{u}", f"method:x{v}", "USES", {**props, "evidence": evidence}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", type=int, default=170_153)
    parser.add_argument("--uses", type=int, default=181_900)
    parser.add_argument("--both", action="store_true", help="never store forward only")
    args = parser.parse_args()

    copy = ladybug._copy

    def traced(conn, table: str, file: Path, **kw: Any) -> None:
        t0 = time.perf_counter()
        copy(conn, table, file, **kw)
        mb = file.stat().st_size / 2**20
        print(f"  COPY {table} {mb:.1f} MB in {time.perf_counter() - t0:.1f} s", flush=True)

    ladybug._copy = traced
    above = sys.maxsize if args.both else None
    print(f"pool {ladybug.WRITE_BUFFER_POOL // 2**20} MB, "
          f"forward only above {ladybug.FORWARD_ONLY_ABOVE // 2**20} MB")  # fmt: skip
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kg-bench-ladybug-") as tmp:
        source = SyntheticUses(args.methods, args.uses)
        try:
            written = ladybug.write_database(
                source, Path(tmp) / "graph.lbdb", forward_only_above=above
            )
            print(written.counts, *written.notes)
        finally:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{time.perf_counter() - t0:.1f} s, peak {peak:.0f} MB")


if __name__ == "__main__":
    main()

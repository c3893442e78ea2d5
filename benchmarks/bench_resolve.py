"""Benchmark resolution alone: time and peak memory of ``resolve_table`` over a build's
paper-local entities (``BUILD/tables/locals``), each run in a fresh process.

Usage:
    python benchmarks/bench_resolve.py BUILD [--runs 3] [--code DIR ...]

``--code`` names checkouts of kg to compare (``git worktree add /tmp/before REV``); the
runs alternate between them, so a busy machine slows each alike. Without it, the kg this
script sits in is timed. The build is only read; entities and merges go to a temporary
directory.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """
import json, resource, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
import duckdb
from kg.resolve.resolver import resolve_table
locals_ = sys.argv[2]
con = duckdb.connect()
con.execute("SET memory_limit = '256MB'")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with tempfile.TemporaryDirectory() as tmp:
    start = time.perf_counter()
    res = resolve_table(con, f"read_parquet('{locals_}/*.parquet')", f"{tmp}/entities.parquet")
    seconds = time.perf_counter() - start
papers = con.execute(f"SELECT count(DISTINCT paper) FROM read_parquet('{locals_}/*.parquet')")
papers = papers.fetchone()[0]
rules = {}
for m in res.merges:
    rules[m.rule] = rules.get(m.rule, 0) + 1
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "peak_mb": peak / 1024, "grew_mb": (peak - base) / 1024,
                  "merges": rules, "papers": papers}))
"""


def run_once(code: Path, locals_: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(code), str(locals_)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"resolution failed with {code}:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--code", type=Path, action="append")
    args = parser.parse_args()
    locals_ = args.build / "tables" / "locals"
    if not locals_.is_dir():
        raise SystemExit(f"{locals_}: no such folder; give a build kg build wrote")
    codes = args.code or [ROOT]
    results: dict[Path, list[dict]] = {c: [] for c in codes}
    for i in range(args.runs):
        for code in codes:
            results[code].append(run_once(code, locals_))
            print(f"run {i + 1}/{args.runs} {code}: {results[code][-1]['seconds']:.1f} s",
                  file=sys.stderr)  # fmt: skip
    papers = results[codes[0]][-1]["papers"]
    print(f"resolution of {papers} papers' local entities ({args.build}), {args.runs} runs:")
    for code, runs in results.items():
        secs = [r["seconds"] for r in runs]
        print(f"  {code}: median {statistics.median(secs):.1f} s (min {min(secs):.1f}, max "
              f"{max(secs):.1f}), peak memory {max(r['peak_mb'] for r in runs):.0f} MB; "
              f"merges {runs[-1]['merges']}")  # fmt: skip


if __name__ == "__main__":
    main()

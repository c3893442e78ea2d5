"""Benchmark the saved SPARQL queries on a build's Oxigraph store.

Usage:
    python benchmarks/bench_sparql.py BUILD_DIR [--repeat 3] [--json out.json] [--rebuild]

Writes BUILD_DIR/graph.oxigraph from BUILD_DIR/graph.ttl when it is missing (or with
--rebuild), reporting the time and the size on disk; then runs every saved query in
queries/sparql/ with parameters picked from the graph (its most supported dataset, method,
task and a paper that proposes something), in process (first run and best of --repeat)
and as a whole `kg sparql` command (process start included); a query still running after
--cap seconds is stopped and reported as "> cap".
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.exporters.oxigraph import STORE_NAME, write_store  # noqa: E402
from kg.query.sparql import SparqlEngine, list_sparql_queries  # noqa: E402

PICK = """
SELECT ?name WHERE { ?e a kgo:%s ; skos:prefLabel ?name ; kgo:support ?n }
ORDER BY DESC(?n) ?name LIMIT 2 OFFSET %d
"""
PAPER = """
SELECT ?id WHERE { ?p kgo:proposes ?m ; dcterms:identifier ?id . ?m a kgo:Method }
ORDER BY ?id LIMIT 1
"""


# one saved query, run in a process of its own so that a slow one can be stopped at --cap
CHILD = """
import json, sys, time
from kg.query.sparql import SparqlEngine, get_sparql_query
build, name, given, repeat = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
engine, saved = SparqlEngine(build), get_sparql_query(name)
times = []
for _ in range(repeat):
    t0 = time.perf_counter()
    rows = engine.run(saved.text, saved.bind(given)).rows
    times.append(time.perf_counter() - t0)
print(json.dumps({"rows": len(rows), "times": times}))
"""


def _run(cmd: list[str], cap: float) -> str | None:
    """The standard output of ``cmd``, or None when it runs longer than ``cap`` seconds."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=cap, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])}...: failed: {done.stderr}")
    return done.stdout


def _params(engine: SparqlEngine, rank: int = 1) -> dict[str, dict]:
    """Parameters for each saved query, taken from the graph itself: the ``rank``-th most
    supported entity of the kind a parameter names (1: the biggest, the slowest to answer)."""

    def top(label: str) -> list[str]:
        return [r[0] for r in engine.run(PICK % (label, rank - 1)).rows]

    methods, datasets, tasks = top("Method"), top("Dataset"), top("Task")
    (paper,) = engine.run(PAPER).rows[0]
    by_kind = {"Method": methods[0], "Dataset": datasets[0], "Task": tasks[0]}
    out: dict[str, dict] = {}
    for q in list_sparql_queries():
        given = {}
        for p in q.params:
            if not p.required:
                continue
            if p.name == "paper":
                given[p.name] = paper
            elif p.name == "method_b":
                given[p.name] = methods[1]
            elif p.name == "text":
                given[p.name] = "attention"
            else:
                kind = next((k for k in by_kind if k.lower() in p.help.lower()), "Dataset")
                given[p.name] = by_kind[kind]
        out[q.name] = given
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--rebuild", action="store_true", help="write the store again")
    ap.add_argument("--only", nargs="*", help="run only these saved queries")
    ap.add_argument("--no-cli", action="store_true", help="skip the whole-command timings")
    ap.add_argument(
        "--rank",
        type=int,
        default=1,
        help="name the rank-th most supported entities in parameters (1: the top)",
    )
    ap.add_argument("--cap", type=float, default=60.0, help="stop a query after this many s")
    args = ap.parse_args()

    store = args.build / STORE_NAME
    report: dict = {"build": str(args.build)}
    if args.rebuild and store.exists():
        shutil.rmtree(store)
    if not store.exists():
        t0 = time.perf_counter()
        info = write_store(None, store, turtle=args.build / "graph.ttl")
        report["store"] = {
            "seconds": round(time.perf_counter() - t0, 1),
            "triples": info.triples,
            "bytes": info.bytes,
            "turtle_bytes": (args.build / "graph.ttl").stat().st_size,
        }
        print(f"store: {info.triples:,} triples, {info.bytes / 2**20:,.0f} MiB on disk, "
              f"{report['store']['seconds']} s")  # fmt: skip
    t0 = time.perf_counter()
    engine = SparqlEngine(args.build)
    report["open_seconds"] = round(time.perf_counter() - t0, 3)
    params = _params(engine, args.rank)
    report["rank"] = args.rank
    report["queries"] = {}
    report["cap_s"] = args.cap
    print(f"{'query':28s} {'rows':>6s} {'first s':>8s} {'best s':>8s} {'kg sparql s':>12s}")
    for q in list_sparql_queries():
        if args.only and q.name not in args.only:
            continue
        given = params[q.name]
        child = [sys.executable, "-c", CHILD, str(args.build), q.name, json.dumps(given),
                 str(max(1, args.repeat))]  # fmt: skip
        timed = _run(child, args.cap)
        cmd = [sys.executable, "-m", "kg", "sparql", str(args.build), q.name, "--format", "json"]
        cmd += [arg for k, v in given.items() for arg in ("-p", f"{k}={v}")]
        t0 = time.perf_counter()
        cli = None if args.no_cli or timed is None else _run(cmd, args.cap)
        cli_s = time.perf_counter() - t0 if cli is not None else None
        times = json.loads(timed) if timed is not None else None
        report["queries"][q.name] = {
            "params": given,
            "rows": times["rows"] if times else None,
            "first_s": round(times["times"][0], 4) if times else None,
            "best_s": round(min(times["times"]), 4) if times else None,
            "cli_s": round(cli_s, 3) if cli_s is not None else None,
        }

        def show(v: float | None) -> str:
            return f"> {args.cap:.0f}" if v is None else f"{v:.3f}"

        r = report["queries"][q.name]
        print(f"{q.name:28s} {r['rows'] if times else '-':>6} {show(r['first_s']):>8s} "
              f"{show(r['best_s']):>8s} {show(r['cli_s']) if not args.no_cli else '-':>12s}",
              flush=True)  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()

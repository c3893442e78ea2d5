"""Benchmark the saved SPARQL queries on a build's Oxigraph store.

Usage:
    python benchmarks/bench_sparql.py BUILD_DIR [--repeat 3] [--json out.json] [--rebuild]

Writes BUILD_DIR/graph.oxigraph from BUILD_DIR/graph.ttl when it is missing (or with
--rebuild), reporting the time and the size on disk; then runs every saved query in
queries/sparql/ with parameters picked from the graph (its most supported dataset, method,
task and a paper that proposes something), in process (first run and best of --repeat)
and as a whole `kg sparql` command (process start included).
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
from kg.query.sparql import SparqlEngine, get_sparql_query, list_sparql_queries  # noqa: E402

PICK = """
SELECT ?name WHERE { ?e a kgo:%s ; skos:prefLabel ?name ; kgo:support ?n }
ORDER BY DESC(?n) ?name LIMIT 2
"""
PAPER = """
SELECT ?id WHERE { ?p kgo:proposes ?m ; dcterms:identifier ?id . ?m a kgo:Method }
ORDER BY ?id LIMIT 1
"""


def _params(engine: SparqlEngine) -> dict[str, dict]:
    """Parameters for each saved query, taken from the graph itself."""

    def top(label: str) -> list[str]:
        return [r[0] for r in engine.run(PICK % label).rows]

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
    params = _params(engine)
    report["queries"] = {}
    print(f"{'query':28s} {'rows':>6s} {'first s':>8s} {'best s':>8s} {'kg sparql s':>12s}")
    for q in list_sparql_queries():
        if args.only and q.name not in args.only:
            continue
        saved = get_sparql_query(q.name)
        bound = saved.bind(params[q.name])
        times = []
        for _ in range(max(1, args.repeat)):
            t0 = time.perf_counter()
            rows = engine.run(saved.text, bound).rows
            times.append(time.perf_counter() - t0)
        cmd = [sys.executable, "-m", "kg", "sparql", q.name, str(args.build), "--format", "json"]
        cmd += [arg for k, v in params[q.name].items() for arg in ("-p", f"{k}={v}")]
        t0 = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True) if not args.no_cli else None
        cli = time.perf_counter() - t0 if done else float("nan")
        if done and done.returncode != 0:
            raise SystemExit(f"{q.name}: kg sparql failed: {done.stderr}")
        report["queries"][q.name] = {
            "params": params[q.name],
            "rows": len(rows),
            "first_s": round(times[0], 4),
            "best_s": round(min(times), 4),
            "cli_s": round(cli, 3),
        }
        print(f"{q.name:28s} {len(rows):6d} {times[0]:8.3f} {min(times):8.3f} {cli:12.3f}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""Benchmark loading a build into Neo4j: first load, reload, and neo4j-admin CSV import.

Usage:
    python benchmarks/bench_neo4j.py BUILD_DIR [--batch-size 1000] [--json out.json]

Uses the server NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD name (it is EMPTIED first),
or, when NEO4J_URI is unset, a throwaway local server from scripts/neo4j-local on ports
27687/27474. The CSV import runs neo4j-admin on a second throwaway local server.
Reports nodes/s and relationships/s for each way in.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.exporters.jsonio import read_build_source  # noqa: E402
from kg.exporters.neo4j import (  # noqa: E402
    DEFAULT_BATCH,
    DEFAULT_PARALLEL,
    Neo4jSettings,
    apply_schema,
    connect,
    database_counts,
    load_neo4j,
)
from kg.exporters.neo4j_csv import write_neo4j_csv  # noqa: E402

SCRIPT = ROOT / "scripts" / "neo4j-local"
PASSWORD = "kg-bench-password"


def _local(command: str, name: str, bolt: int, http: int, *args: str) -> None:
    env = {
        **os.environ,
        "KG_NEO4J_HOME": str(Path.home() / ".cache" / "kg" / "bench" / name),
        "KG_NEO4J_BOLT_PORT": str(bolt),
        "KG_NEO4J_HTTP_PORT": str(http),
        "KG_NEO4J_HEAP": os.environ.get("KG_NEO4J_HEAP", "2g"),
        "KG_NEO4J_PAGECACHE": os.environ.get("KG_NEO4J_PAGECACHE", "1g"),
        "NEO4J_PASSWORD": PASSWORD,
    }
    subprocess.run([str(SCRIPT), command, *args], env=env, check=True)


def _empty(driver) -> None:
    while True:
        records, _, _ = driver.execute_query(
            "MATCH (n) WITH n LIMIT 20000 DETACH DELETE n RETURN count(*) AS n"
        )
        if not records[0]["n"]:
            return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir", type=Path)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH)
    parser.add_argument("--parallel", type=int, default=DEFAULT_PARALLEL, help="batches in flight")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--skip-import", action="store_true", help="no neo4j-admin run")
    parser.add_argument("--skip-reload", action="store_true", help="only the first load")
    args = parser.parse_args()

    G = read_build_source(args.build_dir)  # the build's tables, streamed
    nodes, rels = sum(G.label_counts().values()), sum(G.type_counts().values())
    print(f"graph: {nodes} nodes, {rels} relationships", flush=True)
    figures: dict[str, dict[str, float]] = {}

    own_server = not os.environ.get("NEO4J_URI")
    if own_server:
        for name in ("load", "import"):
            shutil.rmtree(Path.home() / ".cache" / "kg" / "bench" / name, ignore_errors=True)
        _local("start", "load", 27687, 27474)
        settings = Neo4jSettings(uri="bolt://127.0.0.1:27687", password=PASSWORD)
    else:
        from kg.cli._neo4j import neo4j_settings

        settings = neo4j_settings()
    driver = connect(settings)
    try:
        _empty(driver)  # load_neo4j creates the schema: constraints first, indexes at the end
        for run in ("first load",) if args.skip_reload else ("first load", "reload"):
            t0 = time.perf_counter()
            summary = load_neo4j(
                G,
                driver,
                database=settings.database,
                batch_size=args.batch_size,
                parallel=args.parallel,
            )
            secs = time.perf_counter() - t0
            figures[run] = {
                "seconds": round(secs, 1),
                "nodes_per_s": round(nodes / secs),
                "relationships_per_s": round(rels / secs),
                "created": summary.created,
            }
            print(run, figures[run], flush=True)
        counts = database_counts(driver, settings.database)
    finally:
        driver.close()
        if own_server:
            _local("stop", "load", 27687, 27474)

    if not args.skip_import:
        with tempfile.TemporaryDirectory(prefix="kg-bench-csv-") as tmp:
            t0 = time.perf_counter()
            export = write_neo4j_csv(G, tmp)
            t_csv = time.perf_counter() - t0
            t0 = time.perf_counter()
            _local("admin", "import", 27688, 27475, *export.import_args())
            t_import = time.perf_counter() - t0
        _local("start", "import", 27688, 27475)
        driver = connect(Neo4jSettings(uri="bolt://127.0.0.1:27688", password=PASSWORD))
        try:
            t0 = time.perf_counter()
            apply_schema(driver)
            t_schema = time.perf_counter() - t0
            same = database_counts(driver) == counts
        finally:
            driver.close()
            _local("stop", "import", 27688, 27475)
        total = t_csv + t_import + t_schema
        figures["neo4j-admin import"] = {
            "seconds": round(total, 1),
            "csv_write_s": round(t_csv, 1),
            "import_s": round(t_import, 1),
            "constraints_s": round(t_schema, 1),
            "nodes_per_s": round(nodes / total),
            "relationships_per_s": round(rels / total),
            "same_counts_as_load": same,
        }
        print("neo4j-admin import", figures["neo4j-admin import"], flush=True)
    if args.json:
        args.json.write_text(json.dumps({"nodes": nodes, "relationships": rels, **figures}))


if __name__ == "__main__":
    main()

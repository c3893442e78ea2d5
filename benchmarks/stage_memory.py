"""Peak resident memory of each post-extraction stage of ``kg build``, one by one.

Usage:
    python benchmarks/stage_memory.py BUILD INPUT... [--work W] [--json OUT]

BUILD is a finished build (its ``tables/`` kept). Its extraction shards (``papers``,
``locals``) are hard-linked into W and the build is resumed over INPUT (the same inputs
BUILD was made from), so nothing is extracted again and only resolve, graph and the
exports run. Before and after each stage the kernel's peak counter (VmHWM) is reset through
``/proc/self/clear_refs`` (Linux), so each figure is that stage's own peak, not the
peak of everything before it; the "(up to ...)" rows are what ran between stages (the
graph loop is "up to merge_edge_tables"). Whole-build peaks (``bench_build.py``) are the
largest of these.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def _status_mb(field: str) -> float:
    """``VmHWM`` (peak since the last reset) or ``VmRSS`` of this process, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status (Linux only)")


def _reset_hwm() -> None:
    Path("/proc/self/clear_refs").write_text("5")


def _measured(name: str, fn: Callable, rows: list[dict]) -> Callable:
    def wrapper(*args, **kwargs):
        start = _status_mb("VmRSS")
        rows.append({"stage": f"  (up to {name})", "peak_mb": round(_status_mb("VmHWM"))})
        _reset_hwm()
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            rows.append(
                {
                    "stage": name,
                    "rss_before_mb": round(start),
                    "peak_mb": round(_status_mb("VmHWM")),
                    "rss_after_mb": round(_status_mb("VmRSS")),
                    "seconds": round(time.perf_counter() - t0, 1),
                }
            )
            _reset_hwm()  # what runs until the next stage is measured on its own

    return wrapper


def _link_shards(build: Path, tables: Path) -> None:
    from kg.build import LOCALS, PAPERS

    for part in (PAPERS, LOCALS):
        src = build / "tables" / part
        if not src.is_dir():
            raise SystemExit(f"{src}: no extraction shards; build with the tables kept")
        (tables / part).mkdir(parents=True)
        for f in src.iterdir():
            os.link(f, tables / part / f.name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", type=Path)
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--work", type=Path, help="where to build (default: a temporary folder)")
    ap.add_argument("--json", type=Path, help="also write the rows here")
    args = ap.parse_args()

    import kg.build as kb
    from kg.exporters import jsonio, ladybug, oxigraph, rdf, report
    from kg.outdir import partial_dir

    work = args.work or Path(tempfile.mkdtemp(prefix="kg-stage-mem-"))
    out = work / "out"
    if out.exists() or partial_dir(out).exists():
        raise SystemExit(f"{work}: already holds a build; give an empty --work")
    _link_shards(args.build, partial_dir(out) / kb.TABLES)
    kb._check_resume = lambda tmp, state: None  # the state file is ours, not a killed build's

    rows: list[dict] = []
    kb.resolve_table = _measured("resolve", kb.resolve_table, rows)
    kb.merge_edge_tables = _measured("merge_edge_tables", kb.merge_edge_tables, rows)
    jsonio.write_graph_json = _measured("json", jsonio.write_graph_json, rows)
    rdf.write_turtle = _measured("ttl", rdf.write_turtle, rows)
    oxigraph.write_store = _measured("oxigraph", oxigraph.write_store, rows)
    ladybug.write_database = _measured("ladybug", ladybug.write_database, rows)
    report.write_report = _measured("report", report.write_report, rows)

    _reset_hwm()
    summary = kb.build(args.inputs, out, resume=True)
    rows.append({"stage": "  (after report)", "peak_mb": round(_status_mb("VmHWM"))})
    rows.append({"stage": "whole resumed build", "peak_mb": max(r["peak_mb"] for r in rows)})
    print(f"{summary.papers:,} papers, {summary.nodes:,} nodes, {summary.edges:,} edges")
    print(f"{'stage':<26} {'before':>7} {'peak':>7} {'after':>7} {'s':>7}  (MB)")
    for r in rows:
        print(
            f"{r['stage']:<26} {r.get('rss_before_mb', ''):>7} {r['peak_mb']:>7} "
            f"{r.get('rss_after_mb', ''):>7} {r.get('seconds', ''):>7}"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

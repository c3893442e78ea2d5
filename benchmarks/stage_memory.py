"""Peak resident memory of each post-extraction stage of ``kg build``, one by one.

Usage:
    python benchmarks/stage_memory.py BUILD INPUT... [--work W] [--json OUT]
    python benchmarks/stage_memory.py W72K/out-j2 W288K/input.jsonl --copies 4   # 287,632

BUILD is a finished build (its ``tables/`` kept). Its extraction shards (``papers``,
``locals``) are hard-linked into W and the build is resumed over INPUT (the same inputs
BUILD was made from), so nothing is extracted again and only resolve, graph and the
exports run. With ``--copies K`` the shards are written K times with suffixed ids, as if
INPUT were ``bench_build.py --copies K``'s input (the 72k build's shards make the 288k
one). Before and after each stage the kernel's peak counter (VmHWM) is reset through
``/proc/self/clear_refs`` (Linux), so each figure is that stage's own peak, not the
peak of everything before it; the "(up to ...)" rows are what ran between stages (the
graph loop is "up to merge_edge_tables"). Whole-build peaks (``bench_build.py``) are the
largest of these.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bench_build import _tree_rss_mb  # this folder is on sys.path when run as a script


def _status_mb(field: str) -> float:
    """``VmHWM`` (peak since the last reset) or ``VmRSS`` of this process, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status (Linux only)")


def _reset_hwm() -> None:
    Path("/proc/self/clear_refs").write_text("5")


def _children_rss_mb() -> float:
    """Resident memory (MiB, as ``/proc/self/status``) of this process's descendants."""
    return _tree_rss_mb(os.getpid())[1] * 1e6 / 2**20


class _Sampler(threading.Thread):
    """Samples this process's anonymous and file-backed resident memory (``RssAnon``,
    ``RssFile``), and its own plus its child processes' (``tree``: a stage may run in a
    process of its own), every 0.1 s; :meth:`take` returns the peaks since the last call.
    VmHWM counts both anonymous and file-backed pages: pages of a file a native store maps
    count as resident too, though the kernel may drop them at any time."""

    FIELDS = ("RssAnon", "RssFile", "tree")

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self._peaks = dict.fromkeys(self.FIELDS, 0.0)
        self._lock = threading.Lock()

    @staticmethod
    def _now() -> dict[str, float]:
        return {
            "RssAnon": _status_mb("RssAnon"),
            "RssFile": _status_mb("RssFile"),
            "tree": _status_mb("VmRSS") + _children_rss_mb(),
        }

    def run(self) -> None:
        while True:
            now = self._now()
            with self._lock:
                for field in self.FIELDS:
                    self._peaks[field] = max(self._peaks[field], now[field])
            time.sleep(0.1)

    def take(self) -> tuple[int, int, int]:
        with self._lock:
            peaks = self._peaks
            self._peaks = self._now()
        return round(peaks["RssAnon"]), round(peaks["RssFile"]), round(peaks["tree"])


def _measured(name: str, fn: Callable, rows: list[dict], sampler: _Sampler) -> Callable:
    def wrapper(*args, **kwargs):
        start = _status_mb("VmRSS")
        anon, file, tree = sampler.take()
        rows.append({"stage": f"  (up to {name})", "peak_mb": round(_status_mb("VmHWM")),
                     "anon_mb": anon, "file_mb": file, "tree_mb": tree})  # fmt: skip
        _reset_hwm()
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            anon, file, tree = sampler.take()
            rows.append(
                {
                    "stage": name,
                    "rss_before_mb": round(start),
                    "peak_mb": round(_status_mb("VmHWM")),
                    "anon_mb": anon,
                    "file_mb": file,
                    "tree_mb": tree,
                    "rss_after_mb": round(_status_mb("VmRSS")),
                    "seconds": round(time.perf_counter() - t0, 1),
                }
            )
            _reset_hwm()  # what runs until the next stage is measured on its own

    return wrapper


def _link_shards(build: Path, tables: Path, copies: int = 1, lines_per_copy: int = 0) -> None:
    """Hard-link the extraction shards of ``build`` into ``tables``; with ``copies`` K > 1,
    also write K - 1 copies of them whose paper ids are suffixed ``-copyk`` and whose input
    lines are shifted by ``lines_per_copy`` (what ``bench_build.py --copies K`` would have
    extracted, without extracting it again)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from kg.orchestrate import LOCALS, PAPERS

    shards = {}
    for part in (PAPERS, LOCALS):
        src = build / "tables" / part
        if not src.is_dir():
            raise SystemExit(f"{src}: no extraction shards; build with the tables kept")
        (tables / part).mkdir(parents=True)
        shards[part] = sorted(src.glob("part-*.parquet"))
        for f in shards[part]:
            os.link(f, tables / part / f.name)
    n = len(shards[PAPERS])
    for k in range(1, copies):
        suffix = f"-copy{k}"
        for i, (papers, locals_) in enumerate(zip(shards[PAPERS], shards[LOCALS], strict=True)):
            name = f"part-{k * n + i:05d}.parquet"
            t = pq.read_table(papers)
            extractions = []
            for ex in t.column("extraction").to_pylist():
                ex["record"]["id"] += suffix
                if ex["record"].get("line") is not None:
                    ex["record"]["line"] += k * lines_per_copy
                extractions.append(ex)
            ids = [pid + suffix for pid in t.column("id").to_pylist()]
            t = t.set_column(0, "id", pa.array(ids, pa.string()))
            t = t.set_column(2, "extraction", pa.array(extractions, t.schema.field(2).type))
            loc = pq.read_table(locals_)
            loc = loc.set_column(
                0, "paper", pa.array([p + suffix for p in loc.column("paper").to_pylist()])
            )
            pq.write_table(loc, tables / LOCALS / name, compression="zstd", row_group_size=10_000)
            pq.write_table(t, tables / PAPERS / name, compression="zstd", row_group_size=10_000)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", type=Path, help="a finished build whose tables/ were kept")
    ap.add_argument("inputs", nargs="+", help="the inputs BUILD was made from")
    ap.add_argument("--work", type=Path, help="where to build (default: a temporary folder)")
    ap.add_argument("--json", type=Path, help="also write the rows here")
    ap.add_argument(
        "--copies",
        type=int,
        default=1,
        help="BUILD's papers K times, ids of copy k > 0 suffixed -copyk (INPUT: the input "
        "bench_build.py --copies K wrote)",
    )
    args = ap.parse_args()

    import kg.orchestrate.run as kb
    from kg.exporters import jsonio, ladybug, oxigraph, rdf, report
    from kg.orchestrate import Target
    from kg.orchestrate.outdir import partial_dir

    work = args.work or Path(tempfile.mkdtemp(prefix="kg-stage-mem-"))
    out = work / "out"
    if out.exists() or partial_dir(out).exists():
        raise SystemExit(f"{work}: already holds a build; give an empty --work")
    lines = 0
    if args.copies > 1:
        with open(args.inputs[0], "rb") as fh:
            lines = sum(1 for _ in fh) // args.copies
    # in a process of its own: writing the copies' shards reads every extraction, and what
    # that leaves in this process's heap would count against the stages measured here
    linker = multiprocessing.get_context("spawn").Process(
        target=_link_shards, args=(args.build, partial_dir(out) / kb.TABLES, args.copies, lines)
    )
    linker.start()
    linker.join()
    if linker.exitcode != 0:
        raise SystemExit(f"writing the shards into {work} failed (exit code {linker.exitcode})")
    kb._check_resume = lambda tmp, state: None  # the state file is ours, not a killed build's

    rows: list[dict] = []
    sampler = _Sampler()
    sampler.start()
    kb.resolve_table = _measured("resolve", kb.resolve_table, rows, sampler)
    kb.merge_edge_tables = _measured("merge_edge_tables", kb.merge_edge_tables, rows, sampler)
    jsonio.write_graph_json = _measured("json", jsonio.write_graph_json, rows, sampler)
    rdf.write_turtle = _measured("ttl", rdf.write_turtle, rows, sampler)
    oxigraph.write_store = _measured("oxigraph", oxigraph.write_store, rows, sampler)
    ladybug.write_database = _measured("ladybug", ladybug.write_database, rows, sampler)
    report.write_report = _measured("report", report.write_report, rows, sampler)

    _reset_hwm()
    summary = kb.build(args.inputs, Target(out, resume=True))
    anon, file, tree = sampler.take()
    rows.append({"stage": "  (after report)", "peak_mb": round(_status_mb("VmHWM")),
                 "anon_mb": anon, "file_mb": file, "tree_mb": tree})  # fmt: skip
    rows.append({"stage": "whole resumed build", "peak_mb": max(r["peak_mb"] for r in rows),
                 "tree_mb": max(max(r["tree_mb"], r["peak_mb"]) for r in rows)})  # fmt: skip
    print(f"{summary.papers:,} papers, {summary.nodes:,} nodes, {summary.edges:,} edges")
    print(f"{'stage':<26} {'before':>7} {'peak':>7} {'anon':>7} {'file':>7} {'tree':>7} "
          f"{'after':>7} {'s':>7}  (MB; anon, file, tree: sampled peaks of RssAnon, RssFile, "
          "and of this process with its children)")  # fmt: skip
    for r in rows:
        print(
            f"{r['stage']:<26} {r.get('rss_before_mb', ''):>7} {r['peak_mb']:>7} "
            f"{r.get('anon_mb', ''):>7} {r.get('file_mb', ''):>7} {r.get('tree_mb', ''):>7} "
            f"{r.get('rss_after_mb', ''):>7} {r.get('seconds', ''):>7}"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

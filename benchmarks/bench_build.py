"""Benchmark ``kg build``: abstracts/s, peak memory and time per stage.

Usage:
    python benchmarks/bench_build.py --limit 10000 --jobs 1 2
    python benchmarks/bench_build.py --limit 0 --jobs 2          # the whole corpus
    python benchmarks/bench_build.py --limit 0 --copies 4 --jobs 2   # 287,632 abstracts
    python benchmarks/bench_build.py --limit 10000 --jobs 2 --scheduler local:2
    python benchmarks/bench_build.py --limit 10000 --jobs 2 --pipeline fast accurate
    python benchmarks/bench_build.py --limit 0 --copies 4 --jobs 2 --work W [--resume]

Reads ../shared/corpora/ml_abstracts.jsonl.gz (never copied into the repo); ``--copies K``
writes it K times, the ids of copy k > 0 suffixed ``-copyk`` (every copy is extracted
again: the build sees K times as many papers). Each run is a separate process; the
resident memory of the build process and, apart, of its worker processes is sampled
every 0.5 s, so the report shows the peaks and whether memory grows while abstracts
stream in. With ``--work W`` the input and the builds stay in W, so a build that fails
after extracting can be finished with ``--resume`` (its report then times only what the
resumed build did).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "ml_abstracts.jsonl.gz"

_CHILD = """
import json, sys, time
from kg.orchestrate import ExtractOptions, Target, build
t0 = time.perf_counter()
scheduler = sys.argv[5] or None
extract = ExtractOptions(n_process=int(sys.argv[3]), scheduler=scheduler, pipeline=sys.argv[7])
summary = build([sys.argv[1]], Target(sys.argv[2], resume=sys.argv[6] == "resume"), extract)
wall = time.perf_counter() - t0
json.dump({"papers": summary.papers, "skipped": len(summary.skipped), "wall": wall,
           "timings": summary.timings, "nodes": summary.nodes, "edges": summary.edges},
          open(sys.argv[4], "w"))
"""


def _tree_rss_mb(pid: int) -> tuple[float, float]:
    """Resident memory (MB) of ``pid``, and of all its descendants together, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
            rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    total, stack = 0, list(children.get(pid, []))
    while stack:
        p = stack.pop()
        total += rss.get(p, 0)
        stack += children.get(p, [])
    return rss.get(pid, 0) / 1e6, total / 1e6


def write_input(limit: int, path: Path, copies: int = 1) -> int:
    n = 0
    with open(path, "w") as dst:
        for copy in range(copies):
            with gzip.open(CORPUS, "rt", encoding="utf-8") as src:
                for i, line in enumerate(src):
                    if limit and i >= limit:
                        break
                    if copy:
                        item = json.loads(line)
                        item["id"] = f"{item['id']}-copy{copy}"
                        line = json.dumps(item) + "\n"
                    dst.write(line)
                    n += 1
    return n


def run(
    input_path: Path,
    jobs: int,
    out_dir: Path,
    scheduler: str = "",
    resume: bool = False,
    pipeline: str = "fast",
) -> dict:
    result_file = out_dir.with_suffix(".json")
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(input_path), str(out_dir), str(jobs),
         str(result_file), scheduler, "resume" if resume else "", pipeline]
    )  # fmt: skip
    samples, start = [], time.perf_counter()
    while proc.poll() is None:
        main, workers = _tree_rss_mb(proc.pid)
        t = round(time.perf_counter() - start, 1)
        samples.append((t, round(main + workers, 1), round(main, 1), round(workers, 1)))
        time.sleep(0.5)
    if proc.returncode != 0:
        raise SystemExit(
            f"build failed with exit code {proc.returncode}; what it extracted is kept "
            "only in a --work folder, where --resume finishes it"
        )
    result = json.loads(result_file.read_text())
    result["peak_rss_mb"] = max((m for _, m, _, _ in samples), default=0.0)
    result["peak_main_rss_mb"] = max((m for _, _, m, _ in samples), default=0.0)
    result["peak_workers_rss_mb"] = max((w for *_, w in samples), default=0.0)
    nlp_end = result["timings"]["nlp"]
    # after extraction the workers are gone; a child then is a stage run in a process of its
    # own (the Oxigraph store), and counts with the build process
    result["peak_after_extraction_tree_mb"] = max(
        (m for t, m, _, _ in samples if t > nlp_end + 5.0), default=0.0
    )
    during = [m for t, m, _, _ in samples if 5.0 <= t <= nlp_end]
    if len(during) >= 4:
        quarter = len(during) // 4
        result["rss_first_quarter_mb"] = max(during[:quarter])
        result["rss_last_quarter_mb"] = max(during[-quarter:])
    result["abstracts_per_s"] = round(result["papers"] / result["wall"], 1)
    result["nlp_abstracts_per_s"] = round(result["papers"] / nlp_end, 1)
    result["jobs"] = jobs
    result["pipeline"] = pipeline
    result["scheduler"] = scheduler or None
    result["samples"] = samples[:: max(len(samples) // 200, 1)]
    return result


@contextmanager
def _workdir(path: Path | None) -> Iterator[Path]:
    """A temporary folder, or ``path`` (created if needed, kept afterwards)."""
    if path is None:
        with tempfile.TemporaryDirectory(prefix="kg-bench-") as tmp:
            yield Path(tmp)
        return
    path.mkdir(parents=True, exist_ok=True)
    yield path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=10_000, help="abstracts (0 = all)")
    parser.add_argument("--jobs", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--copies", type=int, default=1, help="write the input K times")
    parser.add_argument(
        "--scheduler", nargs="*", default=[], help="also run with these (e.g. local:2)"
    )
    parser.add_argument("--pipeline", nargs="*", default=["fast"], choices=("fast", "accurate"),
                        help="the shipped pipelines to run, each with every --jobs")  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--keep", type=Path, help="move the last run's build directory here")
    parser.add_argument(
        "--work",
        type=Path,
        help="work in this folder (input and builds) instead of a temporary one, and keep it "
        "when a build fails, so that --resume can finish it",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --work: reuse its input and resume its unfinished builds (kg build --resume)",
    )
    args = parser.parse_args()
    if args.resume and not args.work:
        parser.error("--resume needs --work (the folder of the unfinished run)")
    with _workdir(args.work) as tmpdir:
        if args.resume and (tmpdir / "input.jsonl").is_file():
            n = sum(1 for _ in open(tmpdir / "input.jsonl", encoding="utf-8"))
        else:
            n = write_input(args.limit, tmpdir / "input.jsonl", args.copies)
        print(f"input: {n} abstracts from {CORPUS.name}", flush=True)
        results = []
        runs = [(j, "", p) for p in args.pipeline for j in args.jobs]
        runs += [(1, s, p) for p in args.pipeline for s in args.scheduler]
        last = None
        for jobs, scheduler, pipeline in runs:
            name = f"out-{scheduler.replace(':', '')}" if scheduler else f"out-j{jobs}"
            name += f"-{pipeline}"
            last = tmpdir / name
            partial = last.parent / f".{last.name}.partial"
            res = run(tmpdir / "input.jsonl", jobs, last, scheduler,
                      resume=args.resume and partial.is_dir(), pipeline=pipeline)  # fmt: skip
            results.append(res)
            stages = ", ".join(f"{k} {v:.1f}s" for k, v in res["timings"].items())
            growth = ""
            if "rss_first_quarter_mb" in res:
                growth = (
                    f"; RSS during extraction: first quarter {res['rss_first_quarter_mb']:.0f}"
                    f" MB, last quarter {res['rss_last_quarter_mb']:.0f} MB"
                )
            how = f"--scheduler {scheduler}" if scheduler else f"-j {jobs}"
            how += f" --pipeline {pipeline}"
            print(
                f"{how}: {res['papers']} abstracts in {res['wall']:.1f}s = "
                f"{res['abstracts_per_s']}/s overall ({res['nlp_abstracts_per_s']}/s NLP); "
                f"peak RSS {res['peak_rss_mb']:.0f} MB (build process "
                f"{res['peak_main_rss_mb']:.0f} MB, workers {res['peak_workers_rss_mb']:.0f} MB; "
                f"after extraction, with its children {res['peak_after_extraction_tree_mb']:.0f}"
                " MB)"
                f"{growth}; stages: {stages}",
                flush=True,
            )
        if args.keep and last is not None:
            shutil.move(last, args.keep)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()

"""The benchmark of resolution alone runs on a build's locals and says what it measured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_resolve_times_a_builds_resolution_and_counts_its_merges(example_build):
    out, _ = example_build
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_resolve.py"), str(out),
         "--runs", "1"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "resolution of 12 papers' local entities" in proc.stdout
    assert "peak memory" in proc.stdout and "merges {" in proc.stdout


def test_bench_resolve_says_what_to_give_when_the_build_has_no_locals(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_resolve.py"), str(tmp_path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode != 0 and "give a build kg build wrote" in proc.stderr

"""``kg build`` never loses a user's files: which directories it replaces, failed builds,
concurrent builds, permissions."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg.cli import app
from tests.conftest import EXAMPLES, ROOT

runner = CliRunner()


def _abstracts(n: int = 2) -> list[str]:
    return [p for p in EXAMPLES.read_text().split("\n\n") if len(p.split()) > 30][:n]


def _papers(path: Path, n: int = 2) -> Path:
    rows = [{"id": f"p{i}", "abstract": text} for i, text in enumerate(_abstracts(n))]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _tree(directory: Path) -> dict[str, str]:
    """Every file under ``directory`` with the hash of its bytes."""
    return {
        str(p.relative_to(directory)): hashlib.sha1(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _build(*args: str):
    return runner.invoke(app, ["build", *args])


def test_build_refuses_a_directory_it_did_not_write(tmp_path):
    user = tmp_path / "u"
    user.mkdir()
    papers = _papers(user / "papers.jsonl")
    (user / "notes.txt").write_text("my notes")
    before = _tree(user)
    result = _build(str(papers), "-o", str(user))
    assert result.exit_code != 0
    assert _tree(user) == before  # nothing deleted
    assert "inside the output directory" in result.output and "never deletes" in result.output
    # even --force keeps an input that lies inside the output directory
    result = _build(str(papers), "-o", str(user), "--force")
    assert result.exit_code != 0 and _tree(user) == before

    elsewhere = _papers(tmp_path / "in.jsonl")
    result = _build(str(elsewhere), "-o", str(user))
    assert result.exit_code != 0 and _tree(user) == before
    assert "not written by kg build" in result.output and "--force" in result.output
    assert "notes.txt" in result.output  # says what would be deleted


def test_build_force_replaces_a_foreign_directory(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "old.txt").write_text("x")
    result = _build(str(_papers(tmp_path / "in.jsonl")), "-o", str(other), "--force")
    assert result.exit_code == 0, result.output
    assert not (other / "old.txt").exists() and (other / "kg-build.json").is_file()


def test_build_replaces_its_own_build_but_not_files_added_to_it(tmp_path):
    papers = _papers(tmp_path / "in.jsonl")
    out = tmp_path / "out"
    assert _build(str(papers), "-o", str(out)).exit_code == 0
    manifest = json.loads((out / "kg-build.json").read_text())
    assert manifest["tool"] == "kg build" and manifest["inputs"] == [str(papers)]
    assert "extractions.jsonl" in manifest["files"]
    result = _build(str(papers), "-o", str(out))  # a kg build is replaced
    assert result.exit_code == 0, result.output
    (out / "mine.txt").write_text("keep me")
    result = _build(str(papers), "-o", str(out))
    assert result.exit_code != 0 and "mine.txt" in result.output
    assert (out / "mine.txt").read_text() == "keep me"


def test_build_output_dot_and_file_give_clear_errors(tmp_path, monkeypatch):
    papers = _papers(tmp_path / "in.jsonl")
    monkeypatch.chdir(tmp_path)
    before = _tree(tmp_path)
    for target, words in ((".", "current directory"), (str(papers), "is a file")):
        result = _build(str(papers), "-o", target)
        assert result.exit_code == 1, result.output
        assert words in result.output
        assert "Traceback" not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
    assert _tree(tmp_path) == before


def _good_build(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    out = tmp_path / "out"
    result = _build(str(_papers(tmp_path / "in.jsonl")), "-o", str(out))
    assert result.exit_code == 0, result.output
    return out, _tree(out)


def test_failed_build_without_abstracts_keeps_the_old_output(tmp_path):
    out, before = _good_build(tmp_path)
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"id": "x", "abstract": ""}\n')
    result = _build(str(empty), "-o", str(out))
    assert result.exit_code != 0
    assert "no abstracts could be read" in result.output and "unchanged" in result.output
    assert "wrote" not in result.output
    assert _tree(out) == before


def test_failed_build_with_a_missing_path_keeps_the_old_output(tmp_path):
    out, before = _good_build(tmp_path)
    result = _build(str(tmp_path / "in.jsonl"), str(tmp_path / "typo.jsonl"), "-o", str(out))
    assert result.exit_code != 0
    assert "typo.jsonl" in result.output and "no such file" in result.output
    assert _tree(out) == before


def test_failed_build_with_a_crashing_exporter_keeps_the_old_output(tmp_path, monkeypatch):
    from kg.exporters import rdf

    out, before = _good_build(tmp_path)

    def disk_full(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(rdf, "write_turtle", disk_full)
    result = _build(str(tmp_path / "in.jsonl"), "-o", str(out))
    assert result.exit_code != 0
    assert "no space left on the device holding" in result.output
    assert "unchanged" in result.output
    assert _tree(out) == before
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name or ".partial" in p.name]


def test_a_build_failing_after_extraction_keeps_the_papers_for_resume(tmp_path, monkeypatch):
    """An export that fails after hours of extraction must not throw the extraction away:
    the shards stay, and --resume exports them without extracting again."""
    from kg.exporters import rdf
    from kg.orchestrate.outdir import partial_dir

    papers = _papers(tmp_path / "in.jsonl", n=3)
    fresh = tmp_path / "fresh"
    assert _build(str(papers), "-o", str(fresh)).exit_code == 0
    real = rdf.write_turtle

    def crash(*_args, **_kwargs):  # a full disk is another matter: its partial output goes
        raise RuntimeError("the Turtle writer crashed")

    out = tmp_path / "out"
    monkeypatch.setattr(rdf, "write_turtle", crash)
    result = _build(str(papers), "-o", str(out))
    assert result.exit_code != 0 and "the Turtle writer crashed" in result.output
    assert "the 3 papers extracted are kept" in result.output and "--resume" in result.output
    assert not out.exists() and (partial_dir(out) / "tables").is_dir()
    monkeypatch.setattr(rdf, "write_turtle", real)
    result = _build(str(papers), "-o", str(out), "--resume")
    assert result.exit_code == 0, result.output
    assert "resumed: 3 papers were already extracted" in result.output
    assert (out / "extractions.jsonl").read_bytes() == (fresh / "extractions.jsonl").read_bytes()
    assert (out / "graph.ttl").stat().st_size > 0 and not partial_dir(out).exists()


def test_second_build_into_the_same_directory_is_refused(tmp_path):
    """A real ``kg build - -o out`` holds the directory while it waits for stdin."""
    kg = [sys.executable, "-c", "from kg.cli import main; main()"]
    out = tmp_path / "out"
    first = subprocess.Popen(
        [*kg, "build", "-", "-o", str(out)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        lock = tmp_path / ".out.lock"
        deadline = time.monotonic() + 60
        while not (lock.exists() and lock.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.1)
        second = subprocess.run(
            [*kg, "build", str(_papers(tmp_path / "in.jsonl")), "-o", str(out)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=300,
        )
        assert second.returncode != 0
        assert "another kg build is writing to" in second.stderr, second.stderr
        stdout, stderr = first.communicate(("\n\n".join(_abstracts(1)) + "\n").encode(), 300)
    finally:
        first.kill()
    assert first.returncode == 0, stderr.decode()
    assert (out / "kg-build.json").is_file() and not lock.exists()


def test_build_removes_temporary_directories_of_killed_builds(tmp_path):
    out = tmp_path / "out"
    stale = [tmp_path / ".out.tmp-4242-deadbeef", tmp_path / ".out.old-4242-cafe"]
    for path in stale:
        path.mkdir()
        (path / "extractions.jsonl").write_text("half\n")
    unrelated = tmp_path / ".outer.tmp-1"  # another output's: left alone
    unrelated.mkdir()
    result = _build(str(_papers(tmp_path / "in.jsonl")), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert not any(p.exists() for p in stale) and unrelated.exists()


def test_build_output_follows_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        out, _ = _good_build(tmp_path)
        csv = runner.invoke(app, ["export", "neo4j-csv", str(out)])
        assert csv.exit_code == 0, csv.output
    finally:
        os.umask(old)
    for path in [out, *out.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        want = 0o755 if path.is_dir() else 0o644
        assert mode & 0o755 == want, f"{path}: {oct(mode)}"  # readable by a neo4j user


@pytest.mark.parametrize("umask", [0o002, 0o077])
def test_build_output_directory_mode_is_the_umask_s(tmp_path, umask):
    old = os.umask(umask)
    try:
        out, _ = _good_build(tmp_path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~umask

"""Curation files are never lost or silently undone (issue 61, items 6-12): one way to
write a user's file (never inside a build, never an input, through a link, keeping the
mode, refusing read-only files and a remembered file that is gone); entries checked as
data with ``file:line: reason``; merges within one type; every key taken out in the log."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kg.cli import app
from kg.errors import KgError
from kg.orchestrate import ResolveOptions, build
from kg.resolve.curation import parse_curation, read_curation
from tests.orchestrate.test_curation import TEXTS, _by_paper, _papers

runner = CliRunner()


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """A build of five abstracts without a curation file, and one made with fixes.toml."""
    base = tmp_path_factory.mktemp("curation-files")
    papers = _papers(base / "papers.jsonl", TEXTS)
    build([papers], base / "plain")
    (base / "fixes.toml").write_text('[[drop]]\nkey = "method:nothing-here"\n', encoding="utf-8")
    build([papers], base / "curated", resolve=ResolveOptions(curation=base / "fixes.toml"))
    return base


def _curate(*args):
    return runner.invoke(app, ["curate", *map(str, args)])


def _one_line_error(result) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) in (1, 2) and lines[0].startswith("kg: error: "), result.output
    return lines[0]


def test_curate_refuses_to_recreate_a_remembered_file_that_is_gone(plain, tmp_path):
    out = tmp_path / "curated"
    shutil.copytree(plain / "curated", out)
    kept = json.loads((out / "kg-build.json").read_text())["pipeline"]["curation"]["path"]
    moved = tmp_path / "moved.toml"
    shutil.move(kept, moved)
    try:
        result = _curate("drop", out, "COCO")
        assert result.exit_code == 1 and "is gone" in _one_line_error(result)
        assert not os.path.exists(kept)
    finally:
        shutil.move(moved, kept)


def test_curate_never_writes_inside_a_build(plain, tmp_path):
    out = tmp_path / "plain"
    shutil.copytree(plain / "plain", out)
    result = _curate("drop", out, "COCO", "-o", out / "tables" / "fixes.toml")
    assert result.exit_code == 1 and "inside the build" in _one_line_error(result)
    assert not (out / "tables" / "fixes.toml").exists()


def test_build_never_deletes_its_curation_file_even_with_force(plain, tmp_path):
    out = tmp_path / "ib"
    out.mkdir()
    fixes = out / "fixes.toml"
    fixes.write_text('[[drop]]\nkey = "method:x"\n', encoding="utf-8")
    result = runner.invoke(app, ["build", str(plain / "papers.jsonl"), "-o", str(out),
                                 "--curation", str(fixes), "--force"])  # fmt: skip
    assert result.exit_code == 1 and "never deletes an input" in result.output
    assert fixes.read_text(encoding="utf-8") == '[[drop]]\nkey = "method:x"\n'


def test_curate_writes_through_a_link_and_keeps_the_mode(plain, tmp_path):
    target = tmp_path / "real.toml"
    target.write_text("# fixes\n", encoding="utf-8")
    target.chmod(0o640)
    link = tmp_path / "link.toml"
    link.symlink_to(target)
    result = _curate("drop", plain / "plain", "COCO", "-o", link)
    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    assert [e.key for e in read_curation(target).entries] == ["dataset:coco"]
    assert oct(target.stat().st_mode & 0o777) == oct(0o640)


def test_curate_refuses_a_read_only_file(plain, tmp_path):
    file = tmp_path / "ro.toml"
    file.write_text("# fixes\n", encoding="utf-8")
    file.chmod(0o444)
    result = _curate("drop", plain / "plain", "COCO", "-o", file)
    assert result.exit_code == 1 and "read-only" in _one_line_error(result)
    assert file.read_text(encoding="utf-8") == "# fixes\n"
    assert oct(file.stat().st_mode & 0o777) == oct(0o444)


def test_curation_split_that_moves_the_key_logs_the_old_key_as_removed(plain, tmp_path):
    fixes = tmp_path / "split.toml"
    fixes.write_text('[[split]]\nkey = "method:low-rank-adaptation"\n'
                     'names = ["LoRA", "Low-Rank Adaptation"]\n', encoding="utf-8")  # fmt: skip
    out = tmp_path / "out"
    build([plain / "papers.jsonl"], out, resolve=ResolveOptions(curation=fixes))
    log = json.loads((out / "tables" / "curation.json").read_text())
    everything = set().union(*_by_paper(out).values())
    assert "method:low-rank-adaptation" not in everything and "method:lora" in everything
    assert "method:low-rank-adaptation" in log["removed"]
    assert "is gone" in log["entries"][0]["what"]


def test_curate_merge_within_one_type_only(plain, tmp_path):
    file = tmp_path / "m.toml"
    result = _curate("merge", plain / "plain", "GPT-2", "COCO", "-o", file)
    assert result.exit_code == 1 and "one type" in _one_line_error(result)
    assert not file.exists()
    file.write_text('[[merge]]\nkey = "method:gpt-2"\ninto = "dataset:coco"\n', encoding="utf-8")
    with pytest.raises(KgError, match=r"m\.toml:1: \[\[merge\]\]: merges a method into a dataset"):
        read_curation(file)


def test_curation_no_op_merges_are_no_changes(plain, tmp_path):
    file = tmp_path / "m.toml"
    file.write_text('[[merge]]\nkey = "method:gpt-2"\ninto = "method:gpt-2"\n', encoding="utf-8")
    with pytest.raises(KgError, match=r"m\.toml:1: .*into itself"):
        read_curation(file)
    file.write_text('[[merge]]\nkey = "method:gpt-2"\ninto = "method:segformer"\n\n'
                    '[[merge]]\nkey = "method:segformer"\ninto = "method:gpt-2"\n',
                    encoding="utf-8")  # fmt: skip
    out = tmp_path / "out"
    summary = build([plain / "papers.jsonl"], out, resolve=ResolveOptions(curation=file))
    log = json.loads((out / "tables" / "curation.json").read_text())["entries"]
    assert [e["matched"] for e in log] == [True, False]
    assert "changed nothing" in log[1]["what"]
    assert any("1 entries changed the graph" in n for n in summary.notes)


def test_curate_escapes_every_control_character(plain, tmp_path):
    file = tmp_path / "r.toml"
    result = _curate("rename", plain / "plain", "COCO", "a\x7fb", "-o", file)
    assert result.exit_code == 0, result.output
    assert [e.to for e in read_curation(file).entries] == ["a\x7fb"]


def test_curation_line_numbers_skip_headers_inside_multiline_strings(tmp_path):
    file = tmp_path / "c.toml"
    file.write_text('[[drop]]\nkey = "method:x"\nwhy = """a note\n[[drop]]\nthat quotes"""\n\n'
                    '[[drop]]\nkey = "nokey"\n', encoding="utf-8")  # fmt: skip
    with pytest.raises(KgError, match=r"c\.toml:7: \[\[drop\]\]: 'nokey' is no entity key"):
        read_curation(file)


BAD_FILES = {
    "wrong types": (b"drop = [1, 2]\n", r":1: drop must be \[\[drop\]\] entries"),
    "not UTF-8": (b'[[drop]]\nkey = "method:caf\xe9"\n', r":2: not UTF-8 text"),
    "deep": (b"drop = " + b"[" * 50_000 + b"]" * 50_000 + b"\n", "nested too deeply"),
    "not TOML": (b"[[drop]]\nkey = = 1\n", r":2: not TOML: Invalid value \(column 7\)"),
}


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_curation_bad_files_are_one_line_errors_in_build_and_curate(plain, tmp_path, name):
    data, said = BAD_FILES[name]
    file = tmp_path / "bad.toml"
    file.write_bytes(data)
    with pytest.raises(KgError, match=said):
        read_curation(file)
    out = tmp_path / "out"
    result = runner.invoke(app, ["build", str(plain / "papers.jsonl"), "-o", str(out),
                                 "--curation", str(file)])  # fmt: skip
    assert result.exit_code == 1 and str(file) in _one_line_error(result)
    assert not out.exists()
    result = _curate("drop", plain / "plain", "COCO", "-o", file)
    assert result.exit_code == 1 and str(file) in _one_line_error(result)
    assert file.read_bytes() == data


# -- property: whatever the bytes, a curation file reads or is one line naming the file ----

FRAGMENTS = ['[[drop]]', '[[merge]]', '[[split]]', '[drop]', 'drop = 1', 'key = "method:x"',
             'into = "dataset:y"', "names = [1]", 'names = ["a"]', 'type = "Method"',
             'name = "x"', 'why = """', '"""', "to = 3", "x = [[[]]]", 'key = "task:a b"',
             "[[drop.x]]", "\t", "#", "'''", "=", "\\", "\x00", "\x7f", "\ufeff"]  # fmt: skip

curation_bytes = st.one_of(
    st.binary(max_size=200),
    st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=8), max_size=12).map(
        lambda parts: "\n".join(parts).encode("utf-8", "surrogatepass")
    ),
    st.integers(1, 60_000).map(lambda n: b"drop = " + b"[" * n + b"]" * n),
    st.recursive(
        st.integers() | st.text(max_size=5) | st.booleans() | st.floats(allow_nan=False),
        lambda inner: st.lists(inner, max_size=3),
        max_leaves=10,
    ).map(lambda value: f"[[drop]]\nkey = {json.dumps(value)}\n".encode()),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=curation_bytes)
def test_curation_any_bytes_read_or_fail_in_one_line(data, tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "any.toml"
    try:
        parse_curation(path, data)
    except KgError as err:
        message = str(err)
        assert message.startswith(str(path)) and "\n" not in message, message


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=curation_bytes)
def test_curate_and_build_with_any_bad_file_write_nothing(plain, tmp_path, data):
    file = tmp_path / "any.toml"
    file.write_bytes(data)
    try:
        read_curation(file)
    except KgError:
        pass
    else:
        return  # a good file: the other tests build with those
    for args in (["curate", "drop", str(plain / "plain"), "COCO", "-o", str(file)],
                 ["build", str(plain / "papers.jsonl"), "-o", str(tmp_path / "out"),
                  "--curation", str(file)]):  # fmt: skip
        result = runner.invoke(app, args)
        assert result.exit_code == 1, result.output
        assert str(file) in _one_line_error(result)
        assert file.read_bytes() == data and not (tmp_path / "out").exists()

"""A user's mistake is ``kg: error: …``, never a traceback (issue 61, items 13, 15-17):
arguments that are not UTF-8 (every command, a property), parameter names that are no
variable, the hint of a name no entity has, and --show with values."""

from __future__ import annotations

import os

import pytest
import typer.main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kg.cli import app
from kg.query import get_query
from tests.orchestrate.test_curation import papers_build

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return papers_build(tmp_path_factory, "cli-errors")


def _commands(group=None, path: tuple[str, ...] = ()):
    """Every command of kg, as the words that name it (``("curate", "drop")``)."""
    group = group or typer.main.get_command(app)
    for name, command in group.commands.items():
        if hasattr(command, "commands"):  # a group: kg curate, kg load, ...
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name)


COMMANDS = sorted(_commands())


def _not_utf8(raw: bytes) -> str:
    """An argument as Python gives it when its bytes are not UTF-8."""
    return raw.decode("utf-8", "surrogateescape")


@pytest.mark.parametrize(
    "args",
    [
        ["curate", "rename", "{db}", "COCO", _not_utf8(b"bad\xffname"), "-o", "{file}"],
        ["curate", "drop", "{db}", "COCO", "--why", _not_utf8(b"\xfe\xff"), "-o", "{file}"],
        ["explain", "{db}", _not_utf8(b"\xff")],
        ["sparql", "{db}", "top-entities", "-p", "type=" + _not_utf8(b"\xff")],
    ],
)
def test_errors_arguments_that_are_not_utf8(db, tmp_path, args):
    file = tmp_path / "fixes.toml"
    args = [a.format(db=db, file=file) if "{" in a else a for a in args]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.output.strip().startswith("kg: error: argument ")
    assert "is not UTF-8 text" in result.output and "Traceback" not in result.output
    assert not file.exists()


def test_errors_commands_are_found():
    assert {("build",), ("curate", "merge"), ("eval",), ("sparql",)} <= set(COMMANDS)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    command=st.sampled_from(COMMANDS),
    before=st.lists(
        st.sampled_from(["out", "-o", "x.toml", "--format", "json", "-p"]), max_size=3
    ),  # fmt: skip
    raw=st.binary(min_size=1, max_size=8).filter(lambda b: not _is_utf8(b)),
    text=st.text(max_size=4),
)
def test_errors_every_command_refuses_non_utf8_arguments_and_writes_nothing(
    tmp_path, command, before, raw, text
):
    here = tmp_path / "here"
    here.mkdir(exist_ok=True)
    cwd = os.getcwd()
    os.chdir(here)
    try:
        result = runner.invoke(app, [*command, *before, text + _not_utf8(raw)])
    finally:
        os.chdir(cwd)
    assert os.listdir(here) == []
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("kg: error: argument "), result.output


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize("query", ["top-entities", "SELECT ?n WHERE { ?m ?p ?n } LIMIT 1"])
def test_errors_parameter_names_that_are_no_variable(db, query):
    result = runner.invoke(app, ["sparql", str(db), query, "-p", "x y=1"])
    assert result.exit_code == 2, result.output
    assert "is no parameter name" in result.output and "Traceback" not in result.output


def test_errors_no_entity_hint_names_the_find_entity_parameter(db, tmp_path):
    param = get_query("find-entity").params[0].name
    for args in (
        ["explain", str(db), "zzz-nothing"],
        ["curate", "drop", str(db), "zzz-nothing", "-o", str(tmp_path / "f.toml")],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 1
        assert f"find-entity -p {param}=..." in result.output


def test_errors_show_writes_the_values_into_ad_hoc_and_rq_queries(tmp_path):
    text = (
        "SELECT ?n WHERE {\n  ?m <http://www.w3.org/2004/02/skos/core#prefLabel> ?n\n"
        "  FILTER(?n = $x)\n}"
    )
    rq = tmp_path / "q.rq"
    rq.write_text(text + "\n", encoding="utf-8")
    for query in (text, str(rq)):
        result = runner.invoke(app, ["sparql", "--show", query, "-p", "x=abc"])
        assert result.exit_code == 0, result.output
        assert '"abc"' in result.output and "$x" not in result.output

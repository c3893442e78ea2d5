"""The leaderboard the saved queries show is the one ``kg analyze`` shows: on a small graph
whose board rules read a fraction as a percentage, hide an impossible value, a row with no
method and a paper's second row for one method, ``kg query leaderboard`` (LadybugDB) and
``kg sparql leaderboard`` (Oxigraph) give the rows of
:func:`kg.analytics.leaderboards.boards_of`, and a build stores what the rules decided."""

from __future__ import annotations

import json

import networkx as nx
import pytest
from typer.testing import CliRunner

from kg.analytics.leaderboards import boards_of
from kg.cli import app
from kg.graph.assemble import add_paper, new_graph
from kg.graph.boards import (
    HIDDEN_CHANGE,
    HIDDEN_IMPOSSIBLE,
    HIDDEN_NO_METHOD,
    HIDDEN_SAME,
    board_properties,
)
from kg.graph.model import BOARD_PROPERTIES

runner = CliRunner()

DATASET = "BenchSet"
COLUMNS = ["method", "value", "unit", "metric", "dataset", "paper", "reported_as", "note",
           "condition", "hidden"]  # fmt: skip


def _entity(G: nx.MultiDiGraph, key: str, label: str, name: str, aliases=()) -> None:
    G.add_node(
        key, label=label, key=key, type=label, name=name, aliases=list(aliases), support=1,
        mention_count=1, proposed_count=0, benchmark=False,
    )  # fmt: skip


def _result(n: int, value: float, unit: str | None, method: str | None, *, own=None,
            condition=None, delta=False, metric="accuracy",
            dataset="benchset") -> dict:  # fmt: skip
    return {
        "id": f"result:{n:016x}", "value": value, "unit": unit, "delta": delta,
        "change": "up" if delta else None, "own": own if method else None,
        "metric": metric, "metric_id": f"metric:{metric.replace(' ', '-')}",
        "dataset_id": f"dataset:{dataset}",
        "method_id": method, "task_id": None, "condition": condition, "confidence": 0.9,
        "evidence": {"sentence": 0, "text": f"It reaches {value}.", "start": 0, "end": 9},
    }  # fmt: skip


def _paper(G: nx.MultiDiGraph, pid: str, results: list[dict]) -> None:
    add_paper(G, {"id": pid, "title": f"Paper {pid}", "year": 2025, "text": "It reaches it.",
                  "entities": [], "relations": [], "results": results})  # fmt: skip


def board_graph(*, placed: bool = True) -> nx.MultiDiGraph:
    """Three papers with accuracy on BenchSet, mostly percentages: p1's 0.875 is read as
    87.5% and its Alpha has two rows (81% shown, 79% hidden); p2 reports 120% (impossible)
    and a value for no method; p3 a score under a condition (a board of its own) and a
    gain (no score), and a value for no method on OtherSet, whose board then shows
    nothing."""
    G = new_graph()
    _entity(G, "dataset:benchset", "Dataset", DATASET)
    _entity(G, "dataset:otherset", "Dataset", "OtherSet")
    _entity(G, "metric:accuracy", "Metric", "accuracy", aliases=["ACC@1"])
    for key, name in (("method:alpha", "Alpha"), ("method:beta", "Beta"),
                      ("method:gamma", "Gamma")):  # fmt: skip
        _entity(G, key, "Method", name)
    _paper(G, "p1", [_result(1, 81.0, "%", "method:alpha", own=True),
                     _result(2, 79.0, "%", "method:alpha", own=True),
                     _result(3, 0.875, None, "method:beta", own=False)])  # fmt: skip
    _paper(G, "p2", [_result(4, 120.0, "%", "method:gamma", own=True),
                     _result(5, 77.0, "%", None),
                     _result(6, 83.0, "%", "method:gamma", own=True)])  # fmt: skip
    _paper(G, "p3", [_result(7, 85.0, "%", "method:beta", own=True, condition="1% labels"),
                     _result(8, 2.0, "%", "method:beta", own=True, delta=True),
                     _result(9, 0.5, None, None, dataset="otherset")])  # fmt: skip
    if placed:  # what a build does once its graph is whole
        for key, props in board_properties(G).items():
            G.nodes[key].update(props)
    return G


def board_row(r, metric: str, hidden: str = "") -> tuple:
    """A :class:`~kg.analytics.leaderboards.LeaderboardRow` as the saved query's row."""
    reported = {True: "own", False: "baseline"}.get(r.own, "")
    return (r.method or "", r.value, r.unit or "", metric, r.dataset, r.paper_id, reported,
            r.note or "", r.condition or "", hidden)  # fmt: skip


def test_board_properties_say_what_the_board_rules_decided():
    G = board_graph()
    assert all(set(BOARD_PROPERTIES) <= set(G.nodes[f"result:{n:016x}"]) for n in range(1, 10))
    read = G.nodes[f"result:{3:016x}"]
    assert (read["value"], read["unit"]) == (0.875, None)  # as written
    assert (read["board_value"], read["board_unit"], read["board_note"]) == (
        87.5, "%", "0.875 read as 87.5%")  # fmt: skip
    assert (read["board_metric"], read["board_direction"], read["board_shown"]) == (
        "accuracy", "higher", True)  # fmt: skip
    why = {n: G.nodes[f"result:{n:016x}"]["board_hidden"] for n in range(1, 10)}
    assert why == {1: None, 2: HIDDEN_SAME, 3: None, 4: HIDDEN_IMPOSSIBLE, 5: HIDDEN_NO_METHOD,
                   6: None, 7: None, 8: HIDDEN_CHANGE, 9: HIDDEN_NO_METHOD}  # fmt: skip
    gain = G.nodes[f"result:{8:016x}"]  # on no board: its value as written
    assert (gain["board_metric"], gain["board_value"], gain["board_shown"]) == (None, 2.0, False)
    board = boards_of(G)[(DATASET, "accuracy")]
    assert [(r.method, r.value) for r in board.rows] == [
        ("Beta", 87.5), ("Gamma", 83.0), ("Alpha", 81.0)]  # fmt: skip
    assert board.hidden == {HIDDEN_IMPOSSIBLE: 1, HIDDEN_NO_METHOD: 1, HIDDEN_SAME: 1}
    setting = boards_of(G)[(DATASET, "accuracy (1% labels)")]  # a setting: its own board
    assert [(r.method, r.value) for r in setting.rows] == [("Beta", 85.0)]
    assert G.nodes[f"result:{7:016x}"]["board_metric"] == "accuracy (1% labels)"
    assert ("OtherSet", "accuracy") not in boards_of(G)  # nothing shown: no board


@pytest.fixture(scope="module")
def board_stores(tmp_path_factory):
    """The small graph written as a LadybugDB and an Oxigraph store."""
    from kg.exporters.ladybug import DB_NAME, write_database
    from kg.exporters.oxigraph import STORE_NAME, write_store

    G = board_graph()
    out = tmp_path_factory.mktemp("boards")
    write_database(G, out / DB_NAME)
    write_store(G, out / STORE_NAME, own_process=False)
    return G, out


def _cli_rows(command: str, out, *params: str) -> list[tuple]:
    args = [command, str(out), "leaderboard", "-p", f"dataset={DATASET}", *params]
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout[result.stdout.index("[") :])
    renamed = {"metric_name": "metric", "dataset_name": "dataset"}  # SPARQL's column names
    return [tuple(row[c] for c in COLUMNS) for row in
            ({renamed.get(k, k): v for k, v in r.items()} for r in rows)]  # fmt: skip


@pytest.mark.parametrize("command", ["query", "sparql"])
def test_the_saved_leaderboard_shows_the_rows_of_boards_of(board_stores, command):
    G, out = board_stores
    board = boards_of(G)[(DATASET, "accuracy")]
    expected = [board_row(r, "accuracy") for r in board.rows]
    setting = "accuracy (1% labels)"  # a board of its own, after the main one by name
    expected_setting = [board_row(r, setting) for r in boards_of(G)[(DATASET, setting)].rows]
    assert _cli_rows(command, out) == expected + expected_setting
    assert _cli_rows(command, out, "-p", "metric=ACC") == expected + expected_setting
    assert _cli_rows(command, out, "-p", "metric=acc@1") == expected + expected_setting  # alias
    assert _cli_rows(command, out, "-p", "metric=labels") == expected_setting
    assert _cli_rows(command, out, "-p", "metric=f1") == []
    shown_too = _cli_rows(command, out, "-p", "show_hidden=true")
    assert shown_too[: len(expected)] == expected  # each board's shown rows first, best first
    hidden = shown_too[len(expected) : -len(expected_setting)]
    assert shown_too[-len(expected_setting) :] == expected_setting
    assert {why: sum(r[-1] == why for r in hidden) for why in board.hidden} == board.hidden
    assert len(hidden) == sum(board.hidden.values())  # the gain is on no board
    p2 = ("accuracy", DATASET, "p2")
    assert ("Gamma", 120.0, "%", *p2, "own", "", "", HIDDEN_IMPOSSIBLE) in hidden
    assert ("", 77.0, "%", *p2, "", "", "", HIDDEN_NO_METHOD) in hidden


@pytest.mark.parametrize("command", ["query", "sparql"])
def test_an_empty_leaderboard_says_which_boards_there_are_or_that_all_is_hidden(
    board_stores, command
):
    _, out = board_stores
    args = [command, str(out), "leaderboard", "-p", f"dataset={DATASET}", "-p", "metric=f1"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "no leaderboard on 'BenchSet' has 'f1' in its name or its metric's" in result.output
    assert "accuracy (3 shown, 3 hidden), accuracy (1% labels) (1 shown, 0 hidden)" in result.output
    result = runner.invoke(app, [command, str(out), "leaderboard", "-p", "dataset=OtherSet"])
    assert result.exit_code == 0, result.output
    assert "the board rules hide every row of the leaderboards on 'OtherSet'" in result.output
    assert "show_hidden=true" in result.output


def test_stores_written_before_results_had_boards_say_to_build_again(tmp_path, monkeypatch):
    """A graph whose results were never placed on boards gives an empty leaderboard that
    says so; a LadybugDB store written before Result nodes had board columns, an error
    that says to build again."""
    import kg.exporters.ladybug as ladybug_export
    from kg.exporters.oxigraph import STORE_NAME, write_store
    from kg.graph.model import NODE_PROPERTIES

    G = board_graph(placed=False)
    write_store(G, tmp_path / STORE_NAME, own_process=False)
    ladybug_export.write_database(G, tmp_path / ladybug_export.DB_NAME)
    args = ["leaderboard", "-p", f"dataset={DATASET}"]
    for command in ("sparql", "query"):
        result = runner.invoke(app, [command, str(tmp_path), *args])
        assert result.exit_code == 0 and "carry no leaderboard" in result.output, result.output
        assert "build it again" in result.output
    older = {**NODE_PROPERTIES, "Result": {k: t for k, t in NODE_PROPERTIES["Result"].items()
                                           if k not in BOARD_PROPERTIES}}  # fmt: skip
    monkeypatch.setattr(ladybug_export, "NODE_PROPERTIES", older)
    (tmp_path / "old").mkdir()
    ladybug_export.write_database(G, tmp_path / "old" / ladybug_export.DB_NAME)
    result = runner.invoke(app, ["query", str(tmp_path / "old"), *args])
    assert result.exit_code == 1 and "build it again" in result.output, result.output


@pytest.mark.parametrize("build", ["example", "sample"])
def test_a_build_stores_the_board_rules_decisions_and_its_stores_list_boards_of(build, request):
    """What a build stored on each Result is what the rules decide on its graph, and each
    board of ``boards_of`` is what the saved query lists on LadybugDB and Oxigraph."""
    from kg.exporters.jsonio import read_build_graph
    from kg.graph.store import GraphTables
    from kg.query import LadybugEngine, run_saved
    from kg.query.sparql import SparqlEngine, run_saved_sparql

    out = request.getfixturevalue("example_build")[0] if build == "example" else (
        request.getfixturevalue("sample_build"))  # fmt: skip
    stored = {k: {p: d.get(p) for p in BOARD_PROPERTIES} for k, d in
              GraphTables(out / "tables").nodes("Result")}  # fmt: skip
    G = read_build_graph(out)
    assert stored == board_properties(G) and stored
    assert {k: {p: d.get(p) for p in BOARD_PROPERTIES} for k, d in G.nodes(data=True)
            if d["label"] == "Result"} == stored  # graph.json has them too  # fmt: skip
    cypher, sparql = LadybugEngine(out), SparqlEngine(out)
    boards = boards_of(G)
    assert len(boards) >= 5
    for (dataset, metric), board in boards.items():
        given = {"dataset": dataset, "metric": metric}
        want = [board_row(r, metric) for r in board.rows]
        for rows in (run_saved(cypher, "leaderboard", given).rows,
                     run_saved_sparql(sparql, "leaderboard", given).rows):  # fmt: skip
            assert [tuple(r) for r in rows if r[3] == metric] == want, (dataset, metric)


def test_a_lower_is_better_board_is_listed_lowest_first(tmp_path):
    """The board's direction is stored with it: word error rate is ranked lowest first,
    and a paper's best row for a method is its lowest, whatever the query is told."""
    from kg.exporters.ladybug import DB_NAME, write_database

    G = new_graph()
    _entity(G, "dataset:benchset", "Dataset", DATASET)
    _entity(G, "metric:word-error-rate", "Metric", "word error rate")
    _entity(G, "method:alpha", "Method", "Alpha")
    _entity(G, "method:beta", "Method", "Beta")
    wer = {"metric": "word error rate", "own": True}
    _paper(G, "p1", [_result(1, 12.5, "%", "method:alpha", **wer),
                     _result(2, 9.0, "%", "method:alpha", **wer)])  # fmt: skip
    _paper(G, "p2", [_result(3, 10.1, "%", "method:beta", **wer)])
    for key, props in board_properties(G).items():
        G.nodes[key].update(props)
    write_database(G, tmp_path / DB_NAME)
    rows = _cli_rows("query", tmp_path, "-p", "show_hidden=true")
    assert [(r[0], r[1], r[-1]) for r in rows] == [
        ("Alpha", 9.0, ""), ("Beta", 10.1, ""), ("Alpha", 12.5, HIDDEN_SAME)]  # fmt: skip
    assert G.nodes[f"result:{1:016x}"]["board_direction"] == "lower"

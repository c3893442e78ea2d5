"""Saved SPARQL queries: each twin gives its Cypher query's rows, parameters are bound as
terms, the build's Oxigraph store, the ``kg sparql`` command, and a Turtle round trip."""

from __future__ import annotations

import json
import re

import networkx as nx
import pytest
from rdflib import Graph
from typer.testing import CliRunner

from kg.cli import app
from kg.errors import KgError
from kg.exporters.oxigraph import STORE_NAME, write_store
from kg.exporters.rdf import write_turtle
from kg.orchestrate import ExportOptions
from kg.query import LadybugEngine, list_queries, run_saved
from kg.query.sparql import (
    SparqlEngine,
    get_sparql_query,
    list_sparql_queries,
    render_query,
    run_saved_sparql,
)
from tests.conftest import EXAMPLES
from tests.query.test_queries import _example_params, every_relation

runner = CliRunner()

# Cypher queries with no SPARQL twin (the README says why)
NO_TWIN = {"paper-graph", "path-between"}
# columns a twin names differently, because SPARQL has one name for a parameter and a column
RENAMED = {
    "user_method": "method",
    "better_method": "method",
    "dataset_name": "dataset",
    "metric_name": "metric",
    "entity_type": "type",
}


def test_sparql_queries_have_headers_and_a_twin_for_each_cypher_query():
    queries = list_sparql_queries()
    assert len(queries) >= 12
    cypher = {q.name for q in list_queries()}
    assert {q.name for q in queries} == cypher - NO_TWIN
    for q in queries:
        assert q.title and q.answers.endswith("?"), q.name
        assert q.text.startswith("# Title:"), q.name
        select = next(line for line in q.text.splitlines() if line.startswith("SELECT"))
        for p in q.params:
            assert p.help, f"{q.name}: parameter {p.name} has no description"
            if p.name != "limit":  # applied as a row cap: SPARQL's LIMIT takes no variable
                assert f"${p.name} " in select, f"{q.name}: ${p.name} is not projected"
        assert "LIMIT" not in q.text.split("WHERE", 1)[1], q.name


def _normalised(rows) -> list[tuple]:
    def value(v):
        if isinstance(v, bool) or v is None:
            return v
        return float(v) if isinstance(v, int | float) else v

    return sorted((tuple(value(v) for v in row) for row in rows), key=repr)


def _cypher_rows(name: str, result) -> list[tuple]:
    if name == "mentions-with-evidence":  # one row per mention instead of a JSON list
        return [
            (paper, title, mentions, e["sentence"], e["start"], e["end"], e["text"])
            for paper, title, mentions, evidence in result.rows
            for e in json.loads(evidence)
        ]
    return result.rows


def _twins(build_dir, sample: bool):
    sparql, cypher = SparqlEngine(build_dir), LadybugEngine(build_dir)
    assert sparql.source == "store"
    params = _example_params(sample)
    out = {}
    for q in list_sparql_queries():
        given = every_relation(q, params.get(q.name, {}))
        out[q.name] = (run_saved_sparql(sparql, q.name, given), run_saved(cypher, q.name, given))
    return out


@pytest.mark.parametrize("build", ["example", "sample"])
def test_every_sparql_twin_returns_the_rows_of_its_cypher_query(build, request):
    if build == "example":
        out = request.getfixturevalue("example_build")[0]
    else:
        out = request.getfixturevalue("sample_build")
    nonempty = 0
    for name, (sparql, cypher) in _twins(out, sample=build == "sample").items():
        assert [RENAMED.get(c, c) for c in sparql.columns] == (
            cypher.columns
            if name != "mentions-with-evidence"
            else ["paper", "title", "mentions", "sentence", "start", "end", "text"]
        ), name
        assert _normalised(sparql.rows) == _normalised(_cypher_rows(name, cypher)), name
        nonempty += bool(sparql.rows)
    assert nonempty >= len(list_sparql_queries()) - 3, "most twins should answer something"


def test_every_saved_query_shown_with_its_values_gives_the_bound_rows(sample_build):
    """`kg sparql --show` text (values written in as terms, for endpoints that take no
    bindings) parses and answers like the bound query, for every saved query."""
    engine, params = SparqlEngine(sample_build), _example_params(True)
    for q in list_sparql_queries():
        bound = q.bind(params.get(q.name, {}))
        shown = engine.run(render_query(q.text, bound))
        assert _normalised(shown.rows) == _normalised(engine.run(q.text, bound).rows), q.name


def test_mentions_with_evidence_offsets_point_at_the_words(sample_build):
    engine = SparqlEngine(sample_build)
    rows = run_saved_sparql(engine, "mentions-with-evidence", {"entity": "ImageNet"}).records()
    assert len({r["paper"] for r in rows}) == 5
    query = "SELECT ?text $paper WHERE { ?p dcterms:identifier $paper ; dcterms:abstract ?text }"
    for r in rows:
        (abstract,) = engine.run(query, {"paper": r["paper"]}).rows[0]
        assert abstract[r["start"] : r["end"]] == r["text"] == "ImageNet"


def _hostile_graph() -> nx.MultiDiGraph:
    """Two methods whose names hold SPARQL's quote, brace and comment characters."""
    G = nx.MultiDiGraph()
    text = 'We propose Odd "Net" } # 1, built on Base\'Net.'
    G.add_node(
        "paper:p1", label="Paper", paper_id="p1", text=text, title="T", year=None, date=None,
        authors=[], url=None, code_url=None, upvotes=None,
    )  # fmt: skip
    for key, name, alias in [
        ("method:odd-net", 'Odd "Net" } # 1', "Odd}Net"),
        ("method:base-net", "Base'Net", 'x") || true || ("'),
    ]:
        G.add_node(
            key, label="Method", type="Method", name=name, aliases=[alias], support=1,
            mention_count=1, proposed_count=0, benchmark=False,
        )  # fmt: skip
    evidence = [{"sentence": 0, "text": text, "head_span": [11, 24], "tail_span": [38, 46],
                 "rule": "test", "confidence": 0.95, "paper": "p1"}]  # fmt: skip
    G.add_edge(
        "method:odd-net", "method:base-net", key="USES", type="USES", support=1,
        confidence=0.95, papers=["p1"], evidence=evidence,
    )  # fmt: skip
    return G


def test_parameters_are_bound_as_terms_not_pasted(tmp_path):
    (tmp_path / "b").mkdir()
    write_store(_hostile_graph(), tmp_path / "b" / STORE_NAME)
    engine = SparqlEngine(tmp_path / "b")
    used = run_saved_sparql(engine, "builds-on", {"method": "Base'Net"})
    assert used.records() == [{"user_method": 'Odd "Net" } # 1', "papers": 1, "proposed_by": 0}]
    found = run_saved_sparql(engine, "find-entity", {"text": '"Net" } #'})
    assert [r["name"] for r in found.records()] == ['Odd "Net" } # 1']
    for name in ['Odd "Net" } # 1', "Odd}Net", "method:odd-net"]:  # name, alias, key
        rows = run_saved_sparql(engine, "method-tasks", {"method": name}).rows
        assert rows == []  # no APPLIED_TO, and no error
        assert run_saved_sparql(engine, "builds-on", {"method": name}).rows == []
    # a value written to break out of the string matches only the alias that is that string
    sneaky = 'x") || true || ("'
    assert run_saved_sparql(engine, "builds-on", {"method": sneaky}).rows == used.rows
    assert run_saved_sparql(engine, "find-entity", {"text": ") || true || ("}).rows == []
    # the text shown for other endpoints, run as it is, gives the same answers
    for query, params in [
        ("builds-on", {"method": "Base'Net"}),
        ("find-entity", {"text": '"Net" } #'}),
    ]:
        saved = get_sparql_query(query)
        shown = render_query(saved.text, saved.bind(params))
        assert engine.run(shown).rows == run_saved_sparql(engine, query, params).rows
    with pytest.raises(KgError, match="cannot bind"):
        engine.run("SELECT ?x $v WHERE { BIND(1 AS ?x) }", {"v": [1]})
    with pytest.raises(KgError, match="must be a variable the query's SELECT lists"):
        engine.run("SELECT ?x WHERE { BIND($v AS ?x) }", {"v": 1})
    with pytest.raises(KgError, match="limit must be a whole number"):
        run_saved_sparql(engine, "find-entity", {"text": "x", "limit": -1})


def test_build_writes_the_oxigraph_store_and_turtle_is_the_fallback(sample_build, tmp_path):
    from pyoxigraph import RdfFormat, parse

    store = sample_build / STORE_NAME
    assert store.is_dir()
    manifest = json.loads((sample_build / "kg-build.json").read_text())
    assert STORE_NAME in manifest["files"]
    n_turtle = sum(1 for _ in parse(path=str(sample_build / "graph.ttl"), format=RdfFormat.TURTLE))
    from_store = SparqlEngine(sample_build)
    (count,) = from_store.run("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").rows[0]
    assert count == n_turtle
    # a build without the store: kg sparql parses graph.ttl instead, with the same answers
    (tmp_path / "ttl-only").mkdir()
    (tmp_path / "ttl-only" / "graph.ttl").write_bytes((sample_build / "graph.ttl").read_bytes())
    from_turtle = SparqlEngine(tmp_path / "ttl-only")
    assert from_turtle.source == "turtle"
    for name in ("top-entities", "leaderboard"):
        params = {"dataset": "ImageNet"} if name == "leaderboard" else {}
        assert (
            run_saved_sparql(from_turtle, name, params).rows
            == run_saved_sparql(from_store, name, params).rows
        )


def test_turtle_round_trip_rdflib_and_pyoxigraph_agree(sample_build):
    from pyoxigraph import BlankNode, RdfFormat, parse

    path = sample_build / "graph.ttl"
    g = Graph().parse(path)
    quads = list(parse(path=str(path), format=RdfFormat.TURTLE))
    assert len(g) == len(quads) > 10_000
    assert not any(isinstance(q.subject, BlankNode) for q in quads)
    assert {str(s) for s in g.subjects()} == {q.subject.value for q in quads}
    # and the Turtle rdflib writes reads back the same in pyoxigraph
    again = list(parse(g.serialize(format="turtle").encode(), format=RdfFormat.TURTLE))
    assert len(again) == len(quads)
    assert {q.subject.value for q in again} == {q.subject.value for q in quads}


def test_turtle_literals_are_valid_for_their_datatypes(tmp_path):
    G = _hostile_graph()
    G.add_node(
        "result:0123456789abcdef", label="Result", value=1e-05, unit=None, delta=False,
        metric_name="error", condition=None, paper_id="p1", sentence=0, start=0, end=3,
        evidence="s", confidence=0.5,
    )  # fmt: skip
    path = tmp_path / "g.ttl"
    write_turtle(G, path)
    text = path.read_text()
    assert '"0.00001"^^xsd:decimal' in text or "0.00001" in text
    assert "1e-05" not in text


def test_turtle_engines_write_the_same_graph(tmp_path):
    from rdflib import Graph
    from rdflib.compare import isomorphic

    G = _hostile_graph()
    graphs = []
    for engine in ("pyoxigraph", "rdflib"):
        write_turtle(G, tmp_path / f"{engine}.ttl", engine=engine)
        g = Graph().parse(tmp_path / f"{engine}.ttl", format="turtle")
        for t in [t for t in g if str(t[1]).endswith(("startedAtTime", "endedAtTime"))]:
            g.remove(t)  # the time each was written
        graphs.append(g)
    assert len(graphs[0]) > 40 and isomorphic(*graphs)
    with pytest.raises(ValueError, match="engine must be"):
        write_turtle(G, tmp_path / "x.ttl", engine="jena")


def test_cli_sparql_list_saved_adhoc_and_errors(sample_build, tmp_path):
    result = runner.invoke(app, ["sparql", "--list"])
    assert result.exit_code == 0 and "leaderboard" in result.stdout
    result = runner.invoke(
        app, ["sparql", str(sample_build), "top-entities", "-p", "limit=3", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) == 3 and set(rows[0]) == {"name", "papers", "mentions", "proposed_by"}
    assert rows[0]["name"] == "LLMs"  # the form most papers use
    query = "SELECT (COUNT(?m) AS ?n) WHERE { ?m a kgo:Method }"
    result = runner.invoke(app, ["sparql", str(sample_build), query, "--format", "csv"])
    assert result.exit_code == 0, result.output
    from kg.graph.store import GraphTables

    methods = GraphTables(sample_build / "tables").label_counts()["Method"]
    assert result.stdout.splitlines() == ["n", str(methods)]
    rq = tmp_path / "q.rq"
    rq.write_text(
        "SELECT ?name $t WHERE { ?e a kgo:Task ; skos:prefLabel ?name FILTER(?name = $t) }"
    )
    args = [str(sample_build), str(rq), "-p", "t=text classification", "--format", "json"]
    result = runner.invoke(app, ["sparql", *args])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [{"name": "text classification"}]
    args = [str(sample_build), "leaderboard", "-p", "dataset=ImageNt"]
    result = runner.invoke(app, ["sparql", *args])
    assert result.exit_code != 0
    assert "no Dataset called 'ImageNt'" in result.output and "ImageNet" in result.output
    result = runner.invoke(app, ["sparql", str(sample_build), "SELECT ?x WHERE { ?x"])
    assert result.exit_code != 0 and "SPARQL syntax" in result.output
    result = runner.invoke(app, ["sparql", str(sample_build), "nope"])
    assert result.exit_code != 0 and "neither a saved SPARQL query nor a query" in result.output
    result = runner.invoke(app, ["sparql", "leaderboard", "--show", "-p", 'dataset=a"b'])
    assert result.exit_code == 0 and '"a\\"b"' in result.stdout
    assert "$dataset" not in re.sub(r"#[^\n]*", "", result.stdout)


def test_oxigraph_server_answers_a_shown_query_as_kg_sparql_does(example_build, tmp_path):
    """The README's way into a triple store: `oxigraph load` graph.ttl, serve it, POST the
    query `kg sparql --show -p ...` prints."""
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    import httpx

    out = example_build[0]
    oxigraph = Path(sys.executable).parent / "oxigraph"
    db = tmp_path / "db"
    subprocess.run(
        [oxigraph, "load", "--location", db, "--file", out / "graph.ttl"],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [oxigraph, "serve-read-only", "--location", db, "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        params = {"dataset": "LIBERO", "metric": "success"}
        saved = get_sparql_query("leaderboard")
        shown = render_query(saved.text, saved.bind(params))
        headers = {
            "Content-Type": "application/sparql-query",
            "Accept": "application/sparql-results+json",
        }
        for _ in range(100):
            try:
                answer = httpx.post(
                    f"http://127.0.0.1:{port}/query", content=shown, headers=headers
                )
                break
            except httpx.TransportError:
                time.sleep(0.1)
        answer.raise_for_status()
        body = answer.json()
    finally:
        server.terminate()
        server.wait(timeout=30)
    local = run_saved_sparql(SparqlEngine(out), "leaderboard", params)
    assert body["head"]["vars"] == local.columns
    served = [
        tuple(b.get(c, {}).get("value") for c in local.columns) for b in body["results"]["bindings"]
    ]
    assert served and len(served) == len(local.rows)
    for got, want in zip(served, local.rows, strict=True):
        typed = [float(g) if isinstance(w, float) else g for g, w in zip(got, want, strict=True)]
        assert typed == list(want)


def test_store_without_turtle_is_streamed_from_the_tables(example_build, tmp_path):
    from kg.orchestrate import build

    out = tmp_path / "out"
    build([EXAMPLES], out, export=ExportOptions(outputs=("oxigraph",)))
    assert not (out / "graph.ttl").exists() and (out / STORE_NAME).is_dir()
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o FILTER(?p != prov:startedAtTime) }"
    streamed = SparqlEngine(out).run(count).rows
    assert streamed == SparqlEngine(example_build[0]).run(count).rows
    assert streamed[0][0] > 1000


@pytest.mark.parametrize("own_process", [True, False])
def test_store_from_turtle_in_its_own_process_or_not(sample_build, tmp_path, own_process):
    store = tmp_path / STORE_NAME
    info = write_store(None, store, turtle=sample_build / "graph.ttl", own_process=own_process)
    assert info.path == store and info.bytes > 0
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    assert SparqlEngine(tmp_path).run(count).rows == SparqlEngine(sample_build).run(count).rows
    assert info.triples == SparqlEngine(sample_build).run(count).rows[0][0]
    # a Turtle file that does not parse: the error names the store, and nothing is left
    bad = tmp_path / "bad.ttl"
    bad.write_text("<a:x> <a:y> .\n", encoding="utf-8")
    with pytest.raises(KgError, match=r"cannot write the Oxigraph store .*broken"):
        write_store(None, tmp_path / "broken", turtle=bad, own_process=own_process)
    assert not (tmp_path / "broken").exists()


def _duplicates_graph() -> nx.MultiDiGraph:
    """Two papers mentioning entities that differ only in case and hyphens, or whose name is
    another's alias, and one name shared by a method and a task."""
    G = nx.MultiDiGraph()
    papers = {"p1": "Foo-Net and foo net and FN beat Bar on X.", "p2": "Foo-Net uses FN on X."}
    for pid, text in papers.items():
        G.add_node(
            f"paper:{pid}", key=f"paper:{pid}", label="Paper", paper_id=pid, text=text,
            title=None, year=None, date=None, authors=[], url=None, code_url=None, upvotes=None,
        )  # fmt: skip
    entities = [
        ("method:foo-net", "Method", "Foo-Net", ["FN"]),
        ("method:foo-net-2", "Method", "foo net", []),
        ("method:fn", "Method", "FN", []),
        ("method:bar", "Method", "Bar", []),
        ("dataset:x", "Dataset", "X", []),
        ("task:foo-net", "Task", "foo net", []),
    ]
    mentions = {
        "p1": ["method:foo-net", "method:foo-net-2", "method:fn", "method:bar", "dataset:x",
               "task:foo-net"],
        "p2": ["method:foo-net", "method:fn", "dataset:x"],
    }  # fmt: skip
    for key, label, name, aliases in entities:
        n = sum(key in keys for keys in mentions.values())
        G.add_node(
            key, key=key, label=label, type=label, name=name, aliases=aliases, support=n,
            mention_count=n, proposed_count=0, benchmark=False,
        )  # fmt: skip
    for pid, keys in mentions.items():
        for i, key in enumerate(keys):
            evidence = [{"paper": pid, "sentence": 0, "start": i, "end": i + 1, "text": "w",
                         "rule": "test"}]  # fmt: skip
            G.add_edge(
                f"paper:{pid}", key, key="MENTIONS", type="MENTIONS", support=1,
                confidence=0.5 + i / 20, papers=[pid], evidence=evidence, mentions=1,
            )  # fmt: skip
    return G


def test_twins_agree_on_a_graph_made_to_hold_duplicates(tmp_path):
    from kg.exporters.ladybug import write_database

    G = _duplicates_graph()
    write_store(G, tmp_path / STORE_NAME)
    write_database(G, tmp_path / "graph.lbdb")
    sparql, cypher = SparqlEngine(tmp_path), LadybugEngine(tmp_path)
    expected = {
        "likely-duplicates": [("Method", "FN", "Foo-Net", 2), ("Method", "Foo-Net", "foo net", 1)],
        "low-support-entities": [
            ("Method", "foo net", 1, 0.55),
            ("Method", "Bar", 1, 0.65),
            ("Task", "foo net", 1, 0.75),
        ],  # fmt: skip
    }
    for name, params in [
        ("likely-duplicates", {}),
        ("low-support-entities", {}),
        ("top-entities", {}),
        ("co-occurring", {"entity": "FN"}),
        ("mentions-with-evidence", {"entity": "foo net"}),
        ("find-entity", {"text": "foo"}),
    ]:
        s = run_saved_sparql(sparql, name, params)
        c = run_saved(cypher, name, params)
        assert s.rows, name
        assert _normalised(s.rows) == _normalised(_cypher_rows(name, c)), name
        if name in expected:
            assert s.rows == expected[name]

"""The Neo4j loader against a real Neo4j server: idempotent, incremental, verbatim names."""

from __future__ import annotations

import json
from collections import defaultdict

import networkx as nx
import pytest

from kg.exporters.jsonio import read_build_graph
from kg.exporters.neo4j import (
    LoadSummary,
    database_counts,
    load_neo4j,
    schema_statements,
)
from kg.exporters.neo4j_writes import merged_edge
from kg.graph.assemble import edge_confidence
from kg.graph.model import ENTITY_LABELS, NODE_LABELS
from tests.conftest import EXAMPLES


def _snapshot(driver) -> tuple[list, list]:
    nodes, _, _ = driver.execute_query(
        "MATCH (n) RETURN n.key AS key, labels(n) AS labels, properties(n) AS props ORDER BY key"
    )
    rels, _, _ = driver.execute_query(
        "MATCH (a)-[r]->(b) RETURN a.key AS a, type(r) AS t, b.key AS b, properties(r) AS props "
        "ORDER BY a, t, b"
    )
    return [r.data() for r in nodes], [r.data() for r in rels]


def test_schema_has_a_uniqueness_constraint_per_label_and_a_fulltext_index():
    statements = schema_statements()
    for label in NODE_LABELS:
        assert any(f"(n:{label}) REQUIRE n.key IS UNIQUE" in s for s in statements), (
            f"no key constraint for {label}"
        )
    fulltext = [s for s in statements if "FULLTEXT" in s]
    assert len(fulltext) == 1 and all(label in fulltext[0] for label in ENTITY_LABELS)


def test_merged_edge_counts_a_reloaded_paper_once_and_replaces_its_evidence():
    old = {
        "papers": ["p1", "p2"],
        "confidence": 0.4,
        "evidence": json.dumps([{"paper": "p1", "text": "old"}, {"paper": "p2", "text": "b"}]),
    }
    new = {
        "papers": ["p2", "p3"],
        "support": 2,
        "confidence": 0.9,
        "evidence": json.dumps([{"paper": "p2", "text": "b"}, {"paper": "p3", "text": "c"}]),
    }
    merged = merged_edge(old, new)
    assert merged["papers"] == ["p1", "p2", "p3"] and merged["support"] == 3
    assert merged["confidence"] == 0.9
    texts = [(e["paper"], e["text"]) for e in json.loads(merged["evidence"])]
    assert texts == [("p1", "old"), ("p2", "b"), ("p3", "c")]


def test_merged_relation_keeps_its_best_evidence_first_and_its_confidence():
    """A relation already in the database from another paper: the evidence of both is
    ranked by confidence and the confidence is that of the papers shown first."""
    old = {
        "papers": ["p1"],
        "confidence": 0.4,
        "evidence": json.dumps([{"paper": "p1", "confidence": 0.4}]),
    }
    new = {"papers": ["p2"], "support": 1, "confidence": 0.9,
           "evidence": json.dumps([{"paper": "p2", "confidence": 0.9}])}  # fmt: skip
    merged = merged_edge(old, new, "USES")
    assert [e["paper"] for e in json.loads(merged["evidence"])] == ["p2", "p1"]
    both = [{"paper": "p2", "confidence": 0.9}, {"paper": "p1", "confidence": 0.4}]
    assert merged["confidence"] == edge_confidence(both, 2, "USES")
    assert merged["confidence"] != new["confidence"]
    assert merged_edge(None, new, "USES") == new


def test_load_is_idempotent(example_build, empty_neo4j):
    out, _ = example_build
    G = read_build_graph(out)
    first = load_neo4j(G, empty_neo4j, batch_size=50)
    assert first.papers_new == 12 and first.papers_reloaded == 0
    assert sum(first.nodes_created.values()) == G.number_of_nodes()
    assert sum(first.relationships_created.values()) == G.number_of_edges()
    before = _snapshot(empty_neo4j)
    second = load_neo4j(G, empty_neo4j, batch_size=7)
    assert second.created == 0, (second.nodes_created, second.relationships_created)
    assert second.papers_new == 0 and second.papers_reloaded == 12
    assert _snapshot(empty_neo4j) == before
    counts = database_counts(empty_neo4j)
    assert counts["Paper"] == 12
    assert sum(counts[label] for label in NODE_LABELS) == G.number_of_nodes()


def test_loaded_entities_match_the_build(example_build, empty_neo4j):
    out, _ = example_build
    G = read_build_graph(out)
    load_neo4j(G, empty_neo4j)
    records, _, _ = empty_neo4j.execute_query(
        "MATCH (n:Method|Task|Dataset|Metric) RETURN n.key AS key, n.name AS name, "
        "n.type AS type, n.aliases AS aliases, n.support AS support, "
        "n.mention_count AS mentions, n.proposed_count AS proposed"
    )
    assert len(records) == sum(1 for _, d in G.nodes(data=True) if d["label"] in ENTITY_LABELS)
    for rec in records:
        node = G.nodes[rec["key"]]
        assert (rec["name"], rec["type"]) == (node["name"], node["label"])
        assert sorted(rec["aliases"]) == sorted(node["aliases"])
        assert (rec["support"], rec["mentions"], rec["proposed"]) == (
            node["support"],
            node["mention_count"],
            node["proposed_count"],
        ), rec["key"]


def _expected_support(*graphs: nx.MultiDiGraph) -> tuple[dict, dict]:
    """Entity -> papers mentioning it, shared edge -> papers supporting it, over all builds."""
    entity_papers: dict[str, set] = defaultdict(set)
    edge_papers: dict[tuple, set] = defaultdict(set)
    for G in graphs:
        for u, v, rtype, data in G.edges(keys=True, data=True):
            if rtype == "MENTIONS":
                entity_papers[v].add(u)
            elif G.nodes[u]["label"] in ENTITY_LABELS:
                edge_papers[(u, rtype, v)].update(data["papers"])
    return entity_papers, edge_papers


def test_incremental_load_merges_and_counts_each_paper_once(tmp_path, empty_neo4j):
    from kg.orchestrate import build

    paragraphs = EXAMPLES.read_text(encoding="utf-8").split("\n\n")[1:]
    part_a, part_b = paragraphs[:7], paragraphs[5:]  # two papers in both
    (tmp_path / "a.txt").write_text("\n\n".join(part_a), encoding="utf-8")
    (tmp_path / "b.txt").write_text("\n\n".join(part_b), encoding="utf-8")
    build([tmp_path / "a.txt"], tmp_path / "a")
    build([tmp_path / "b.txt"], tmp_path / "b")
    ga, gb = read_build_graph(tmp_path / "a"), read_build_graph(tmp_path / "b")

    load_neo4j(ga, empty_neo4j)
    second: LoadSummary = load_neo4j(gb, empty_neo4j)
    assert second.papers_new == len(part_b) - 2 and second.papers_reloaded == 2
    assert database_counts(empty_neo4j)["Paper"] == 12

    entity_papers, edge_papers = _expected_support(ga, gb)
    records, _, _ = empty_neo4j.execute_query(
        "MATCH (n:Method|Task|Dataset|Metric) RETURN n.key AS key, n.support AS support"
    )
    assert {r["key"]: r["support"] for r in records} == {
        k: len(v) for k, v in entity_papers.items()
    }
    records, _, _ = empty_neo4j.execute_query(
        "MATCH (a:Method|Task|Dataset)-[r:USES|APPLIED_TO|EVALUATED_ON|OUTPERFORMS|"
        "COMPARED_WITH|BENCHMARK_FOR|MEASURED_BY]->(b:Method|Task|Dataset|Metric) "
        "RETURN a.key AS a, type(r) AS t, b.key AS b, r.papers AS papers, "
        "r.support AS support, r.evidence AS evidence"
    )
    assert len(records) == len(edge_papers)
    for rec in records:
        expected = edge_papers[(rec["a"], rec["t"], rec["b"])]
        assert sorted(rec["papers"]) == sorted(expected)
        assert rec["support"] == len(expected)
        evidence = json.loads(rec["evidence"])
        keys = [json.dumps(e, sort_keys=True) for e in evidence]
        assert len(keys) == len(set(keys)), "evidence repeated after a reload"
        assert {f"paper:{e['paper']}" for e in evidence} <= {f"paper:{p}" for p in expected}

    third = load_neo4j(gb, empty_neo4j)
    assert third.created == 0


NASTY = [
    "x'}) DETACH DELETE n //",
    'say "hi" \\ back\\slash',
    "`backtick` name; MATCH (m) RETURN m",
    "semi;colon|pipe, comma [bracket] {brace}",
    "line\nbreak and tab\t and ünïcödé ✓",
]


def nasty_graph() -> nx.MultiDiGraph:
    """A small graph whose names and ids are made of quotes, backslashes and Cypher."""
    from kg.graph.assemble import add_paper, new_graph

    G = new_graph()
    for i, name in enumerate(NASTY):
        G.add_node(
            f"method:nasty-{i}",
            label="Method",
            key=f"method:nasty-{i}",
            type="Method",
            name=name,
            aliases=[name, name.upper()],
            support=1,
            mention_count=1,
            proposed_count=0,
            benchmark=False,
        )
    record = {
        "id": NASTY[0],
        "title": NASTY[1],
        "text": " ".join(NASTY),
        "authors": NASTY[2:4],
        "entities": [
            {
                "id": f"method:nasty-{i}",
                "proposed": i == 0,
                "mentions": [
                    {
                        "sentence": 0,
                        "start": 0,
                        "end": 1,
                        "text": name,
                        "rule": "t",
                        "confidence": 0.5,
                    }
                ],
            }
            for i, name in enumerate(NASTY)
        ],
        "relations": [
            {
                "head": "method:nasty-0",
                "tail": "method:nasty-1",
                "type": "USES",
                "confidence": 0.5,
                "evidence": [{"sentence": 0, "text": NASTY[4], "rule": "t"}],
            }
        ],
        "results": [],
    }
    add_paper(G, record)
    return G


def test_names_with_quotes_and_cypher_are_stored_verbatim(empty_neo4j, tmp_path):
    from kg.exporters.ladybug import write_database
    from kg.query import LadybugEngine

    G = nasty_graph()
    load_neo4j(G, empty_neo4j)
    records, _, _ = empty_neo4j.execute_query(
        "MATCH (m:Method) RETURN m.key AS key, m.name AS name, m.aliases AS aliases ORDER BY key"
    )
    assert [r["name"] for r in records] == NASTY
    assert [sorted(r["aliases"]) for r in records] == [sorted([n, n.upper()]) for n in NASTY]
    paper, _, _ = empty_neo4j.execute_query(
        "MATCH (p:Paper)-[:MENTIONS]->(m:Method) RETURN DISTINCT p.paper_id AS id, "
        "p.title AS title, p.authors AS authors"
    )
    assert [(r["id"], r["title"], r["authors"]) for r in paper] == [
        (NASTY[0], NASTY[1], NASTY[2:4])
    ]
    rel, _, _ = empty_neo4j.execute_query(
        "MATCH (:Method)-[r:USES]->(:Method) RETURN r.papers AS papers, r.evidence AS evidence"
    )
    assert rel[0]["papers"] == [NASTY[0]]
    assert json.loads(rel[0]["evidence"])[0]["text"] == NASTY[4]
    assert database_counts(empty_neo4j)["Method"] == len(NASTY)  # nothing was deleted

    write_database(G, tmp_path / "graph.lbdb")
    store = LadybugEngine(tmp_path)
    rows = store.run("MATCH (m:Method) RETURN m.name, m.aliases ORDER BY m.key").rows
    assert [r[0] for r in rows] == NASTY
    assert [sorted(r[1]) for r in rows] == [sorted([n, n.upper()]) for n in NASTY]
    rows = store.run("MATCH (:Method)-[r:USES]->(:Method) RETURN r.papers").rows
    assert rows == [([NASTY[0]],)]


def test_load_rejects_a_bad_batch_size(empty_neo4j):
    with pytest.raises(ValueError, match="batch_size"):
        load_neo4j(nx.MultiDiGraph(), empty_neo4j, batch_size=0)


def test_reload_with_replace_drops_what_a_paper_no_longer_says(example_build, empty_neo4j):
    out, _ = example_build
    G = read_build_graph(out)
    load_neo4j(G, empty_neo4j)
    # the same papers, as a changed extractor might read them: one paper loses a mention,
    # a result and its support of a shared relation
    H = G.copy()
    u, v, rtype, data = next(
        (u, v, k, d)
        for u, v, k, d in H.edges(keys=True, data=True)
        if k == "USES" and d["support"] == 1
    )
    paper = f"paper:{data['papers'][0]}"
    H.remove_edge(u, v, key=rtype)
    mention = next(e for _, e, k in H.out_edges(paper, keys=True) if k == "MENTIONS")
    H.remove_edge(paper, mention, key="MENTIONS")
    if H.has_edge(paper, mention, key="PROPOSES"):
        H.remove_edge(paper, mention, key="PROPOSES")
    result = next((r for _, r, k in H.out_edges(paper, keys=True) if k == "REPORTS"), None)
    if result is not None:
        H.remove_node(result)

    plain = load_neo4j(H, empty_neo4j)  # default: additive, nothing removed
    assert plain.created == 0 and not plain.stale_removed
    summary = load_neo4j(H, empty_neo4j, replace=True)
    assert summary.created == 0
    assert summary.stale_removed["MENTIONS"] == 1 and summary.stale_removed[rtype] == 1
    records, _, _ = empty_neo4j.execute_query(
        f"MATCH (a {{key: $u}})-[r:{rtype}]->(b {{key: $v}}) RETURN count(r) AS n", u=u, v=v
    )
    assert records[0]["n"] == 0
    records, _, _ = empty_neo4j.execute_query(
        "MATCH (p:Paper {key: $p})-[:MENTIONS]->(e {key: $e}) RETURN count(*) AS n",
        p=paper,
        e=mention,
    )
    assert records[0]["n"] == 0
    records, _, _ = empty_neo4j.execute_query(
        "MATCH (e {key: $e}) RETURN e.support AS support", e=mention
    )
    expected = sum(1 for _, _, k in H.in_edges(mention, keys=True) if k == "MENTIONS")
    assert records[0]["support"] == expected
    counts = database_counts(empty_neo4j)
    assert counts["Result"] == sum(1 for _, d in H.nodes(data=True) if d["label"] == "Result")
    again = load_neo4j(H, empty_neo4j, replace=True)
    assert again.created == 0 and not again.stale_removed  # idempotent with replace too


def _boards(driver) -> dict[str, dict]:
    from kg.graph.model import BOARD_PROPERTIES

    fields = ", ".join(f"r.{p} AS {p}" for p in BOARD_PROPERTIES)
    records, _, _ = driver.execute_query(f"MATCH (r:Result) RETURN r.key AS key, {fields}")
    return {r["key"]: {p: r[p] for p in BOARD_PROPERTIES} for r in records}


def test_an_update_sets_anew_the_boards_its_new_papers_changed(empty_neo4j):
    """A new paper can change the boards of papers loaded before (here its fractions make
    accuracy a fraction, so 81% is now read as 0.81): an update loads the new paper, then
    sets the board properties that differ on the other papers' results, and only those."""
    from kg.exporters.neo4j import refresh_properties
    from kg.graph.boards import board_properties
    from kg.graph.model import BOARD_PROPERTIES
    from kg.graph.store import NxGraph, PaperSubset
    from tests.query.test_leaderboard import _paper, _result, board_graph

    G = board_graph()
    load_neo4j(G, empty_neo4j)
    assert _boards(empty_neo4j) == board_properties(G)
    assert refresh_properties(G, empty_neo4j, "Result", BOARD_PROPERTIES) == 0
    loaded = set(board_properties(G))
    _paper(G, "p4", [_result(20 + i, v, None, "method:alpha", own=True, condition=f"run {i}")
                     for i, v in enumerate((0.61, 0.62, 0.63, 0.64, 0.65, 0.66))])  # fmt: skip
    after = board_properties(G)
    for key, props in after.items():
        G.nodes[key].update(props)
    load_neo4j(PaperSubset(NxGraph(G), {"p4"}), empty_neo4j, replace=True)
    held = _boards(empty_neo4j)
    stale = {k for k, props in held.items() if props != after[k]}
    assert stale and stale <= loaded  # the new paper's results came in as the build has them
    first = f"result:{1:016x}"
    assert (held[first]["board_value"], held[first]["board_note"]) == (81.0, None)
    assert (after[first]["board_value"], after[first]["board_note"]) == (0.81, "81% read as 0.81")
    assert refresh_properties(G, empty_neo4j, "Result", BOARD_PROPERTIES) == len(stale)
    assert _boards(empty_neo4j) == after
    assert refresh_properties(G, empty_neo4j, "Result", BOARD_PROPERTIES) == 0


def test_the_leaderboard_on_neo4j_gives_the_rows_of_boards_of(empty_neo4j):
    """On Neo4j too the saved leaderboard shows what the board rules decided (a fraction
    read as a percentage; an impossible value, a row with no method and a paper's second
    row for one method hidden), and loading the graph again changes none of it."""
    from kg.analytics.leaderboards import boards_of
    from kg.query import Neo4jEngine, run_saved
    from tests.query.test_leaderboard import DATASET, board_graph, board_row

    G = board_graph()
    board = boards_of(G)[(DATASET, "accuracy")]
    setting = "accuracy (1% labels)"  # a board of its own, after the main one by name
    main = [board_row(r, "accuracy") for r in board.rows]
    other = [board_row(r, setting) for r in boards_of(G)[(DATASET, setting)].rows]
    for _ in range(2):
        load_neo4j(G, empty_neo4j)
        server = Neo4jEngine(empty_neo4j)
        shown = run_saved(server, "leaderboard", {"dataset": DATASET}).rows
        assert shown == main + other
        by_alias = run_saved(server, "leaderboard", {"dataset": DATASET, "metric": "acc@1"})
        assert by_alias.rows == shown
        every = run_saved(server, "leaderboard", {"dataset": DATASET, "show_hidden": True}).rows
        assert every[: len(main)] == main and every[-len(other) :] == other
        reasons = [row[-1] for row in every[len(main) : -len(other)]]
        assert {why: reasons.count(why) for why in set(reasons)} == board.hidden

"""Analytics on small hand-made graphs with known answers, and `kg analyze` on builds."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from kg import analytics as A
from kg.analytics.leaderboards import HIDDEN_IMPOSSIBLE, HIDDEN_NO_METHOD, HIDDEN_SAME
from kg.analytics.ranking import pagerank
from kg.graph.assemble import add_paper, new_graph
from kg.orchestrate import ExportOptions

ENT = {"m": "Method", "t": "Task", "d": "Dataset", "k": "Metric"}


def _entity(G, key: str, name: str, support: int = 1, aliases=()) -> None:
    label = ENT[key[0]]
    G.add_node(
        key, label=label, key=key, type=label, name=name, aliases=list(aliases),
        support=support, mention_count=support, proposed_count=0, benchmark=False,
    )  # fmt: skip


def _paper(G, pid: str, mentions: list[str], year: int | None = None, relations=(), results=()):
    record = {
        "id": pid,
        "title": f"Paper {pid}",
        "year": year,
        "text": "Some text. More text.",
        "entities": [
            {"id": k, "proposed": False,
             "mentions": [{"sentence": 0, "start": 0, "end": 4, "text": "Some", "rule": "t",
                           "confidence": 0.9}]}
            for k in mentions
        ],
        "relations": [
            {"head": h, "type": t, "tail": tl, "confidence": 0.8,
             "evidence": [{"sentence": 0, "text": "Some text.", "rule": "t"}]}
            for h, t, tl in relations
        ],
        "results": list(results),
    }  # fmt: skip
    add_paper(G, record)


def _result(rid, value, method, dataset, metric, delta=False, change=None, own=None):
    return {
        "id": rid, "value": value, "unit": "%", "delta": delta, "metric": metric,
        "change": change, "own": own,
        "metric_id": None, "method_id": method, "dataset_id": dataset, "task_id": None,
        "condition": None, "confidence": 0.9,
        "evidence": {"sentence": 0, "text": "Some text.", "start": 0, "end": 4, "rule": "t"},
    }  # fmt: skip


@pytest.fixture()
def G() -> nx.MultiDiGraph:
    """Three papers over methods a, b, c; tasks x, y; dataset D; metric acc."""
    G = new_graph()
    _entity(G, "m:a", "Alpha", 3, aliases=["ALP"])
    _entity(G, "m:b", "Beta", 2)
    _entity(G, "m:c", "Gamma", 1)
    _entity(G, "m:alp", "ALP", 1)  # shares a name with Alpha's alias: a likely duplicate
    _entity(G, "t:x", "image classification", 2)
    _entity(G, "t:y", "speech recognition", 1)
    _entity(G, "d:D", "DataSet-1", 2)
    _entity(G, "k:acc", "accuracy", 1)
    _paper(G, "p1", ["m:a", "m:b", "t:x", "d:D"], 2020,
           [("m:a", "USES", "m:b"), ("m:a", "OUTPERFORMS", "m:b"), ("m:a", "APPLIED_TO", "t:x")],
           [_result("r1", 80.0, "m:a", "d:D", "accuracy"),
            _result("r2", 75.0, "m:b", "d:D", "accuracy"),
            _result("r3", 2.0, "m:a", "d:D", "accuracy", delta=True),
            _result("r4", 9.5, "m:a", "d:D", "error rate"),
            _result("r5", 7.5, "m:b", "d:D", "error rate")])  # fmt: skip
    _paper(G, "p2", ["m:a", "m:b", "t:x", "d:D"], 2021,
           [("m:b", "USES", "m:c"), ("m:c", "OUTPERFORMS", "m:a")])  # fmt: skip
    _paper(G, "p3", ["m:a", "m:c", "t:y", "m:alp"], 2022, [("m:c", "APPLIED_TO", "t:y")])
    _paper(G, "p4", [], 2022)  # a paper in which nothing was found
    return G


def test_top_entities_by_support_and_pagerank(G):
    top = A.top_entities(G, "Method", "support", 2)
    assert [(e.name, e.support) for e in top] == [("Alpha", 3), ("Beta", 2)]
    by_pr = A.top_entities(G, "Method", "pagerank", 4)
    # a→b (USES, OUTPERFORMS), b→c, c→a: the cycle ranks all three above ALP, which has no edge
    assert by_pr[-1].name == "ALP"
    assert {e.name for e in by_pr[:3]} == {"Alpha", "Beta", "Gamma"}
    with pytest.raises(ValueError, match="unknown entity type"):
        A.top_entities(G, "Person")


def test_pagerank_matches_networkx_reference():
    from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

    H = nx.DiGraph()
    H.add_weighted_edges_from(
        [("a", "b", 1), ("b", "c", 2), ("c", "a", 1), ("d", "a", 3), ("c", "e", 1)]
    )
    ours, ref = pagerank(H), _pagerank_python(H, weight="weight")
    assert ours == pytest.approx(ref, abs=1e-5)  # networkx stops at its own tolerance


def test_leaderboards_best_first_with_direction(G):
    boards = A.leaderboards(G)
    direction, rows = boards[("DataSet-1", "accuracy")]
    assert direction == "higher"
    assert [(r.method, r.value) for r in rows] == [("Alpha", 80.0), ("Beta", 75.0)]  # no delta
    direction, rows = boards[("DataSet-1", "error rate")]
    assert direction == "lower"
    assert [(r.method, r.value) for r in rows] == [("Beta", 7.5), ("Alpha", 9.5)]
    assert A.metric_direction("perplexity") == "lower" and A.metric_direction("BLEU") == "higher"


def test_a_leaderboard_orders_by_the_way_the_graph_s_papers_move_the_metric():
    """No list or corpus knows "zorp quux": three papers claim to lower it (one baseline raised
    it, which does not count), so its leaderboard is lowest first."""
    G = new_graph()
    _entity(G, "m:a", "Alpha", 1)
    _entity(G, "m:b", "Beta", 1)
    _entity(G, "d:D", "DataSet-1", 1)
    _paper(G, "p1", ["m:a", "d:D"], 2024, results=[
        _result("r1", 3.5, "m:a", "d:D", "zorp quux"),
        _result("r2", 1.2, "m:a", "d:D", "zorp quux", delta=True, change="down", own=True),
        _result("r3", 9.0, "m:b", "d:D", "zorp quux", delta=True, change="up", own=False),
    ])  # fmt: skip
    for pid in ("p2", "p3"):
        _paper(G, pid, ["m:b", "d:D"], 2024, results=[
            _result(f"{pid}-r", 2.0, "m:b", "d:D", "zorp quux"),
            _result(f"{pid}-d", 0.4, "m:b", "d:D", "zorp quux", delta=True, change="down"),
        ])  # fmt: skip
    assert A.learn_directions(G) == {"zorp quux": (0, 3)}
    assert A.metric_direction("zorp quux") == "higher"  # nothing known without the graph
    direction, rows = A.leaderboards(G)[("DataSet-1", "zorp quux")]
    assert direction == "lower" and [r.value for r in rows] == [2.0, 2.0, 3.5]


def test_a_leaderboard_ranks_one_unit_one_setting_and_one_row_per_paper_and_method():
    G = new_graph()
    _entity(G, "m:a", "Alpha", 1)
    _entity(G, "d:D", "DataSet-1", 1)
    times = dict(_result("r3", 1.5, "m:a", "d:D", "accuracy"), unit="x")
    _paper(G, "p1", ["m:a", "d:D"], 2024, results=[
        _result("r1", 80.0, "m:a", "d:D", "accuracy"),
        _result("r2", 78.0, "m:a", "d:D", "accuracy"),  # the same paper and method: 80 kept
        dict(_result("r4", 60.0, "m:a", "d:D", "accuracy"), condition="1% labels"),
        times,
    ])  # fmt: skip
    boards = A.boards_of(G)
    board = boards[("DataSet-1", "accuracy")]
    assert [(r.value, r.condition) for r in board.rows] == [(80.0, None)]
    assert board.hidden == {HIDDEN_SAME: 1}
    setting = boards[("DataSet-1", "accuracy (1% labels)")]  # a setting: a board of its own
    assert [(r.value, r.condition) for r in setting.rows] == [(60.0, "1% labels")]
    _, rows = A.leaderboards(G)[("DataSet-1", "accuracy [x]")]
    assert [r.value for r in rows] == [1.5]


def test_a_leaderboard_reads_a_metric_on_one_scale_and_hides_what_it_cannot_take():
    G = new_graph()
    for key, name in (("m:a", "Alpha"), ("m:b", "Beta"), ("d:D", "DataSet-1")):
        _entity(G, key, name, 1)
    unitless = [dict(_result(k, v, "m:b", "d:D", m), unit=None)
                for k, v, m in (("f1", 0.905, "zap"), ("f2", 0.71, "quux"),
                                ("f3", 0.62, "quux"), ("f4", 95.0, "quux"))]  # fmt: skip
    _paper(G, "p1", ["m:a", "d:D"], 2024, results=[
        _result("r1", 80.0, "m:a", "d:D", "zap"), _result("r2", 120.0, "m:a", "d:D", "zap"),
        _result("r3", 70.0, None, "d:D", "zap"), _result("r4", 88.0, "m:a", "d:D", "quux"),
    ])  # fmt: skip
    _paper(G, "p2", ["m:b", "d:D"], 2024, results=unitless)
    zap = A.boards_of(G)[("DataSet-1", "zap")]  # a percentage: 0.905 is 90.5%, 120% impossible
    assert [(r.method, r.value, r.unit, r.note) for r in zap.rows] == [
        ("Beta", 90.5, "%", "0.905 read as 90.5%"), ("Alpha", 80.0, "%", None)]  # fmt: skip
    assert zap.hidden == {HIDDEN_IMPOSSIBLE: 1, HIDDEN_NO_METHOD: 1}
    quux = A.boards_of(G)[("DataSet-1", "quux")]  # fractions: 88% is 0.88, 95 impossible
    assert [(r.value, r.note) for r in quux.rows] == [(0.88, "88% read as 0.88"), (0.71, None)]
    assert quux.hidden == {HIDDEN_IMPOSSIBLE: 1, HIDDEN_SAME: 1}
    assert all(r.evidence for r in zap.rows + quux.rows)


VARIANTS = [
    "ZorpGAN: sharper images. We propose ZorpGAN, a tokenizer for image generation. On "
    "ImageNet, ZorpGAN reaches an rFID of 0.43 and a generation FID of 2.10.",
    "QuuxNet for captions. We propose QuuxNet, a captioning model. QuuxNet reaches a BLEU-4 "
    "of 38.2 and a BLEU-1 of 79.5 on MS COCO, and 95.1% top-5 accuracy on ImageNet.",
    "BarNet for recognition. We introduce BarNet. BarNet achieves 80.1% top-1 accuracy on "
    "ImageNet and an FID of 3.4 on ImageNet.",
]


def test_leaderboards_keep_metric_variants_apart_on_a_real_build(tmp_path):
    from kg.exporters.jsonio import read_build_graph
    from kg.orchestrate import build

    src = tmp_path / "abstracts.txt"
    src.write_text("\n\n".join(VARIANTS) + "\n", encoding="utf-8")
    build([src], tmp_path / "out", export=ExportOptions(outputs=("jsonl",)))
    boards = A.boards_of(read_build_graph(tmp_path / "out"))
    best = {key: (b.rows[0].method, b.rows[0].value) for key, b in boards.items()}
    assert best[("ImageNet", "rFID")] == ("ZorpGAN", 0.43)
    assert best[("ImageNet", "FID")] == ("BarNet", 3.4)  # no rFID on the FID board
    assert best[("MS COCO", "BLEU-4")] == ("QuuxNet", 38.2)
    assert best[("MS COCO", "BLEU-1")] == ("QuuxNet", 79.5)
    assert best[("ImageNet", "top-1 accuracy")] == ("BarNet", 80.1)
    assert best[("ImageNet", "top-5 accuracy")] == ("QuuxNet", 95.1)


def test_lineage_and_outperforms(G):
    assert A.method_lineage(G, "m:a") == [["m:a", "m:b", "m:c"]]
    assert A.method_lineage(G, "m:c", direction="used_by") == [["m:c", "m:b", "m:a"]]
    assert A.method_lineage(G, "m:a", depth=1) == [["m:a", "m:b"]]
    summary = {o.name: (o.wins, o.losses) for o in A.outperforms_summary(G)}
    assert summary == {"Alpha": (1, 1), "Gamma": (1, 0), "Beta": (0, 1)}


def test_cooccurrence_counts_shared_papers(G):
    C = A.cooccurrence_graph(G)
    assert C["m:a"]["m:b"]["weight"] == 2 and C["m:a"]["m:c"]["weight"] == 1
    assert not C.has_edge("m:b", "m:c")
    assert A.top_cooccurring(G, "m:a", 2) == [("m:b", "Beta", 2), ("d:D", "DataSet-1", 2)]


def test_communities_split_two_groups():
    G = new_graph()
    for i in range(4):
        _entity(G, f"m:a{i}", f"A{i}", 4 - i)
        _entity(G, f"m:b{i}", f"B{i}", 4 - i)
    for n in range(3):  # two cliques named together, one weak bridge
        _paper(G, f"pa{n}", [f"m:a{i}" for i in range(4)])
        _paper(G, f"pb{n}", [f"m:b{i}" for i in range(4)])
    _paper(G, "bridge", ["m:a3", "m:b3"])
    found = A.communities(G, seed=1)
    assert sorted(c.members for c in found) == [
        tuple(f"m:a{i}" for i in range(4)),
        tuple(f"m:b{i}" for i in range(4)),
    ]
    assert {c.label for c in found} == {"A0 / A1 / A2", "B0 / B1 / B2"}


def test_trends_rise_and_fall():
    G = new_graph()
    _entity(G, "m:up", "Rising", 4)
    _entity(G, "m:down", "Falling", 4)
    _entity(G, "m:flat", "Steady", 4)
    plan = {2019: ["m:down", "m:down", "m:flat"], 2020: ["m:down", "m:up", "m:flat"],
            2021: ["m:up", "m:flat"], 2022: ["m:up", "m:up", "m:down", "m:flat"]}  # fmt: skip
    n = 0
    for year, keys in plan.items():
        for key in keys:
            n += 1
            _paper(G, f"p{n}", [key, "m:flat"] if key != "m:flat" else [key], year)
    result = A.trends(G, min_papers=3)
    assert result[0].name == "Rising" and result[0].slope > 0
    assert result[-1].name == "Falling" and result[-1].slope < 0
    assert result[0].counts == {2020: 1, 2021: 1, 2022: 2}
    no_years = new_graph()
    _entity(no_years, "m:x", "X", 3)
    _paper(no_years, "q", ["m:x"])
    assert A.trends(no_years) == []


def test_curation_diagnostics(G):
    dups = A.likely_duplicates(G)
    assert [(d.a, d.b) for d in dups] == [("m:a", "m:alp")]
    assert "alp" in dups[0].reason
    assert A.single_paper_entities(G) == ["m:alp", "m:c", "k:acc", "t:y"]  # by name
    assert A.papers_without_entities(G) == ["paper:p4"]


def test_degree_histogram(G):
    hist = A.degree_histogram(G, "Method")
    # a: b, t:x, c (3 neighbours); b: a, c; c: b, a, t:y; alp: none
    assert hist == {0: 1, 2: 1, 3: 2}


def test_load_graph_and_analyze_writes_report_and_plots(example_build, tmp_path):
    import kg
    from kg.analytics.report import write_analysis

    G = kg.load_graph(example_build[0])
    assert isinstance(G, nx.MultiDiGraph) and G.number_of_nodes() > 50
    files = write_analysis(G, tmp_path / "md", "md")
    text = files[0].read_text()
    assert "## Leaderboards" in text and "LIBERO" in text and "GraspVLA" in text
    plots = {p.stem for p in files[1:]}
    assert {"top_entities", "degree_distribution", "communities"} <= plots
    for plot in files[1:]:
        assert plot.read_bytes()[:4] == b"\x89PNG" and plot.stat().st_size > 5000
    data = json.loads(write_analysis(G, tmp_path / "js", "json")[0].read_text())
    assert data["counts"]["nodes"]["Paper"] == 12
    assert data["top_by_support"]["Method"][0]["support"] >= 1
    page = write_analysis(G, tmp_path / "h", "html")[0].read_text()
    assert page.count("data:image/png;base64,") >= 3


def test_analyze_on_the_sample(sample_build, tmp_path):
    from typer.testing import CliRunner

    from kg.cli import app

    result = CliRunner().invoke(
        app, ["analyze", str(sample_build), "--format", "md", "-o", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    text = (tmp_path / "analysis.md").read_text()
    assert "| ImageNet | 5 |" in text  # five abstracts of the sample name ImageNet
    assert (tmp_path / "plots" / "top_entities.png").exists()


def test_communities_plot_is_labelled_by_names_with_whole_numbers():
    from kg.analytics.report import communities_figure

    found = [
        {"label": "Alpha / Beta / Gamma", "size": 5, "members": [], "top": []},
        {"label": "Delta / Epsilon", "size": 2, "members": [], "top": []},
    ]
    fig = communities_figure(found)
    (ax,) = fig.axes
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "Delta / Epsilon",
        "Alpha / Beta / Gamma",
    ]
    ticks = [t for t in ax.get_xticks() if 0 <= t <= 5]
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert communities_figure([]) is None


def test_leaderboard_plot_needs_three_papers_one_value_each_in_one_unit():
    from kg.analytics.report import plotted_leaderboards

    def row(paper, method, value, unit="%"):
        return {"dataset": "D", "metric": "acc", "method": method, "value": value,
                "unit": unit, "paper_id": paper, "result": f"r:{paper}:{value}"}  # fmt: skip

    two_papers = {"dataset": "D", "metric": "acc", "direction": "higher",
                  "rows": [row("p1", "A", 90), row("p1", "B", 80), row("p2", "C", 70)]}  # fmt: skip
    mixed = {"dataset": "E", "metric": "acc", "direction": "higher",
             "rows": [row("p1", "A", 90), row("p1", "A", 88), row("p2", "B", 80),
                      row("p3", "C", 0.75, None), row("p4", "D", 60)]}  # fmt: skip
    ((board, rows),) = plotted_leaderboards([two_papers, mixed])
    assert board["dataset"] == "E"
    assert [(r.paper_id, r.method, r.value) for r in rows] == [
        ("p1", "A", 90),
        ("p2", "B", 80),
        ("p4", "D", 60),
    ]  # best of p1's two values for A; the unitless 0.75 is left out


def test_communities_do_not_depend_on_the_hash_seed(sample_build):
    import subprocess
    import sys

    script = (
        "import json, sys, kg; from kg.analytics import communities; "
        "print(json.dumps([c.label for c in communities(kg.load_graph(sys.argv[1]))]))"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", script, str(sample_build)],
            env={**__import__("os").environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(runs) == 1

"""`kg viz`: the page's data, and the page itself in headless Chromium (Playwright)."""

from __future__ import annotations

import json
import subprocess

import pytest

from kg import load_graph
from kg.graph.model import ENTITY_LABELS
from kg.viz import viz_data
from tests.conftest import shared_path
from tests.exporters.test_browser import ARTIFACTS, BROWSER_DIR, CHROMIUM, _require_tools
from tests.exporters.test_neo4j import NASTY, nasty_graph


def test_viz_data_keeps_the_best_supported_nodes_and_their_evidence(example_build):
    G = load_graph(example_build[0])
    data = viz_data(G, max_nodes=10)
    assert len(data["nodes"]) == 10
    supports = [n["support"] for n in data["nodes"]]
    assert supports == sorted(supports, reverse=True)
    best = max(d.get("support", 0) for _, d in G.nodes(data=True) if d["label"] in ENTITY_LABELS)
    assert supports[0] == best
    keys = [n["id"] for n in data["nodes"]]
    for s, t, rtype, papers in data["edges"]:
        assert G.edges[keys[s], keys[t], rtype]["support"] == papers
    assert len(data["edges"]) == sum(1 for u, v in G.edges() if u in set(keys) and v in set(keys))
    for node in data["nodes"]:
        for ev in node["evidence"]:
            mention = ev["text"][ev["start"] : ev["end"]]
            assert mention and mention.lower() in ev["text"].lower()
            assert ev["paper"] in node["papers"]


def test_viz_data_gives_each_data_set_its_leaderboards_by_the_board_rules(example_build):
    from kg.analytics import boards_of

    G = load_graph(example_build[0])
    boards = boards_of(G)
    data = viz_data(G)
    shown = {n["name"]: n["boards"] for n in data["nodes"] if n["boards"]}
    assert shown and all(n["type"] == "Dataset" for n in data["nodes"] if n["boards"])
    for name, items in shown.items():
        for item in items:
            board = boards[(name, item["metric"])]
            assert [(r["method"], r["value"]) for r in item["rows"]] == [
                (r.method, r.value) for r in board.rows[:5]]  # fmt: skip
            assert item["hidden"] == board.hidden
            assert all(r["text"] and r["own"] in ("own", "baseline", "") for r in item["rows"])


def test_viz_page_escapes_names(tmp_path):
    from kg.viz import write_html

    G = nasty_graph()
    G.nodes["method:nasty-0"]["name"] = "</script><script>alert(1)</script>"
    page = write_html(G, tmp_path / "g.html", title="<b>t</b>").read_text(encoding="utf-8")
    assert "</script><script>alert(1)" not in page
    assert "<title>&lt;b&gt;t&lt;/b&gt;</title>" in page
    assert NASTY[1].replace("\\", "\\\\").replace('"', '\\"') in page  # JSON-encoded


def _browser_script(script: str, page_path, screenshot, **env: str) -> dict:
    """Run ``tests/browser/SCRIPT`` on a kg viz page; return the JSON line it prints."""
    _require_tools()
    proc = subprocess.run(
        ["node", script],
        cwd=BROWSER_DIR,
        env={
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "KG_VIZ_FILE": str(page_path),
            "KG_SCREENSHOT": str(screenshot),
            "CHROMIUM": CHROMIUM,
            **env,
        },
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().split("\n")[-1])  # not splitlines: U+2028


def _open(page_path, search: str, screenshot):
    return _browser_script("viz.mjs", page_path, screenshot, KG_SEARCH=search)


def test_viz_in_chromium_on_the_sample(sample_build):
    from typer.testing import CliRunner

    from kg.cli import app

    ARTIFACTS.mkdir(exist_ok=True)
    page_path = ARTIFACTS / "viz-sample.html"
    result = CliRunner().invoke(
        app, ["viz", str(sample_build), "-o", str(page_path), "--initial-nodes", "5000"]
    )
    assert result.exit_code == 0, result.output
    G = load_graph(sample_build)
    entities = sum(1 for _, d in G.nodes(data=True) if d["label"] in ENTITY_LABELS)

    seen = _open(page_path, "ImageNet", ARTIFACTS / "viz-sample.png")
    assert seen["errors"] == []
    assert seen["dataNodes"] == entities
    assert seen["drawn"] == seen["shownCount"] == entities  # every entity drawn
    metrics = sum(1 for _, d in G.nodes(data=True) if d["label"] == "Metric")
    assert seen["withoutMetrics"] == entities - metrics  # the type filter hides them
    assert seen["matches"][0].startswith("ImageNet (Dataset, 5)")
    assert seen["selected"] == ["ImageNet"]
    assert "named in 5 paper(s)" in seen["details"]
    assert set(seen["marks"]) == {"ImageNet"} and len(seen["marks"]) == 5
    # each evidence line is a sentence of the sample that names ImageNet
    corpus = shared_path("corpora", "daily_papers.txt").read_text(encoding="utf-8")
    sentences = [line for line in seen["details"].splitlines() if "ImageNet" in line]
    for line in sentences[:5]:
        assert line in corpus  # the paper it is from is on a line of its own
    assert "sha1:" not in seen["details"]  # papers are named by their first words


def test_viz_shows_top_n_first(example_build, tmp_path):
    from kg.viz import write_html

    G = load_graph(example_build[0])
    page = write_html(G, tmp_path / "g.html", show=20)
    seen = _open(page, "LIBERO", tmp_path / "g.png")
    assert seen["errors"] == []
    assert seen["drawn"] == seen["shownCount"] == 20  # before the search
    assert seen["selected"] == ["LIBERO"]  # search finds it, and it is drawn
    assert (
        "GraspVLA is evaluated on the CALVIN benchmark and on the LIBERO suite." in seen["details"]
    )


def test_viz_papers_without_titles_show_their_first_words(example_build):
    G = load_graph(example_build[0])
    data = viz_data(G)
    texts = {d["paper_id"]: d["text"] for _, d in G.nodes(data=True) if d["label"] == "Paper"}
    assert data["papers"]
    for pid, info in data["papers"].items():
        assert pid.startswith("sha1:") and not info["title"]  # text input: no ids, no titles
        words = info["label"].removesuffix(" …").split()
        assert len(words) == 8 and texts[pid].split()[:8] == words


def _first_view(page_path, screenshot) -> dict:
    return _browser_script("viz_first_view.mjs", page_path, screenshot)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["example", "sample", "2000"])
def test_viz_first_view_is_readable(which, request):
    """Before any click: the 30 best-supported nodes are drawn with labels of at least
    10 px on screen, inside the view, none overlapping; their relations are drawn."""
    from kg.viz import LABELLED, write_html

    out = {
        "example": lambda: request.getfixturevalue("example_build")[0],
        "sample": lambda: request.getfixturevalue("sample_build"),
        "2000": lambda: request.getfixturevalue("build_2000"),
    }[which]()
    ARTIFACTS.mkdir(exist_ok=True)
    page = write_html(load_graph(out), ARTIFACTS / f"viz-first-view-{which}.html")
    seen = _first_view(page, ARTIFACTS / f"viz-first-view-{which}.png")
    assert seen["errors"] == []
    top = seen["top"]
    assert len(top) == LABELLED == 30
    for node in top:
        assert node["drawn"] and node["labelDrawn"], node["name"]
        assert node["fontPx"] >= 10 and node["labelOnScreen"], node
    assert seen["overlaps"] == []
    assert seen["topEdges"] > 0 and seen["edgesDrawn"] >= seen["topEdges"]
    assert min(seen["edgeWidthPx"]) >= 1 and min(seen["edgeOpacity"]) >= 0.5
    if which == "example":
        assert seen["allOverlaps"] == 0  # no label drawn overlaps another
    assert seen["labelsOnScreen"] >= LABELLED


HOSTILE = [
    "</script><script>window.__pwned = 1; alert(1)</script>",
    "<!--<script>",
    '<img src=x onerror="window.__pwned = 2">',
    "Evil\u202eteN",
    "]]></x>&amp;\u2028\u2029",
]


def hostile_graph():
    """The nasty graph with names, a title and a link made to break out of the page."""
    G = nasty_graph()
    methods = sorted(k for k, d in G.nodes(data=True) if d["label"] == "Method")
    for key, name in zip(methods, HOSTILE, strict=True):
        G.nodes[key]["name"] = name
        G.nodes[key]["aliases"] = [name]
    paper = next(k for k, d in G.nodes(data=True) if d["label"] == "Paper")
    G.nodes[paper]["title"] = "<!--<script>"
    G.nodes[paper]["url"] = "javascript:window.__pwned = 3"
    return G


def test_viz_page_with_hostile_data_draws_and_runs_nothing(tmp_path):
    from kg.viz import write_html

    page_path = write_html(hostile_graph(), tmp_path / "hostile.html", title="<!--")
    text = page_path.read_text(encoding="utf-8")
    script = text[text.index("const DATA") :]
    assert "<!--" not in script.split("</script>")[0] and "javascript:" not in text
    ARTIFACTS.mkdir(exist_ok=True)
    seen = _browser_script("viz_hostile.mjs", page_path, ARTIFACTS / "viz-hostile.png")
    assert seen["errors"] == [] and seen["dialogs"] == [] and seen["pwned"] == 0
    assert seen["drawn"] == len(HOSTILE)
    assert sorted(seen["names"]) == sorted(h.replace("\u202e", "") for h in HOSTILE)
    assert "EvilteN" in seen["names"]  # bidirectional controls stripped: shown as stored
    assert seen["hrefs"] == []  # a javascript: URL is no link
    assert seen["title"] == "<!--"

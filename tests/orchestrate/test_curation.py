"""Curation files: every entry kind across extractions.jsonl, Turtle, LadybugDB and a real
Neo4j; entries survive --add-to and kg update; stale entries are reported; kg curate
checks an entry against a build before adding it."""

from __future__ import annotations

import json
import re

import pytest
from rdflib import Graph, Literal
from typer.testing import CliRunner

from kg.cli import app
from kg.errors import KgError
from kg.exporters.jsonio import read_build_source
from kg.exporters.neo4j import load_neo4j
from kg.exporters.vocab import KGO
from kg.orchestrate import ResolveOptions, Target, build
from kg.query import LadybugEngine
from kg.resolve.curation import read_curation

runner = CliRunner()

TEXTS = [
    "We adapt large models with Low-Rank Adaptation (LoRA) and report 71.0% accuracy on ImageNet.",
    "Our method extends Low-Rank Adaptation (LoRA) to vision transformers on ImageNet and COCO.",
    "We fine-tune GPT-2 with LoRA and compare it with full fine-tuning on CIFAR-100.",
    "We study semantic segmentation on Cityscapes, where SegFormer reaches 80.1 mIoU.",
    "SegFormer outperforms GPT-2 on semantic segmentation of COCO images.",
]

CURATION = """\
[[drop]]
name = "COCO"
type = "Dataset"
why = "a test: no entity"

[[retype]]
key = "task:semantic-segmentation"
to = "Method"

[[rename]]
key = "dataset:imagenet"
to = "ImageNet-1k"

[[alias]]
key = "dataset:imagenet"
names = ["CIFAR-100"]

[[merge]]
key = "method:gpt-2"
into = "method:segformer"

[[split]]
key = "method:low-rank-adaptation"
names = ["LoRA"]

[[drop]]
key = "method:nothing-here"
"""

GONE = {"dataset:coco", "task:semantic-segmentation", "dataset:cifar-100", "method:gpt-2"}


def _papers(path, texts, start=0):
    rows = [{"id": f"p{start + i}", "title": f"Paper {start + i}", "text": t}
            for i, t in enumerate(texts)]  # fmt: skip
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def papers_build(tmp_path_factory, name: str):
    """A build of the curation tests' papers, no curation file: what the tests of other
    commands read."""
    base = tmp_path_factory.mktemp(name)
    out = base / "out"
    build([_papers(base / "papers.jsonl", TEXTS)], out)
    return out


@pytest.fixture(scope="module")
def curated(tmp_path_factory):
    """A build of five abstracts without and with the curation file."""
    base = tmp_path_factory.mktemp("curation")
    papers = _papers(base / "papers.jsonl", TEXTS)
    (base / "curation.toml").write_text(CURATION)
    plain = build([papers], base / "plain")
    summary = build([papers], base / "out", resolve=ResolveOptions(curation=base / "curation.toml"))
    return base, plain, summary


def _by_paper(out) -> dict[str, set[str]]:
    return {rec["id"]: {e["id"] for e in rec["entities"]}
            for rec in map(json.loads, open(out / "extractions.jsonl"))}  # fmt: skip


def test_curation_every_kind_in_extractions(curated):
    base, _, summary = curated
    plain = _by_paper(base / "plain")
    assert GONE <= set().union(*plain.values())  # each entry has something to change
    papers = _by_paper(base / "out")
    everything = set().union(*papers.values())
    assert not GONE & everything
    assert "method:semantic-segmentation" in papers["p3"]  # retyped
    assert "dataset:imagenet" in papers["p2"]  # CIFAR-100 is an alias of it now
    assert "method:segformer" in papers["p2"]  # GPT-2 merged into SegFormer
    assert papers["p2"] >= {"method:lora"} and "method:low-rank-adaptation" in papers["p0"]
    records = [json.loads(line) for line in open(base / "out" / "extractions.jsonl")]
    ents = {e["id"]: e for rec in records for e in rec["entities"]}
    assert ents["method:semantic-segmentation"]["type"] == "Method"
    relations = [r for rec in records for r in rec["relations"]]
    assert not [r for r in relations if r["type"] == "APPLIED_TO"
                and r["tail"] == "method:semantic-segmentation"]  # fmt: skip
    assert any("1 matched nothing" in n for n in summary.notes)


def test_curation_report_and_log_say_what_changed_and_what_matched_nothing(curated):
    base, _, _ = curated
    report = (base / "out" / "report.md").read_text()
    assert "## Curation" in report and "6 of 7 entries" in report
    assert "method:nothing-here | matched nothing in this build" in report
    log = json.loads((base / "out" / "tables" / "curation.json").read_text())
    assert GONE <= set(log["removed"])
    assert re.search(r"Dataset 'COCO' \| dropped from \d+ papers? \|", report)


def test_curation_in_turtle_and_ladybug(curated):
    base, _, _ = curated
    g = Graph().parse(base / "out" / "graph.ttl")
    keys = {str(o) for o in g.objects(None, KGO.key)}
    assert not GONE & keys and "method:semantic-segmentation" in keys and "method:lora" in keys
    assert (None, None, Literal("ImageNet-1k")) in g
    engine = LadybugEngine(base / "out")
    rows = engine.run("MATCH (e:Dataset) RETURN e.key, e.name, e.support ORDER BY e.key").rows
    assert ["dataset:imagenet", "ImageNet-1k", 3] in [list(r) for r in rows]
    assert "dataset:coco" not in {r[0] for r in rows}
    merged = engine.run("MATCH (m:Method {key: 'method:segformer'}) RETURN m.support").rows
    assert merged[0][0] == 3


def test_curation_reaches_neo4j_on_the_next_load(curated, empty_neo4j, neo4j_settings):
    base, plain, _ = curated
    load_neo4j(read_build_source(base / "plain"), empty_neo4j)
    keys = {r["k"] for r in empty_neo4j.execute_query("MATCH (n) RETURN n.key AS k").records}
    assert GONE <= keys
    result = runner.invoke(app, ["load", "neo4j", str(base / "out"), "--replace",
                                 "--uri", neo4j_settings.uri,
                                 "--password", neo4j_settings.password])  # fmt: skip
    assert result.exit_code == 0, result.output
    records = empty_neo4j.execute_query(
        "MATCH (n) WHERE n:Method OR n:Task OR n:Dataset OR n:Metric "
        "RETURN n.key AS k, n.name AS name, n.support AS s"
    ).records
    now = {r["k"]: (r["name"], r["s"]) for r in records}
    assert not GONE & set(now)
    assert now["dataset:imagenet"] == ("ImageNet-1k", 3)
    assert now["method:segformer"][1] == 3 and "method:semantic-segmentation" in now


def test_curation_survives_add_to(curated, tmp_path):
    import shutil

    base, _, _ = curated
    out = tmp_path / "out"
    shutil.copytree(base / "out", out)
    more = _papers(tmp_path / "more.jsonl", ["We evaluate GPT-2 and SegFormer on COCO."], 10)
    summary = build([more], Target(out, add_to=True))  # no curation named: the build's own
    assert summary.papers == 6
    papers = _by_paper(out)
    assert papers["p10"] == {"method:segformer"}
    manifest = json.loads((out / "kg-build.json").read_text())
    kept = manifest["pipeline"]["curation"]
    assert kept["path"] == str((base / "curation.toml").resolve()) and len(kept["digest"]) == 64


def test_curation_file_mistakes_name_their_line(tmp_path):
    bad = tmp_path / "c.toml"
    bad.write_text('[[drop]]\nkey = "method:x"\n\n[[retype]]\nkey = "task:y"\nto = "Model"\n')
    with pytest.raises(KgError, match=r"c.toml:4: \[\[retype\]\]: to must be one of"):
        read_curation(bad)
    bad.write_text('[[delete]]\nkey = "method:x"\n')
    with pytest.raises(KgError, match="unknown section 'delete'"):
        read_curation(bad)
    bad.write_text('[[drop]]\nname = "x"\n')
    with pytest.raises(KgError, match="say which entity"):
        read_curation(bad)


def test_kg_curate_checks_entries_against_a_build(curated, tmp_path):
    base, _, _ = curated
    file = tmp_path / "mine.toml"
    db = str(base / "plain")
    ok = runner.invoke(app, ["curate", "drop", db, "COCO", "-o", str(file),
                             "--why", "not wanted"])  # fmt: skip
    assert ok.exit_code == 0, ok.output
    ok = runner.invoke(app, ["curate", "merge", db, "GPT-2", "SegFormer",
                             "-o", str(file)])  # fmt: skip
    assert ok.exit_code == 0, ok.output
    entries = read_curation(file).entries
    assert [(e.kind, e.key, e.into) for e in entries] == [
        ("merge", "method:gpt-2", "method:segformer"), ("drop", "dataset:coco", None)]  # fmt: skip
    bad = runner.invoke(app, ["curate", "drop", db, "no such thing", "-o", str(file)])
    assert bad.exit_code != 0 and "no entity" in bad.output
    bad = runner.invoke(app, ["curate", "retype", db, "COCO", "Model", "-o", str(file)])
    assert bad.exit_code != 0
    bad = runner.invoke(app, ["curate", "split", db, "LoRA", "QLoRA", "-o", str(file)])
    assert bad.exit_code != 0 and "has no name 'QLoRA'" in bad.output
    no_file = runner.invoke(app, ["curate", "drop", db, "COCO"])
    assert no_file.exit_code != 0 and "-o/--out" in no_file.output
    assert len(read_curation(file).entries) == 2  # refused entries added nothing


def test_curation_survives_kg_update(curated, tmp_path):
    import shutil

    from kg.ingest.sources import ArxivOai, PoliteClient, Politeness
    from kg.orchestrate.update import update
    from tests.sources_server import Answer, SourceServer, oai_page, oai_record, paper

    base, _, _ = curated
    out = tmp_path / "out"
    shutil.copytree(base / "out", out)
    records = [oai_record(paper(2))]  # a new paper on ImageNet
    with SourceServer(lambda path, params: Answer(oai_page(records, ""))) as server:
        with PoliteClient(Politeness(delay=0)) as client:
            summary = update(
                out,
                lambda since, until: ArxivOai(("cs.CL",), since, until, base_url=server.url),
                client,
                date_from="2026-11-01",
                date_until="2026-12-01",
            )
    assert summary.new == ["2611.00002"]
    papers = _by_paper(out)
    assert "dataset:imagenet" in papers["2611.00002"] and not GONE & set().union(*papers.values())
    rows = LadybugEngine(out).run("MATCH (e:Dataset {key: 'dataset:imagenet'}) "
                                  "RETURN e.name, e.support").rows  # fmt: skip
    assert [list(r) for r in rows] == [["ImageNet-1k", 4]]


def test_curation_shows_in_the_view_analysis_and_saved_queries(curated):
    from kg import load_graph
    from kg.analytics.report import analysis
    from kg.query import get_query
    from kg.viz import viz_data

    base, _, _ = curated
    G = load_graph(base / "out")
    shown = {n["id"] for n in viz_data(G)["nodes"]}
    assert not GONE & shown and "method:semantic-segmentation" in shown
    text = json.dumps(analysis(G), default=str)
    assert "COCO" not in text and "ImageNet-1k" in text
    query = get_query("top-entities")
    rows = (
        LadybugEngine(base / "out")
        .run(query.text_for("ladybug"), query.bind({"type": "Dataset", "limit": 10}))
        .rows
    )
    assert rows[0][0] == "ImageNet-1k" and "COCO" not in {r[0] for r in rows}

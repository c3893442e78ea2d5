"""kg update: the shared sample plus fetched days from a real local OAI-PMH server adds
exactly the new papers, a second update adds nothing, a changed paper is replaced, and
Neo4j after the incremental loads holds what a fresh load of the same build holds."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from kg.exporters.jsonio import read_build_source
from kg.exporters.neo4j import database_counts, load_neo4j
from kg.ingest.sources import ArxivOai, PoliteClient, Politeness
from kg.orchestrate import build
from kg.orchestrate.update import update, updates_dir
from tests.sources_server import (
    Answer,
    SourceServer,
    daily_papers,
    oai_error,
    oai_page,
    oai_record,
    paper,
)


class Days:
    """An OAI-PMH server whose records change as the test moves on."""

    def __init__(self) -> None:
        self.records: list[str] = []

    def __call__(self, path, params):
        if not self.records:
            return Answer(oai_error("noRecordsMatch", "nothing in that range"))
        return Answer(oai_page(self.records, ""))


def _relationships(driver) -> set[tuple]:
    records, _, _ = driver.execute_query(
        "MATCH (a)-[r]->(b) RETURN type(r) AS t, a.key AS u, b.key AS v, r.support AS s"
    )
    return {(r["t"], r["u"], r["v"], r["s"]) for r in records}


def _entities(driver) -> set[tuple]:
    records, _, _ = driver.execute_query(
        "MATCH (n) WHERE n:Method OR n:Task OR n:Dataset OR n:Metric "
        "RETURN n.key AS k, n.support AS s, n.mention_count AS m"
    )
    return {(r["k"], r["s"], r["m"]) for r in records}


def _boards(driver) -> set[tuple]:
    from kg.graph.model import BOARD_PROPERTIES

    fields = ", ".join(f"r.{p} AS {p}" for p in BOARD_PROPERTIES)
    records, _, _ = driver.execute_query(f"MATCH (r:Result) RETURN r.key AS key, {fields}")
    return {(r["key"], *(r[p] for p in BOARD_PROPERTIES)) for r in records}


def test_update_adds_new_papers_once_and_loads_neo4j_incrementally(
    sample_build, tmp_path, empty_neo4j, neo4j_settings
):
    out = tmp_path / "ml"
    shutil.copytree(sample_build, out)
    load_neo4j(read_build_source(out), empty_neo4j)
    days = Days()
    days.records = [oai_record(paper(n)) for n in (1, 2, 3)]
    days.records.append(oai_record(paper(4, category="cs.CV")))  # not asked for
    runner = CliRunner()
    from kg.cli import app

    with SourceServer(days) as server:
        args = ["update", str(out), "--category", "cs.CL", "--base-url", server.url,
                "--delay", "0", "--until", "2026-11-30", "--neo4j",
                "--uri", neo4j_settings.uri, "--password", neo4j_settings.password]  # fmt: skip
        first = runner.invoke(app, [*args, "--from", "2026-11-29"])
        assert first.exit_code == 0, first.output
        assert "added 3 papers, replaced 0" in first.output
        for n in (1, 2, 3):
            assert f"added    2611.{n:05d}" in first.output
        manifest = json.loads((out / "kg-build.json").read_text())
        assert [(u["from"], u["until"], u["new"]) for u in manifest["updates"]] == [
            ("2026-11-29", "2026-11-30", ["2611.00001", "2611.00002", "2611.00003"])
        ]
        assert (updates_dir(out) / "arxiv-2026-11-29-2026-11-30.jsonl").exists()
        papers = {k for k, _ in read_build_source(out).nodes("Paper")}
        assert len(papers) == 123 and "paper:2611.00002" in papers

        # at once again: the same records, nothing new, the build untouched
        before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
        second = runner.invoke(app, args)  # no --from: the last update's last date
        assert second.exit_code == 0, second.output
        assert "no new or changed papers" in second.output
        assert server.seen[-1].params["from"] == "2026-11-30"
        assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before

        # a day later: a new version of paper 2 and one new paper
        days.records = [oai_record(paper(2, tweak=" A second version adds ablations.")),
                        oai_record(paper(5))]  # fmt: skip
        with PoliteClient(Politeness(delay=0)) as client:
            summary = update(
                out,
                lambda since, until: ArxivOai(("cs.CL",), since, until, base_url=server.url),
                client,
                date_until="2026-12-01",
                neo4j_driver=empty_neo4j,
            )
    assert summary.new == ["2611.00005"] and summary.replaced == ["2611.00002"]
    assert summary.date_from == "2026-11-30" and summary.build.unchanged == 0
    texts = {d["paper_id"]: d["text"] for _, d in read_build_source(out).nodes("Paper")}
    assert texts["2611.00002"].endswith("A second version adds ablations.")
    assert len(texts) == 124
    manifest = json.loads((out / "kg-build.json").read_text())
    assert [u["until"] for u in manifest["updates"]] == ["2026-11-30", "2026-12-01"]

    incremental = (database_counts(empty_neo4j), _relationships(empty_neo4j),
                   _entities(empty_neo4j), _boards(empty_neo4j))  # fmt: skip
    empty_neo4j.execute_query("MATCH (n) DETACH DELETE n")
    load_neo4j(read_build_source(out), empty_neo4j)
    fresh = (database_counts(empty_neo4j), _relationships(empty_neo4j), _entities(empty_neo4j),
             _boards(empty_neo4j))  # fmt: skip
    assert incremental[0] == fresh[0]
    assert incremental[1] == fresh[1]
    assert incremental[2] == fresh[2]
    assert incremental[3] == fresh[3]  # the older papers' leaderboards too


def test_update_needs_a_first_date_and_a_build(tmp_path, example_build):
    out = tmp_path / "ex"
    shutil.copytree(example_build[0], out)
    with PoliteClient(Politeness(delay=0)) as client:
        with pytest.raises(Exception, match="--from"):
            update(out, lambda s, u: ArxivOai((), s, u, base_url="http://127.0.0.1:9"), client)
        with pytest.raises(Exception, match="not a kg build"):
            update(tmp_path / "nothing", lambda s, u: ArxivOai((), s, u), client)


def test_hf_daily_upvotes_reach_the_paper_nodes(tmp_path):
    from kg.ingest.sources import HfDaily, fetch_to_file

    papers = [paper(n) for n in (1, 2)]
    body = daily_papers(papers, [41, 7])
    with SourceServer(lambda path, params: Answer(body)) as server:
        with PoliteClient(Politeness(delay=0)) as client:
            fetch_to_file(HfDaily("2026-11-30", base_url=server.url), tmp_path / "hf.jsonl", client)
    out = tmp_path / "out"
    build([tmp_path / "hf.jsonl"], out)
    votes = {d["paper_id"]: d.get("upvotes") for _, d in read_build_source(out).nodes("Paper")}
    assert votes == {"2611.00001": 41, "2611.00002": 7}
    ttl = (out / "graph.ttl").read_text(encoding="utf-8")
    assert "kgo:upvotes 41" in ttl or "upvotes> 41" in ttl
    from kg.exporters.ladybug import run_query

    _, rows = run_query(out, "MATCH (p:Paper) RETURN p.paper_id, p.upvotes ORDER BY p.paper_id")
    assert rows == [["2611.00001", 41], ["2611.00002", 7]]

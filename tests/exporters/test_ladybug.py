"""The LadybugDB store under its memory caps: a pool too small fails naming the table or
grows and says so, texts and evidence left out of big stores, relationship tables kept
forward only, each said in the report."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from kg.errors import KgError
from kg.exporters.ladybug_options import LadybugOptions
from kg.exporters.registry import ExportOptions
from kg.graph.model import EDGE_ENDS
from kg.query import LadybugEngine, list_queries, run_saved
from tests.conftest import EXAMPLES
from tests.query.test_queries import (
    _example_params,
)


def _three_example_papers(tmp_path: Path) -> Path:
    """The first three example abstracts, written as an input file in ``tmp_path``."""
    papers = tmp_path / "in.txt"
    papers.write_text("\n\n".join(EXAMPLES.read_text().split("\n\n")[:3]), encoding="utf-8")
    return papers


_METHOD_MENTIONS = (
    "MATCH (p:Paper)-[r:MENTIONS]->(e:Method) "
    "RETURN p.key, e.key, r.support, r.evidence ORDER BY p.key, e.key"
)


def test_a_store_too_big_for_its_buffer_pool_fails_naming_the_table(sample_build, tmp_path):
    """When LadybugDB runs out of its write buffer pool, the error says which table, how
    big its bucket was and which settings to change, instead of LadybugDB's bare message."""
    import kg.exporters.ladybug as ladybug_export
    from kg.errors import ExportError
    from kg.graph.store import GraphTables

    with pytest.raises(ExportError) as err:
        ladybug_export.write_database(
            GraphTables(sample_build / "tables"), tmp_path / "s.lbdb", pool=8 * 2**20,
            pool_max=8 * 2**20,
        )  # fmt: skip
    message = str(err.value)
    assert re.search(r"could not copy \w+ .*MB bucket, with a 8 MB buffer pool", message)
    assert "buffer pool is full" in message and "--ladybug-memory-max-mb" in message


def test_a_store_too_big_for_its_buffer_pool_grows_it_and_says_so(tmp_path):
    """A COPY that finds the write buffer pool full is taken up again with a pool twice as
    big (up to --ladybug-memory-max-mb): the store then holds what a roomy pool's holds,
    and the report says how the pool grew."""
    from kg.orchestrate import build

    papers = _three_example_papers(tmp_path)
    exporters = ("jsonl", "ladybug", "report")
    build([papers], tmp_path / "roomy", export=ExportOptions(outputs=exporters))
    small = ExportOptions(ladybug=LadybugOptions(memory_mb=8))
    summary = build([papers], tmp_path / "grown", export=replace(small, outputs=exporters))
    grown = [n for n in summary.notes if "buffer pool grew" in n]
    assert grown and re.search(r"grew from 8 to 16 MB for \w+", grown[0])
    assert grown[0] in (tmp_path / "grown" / "report.md").read_text(encoding="utf-8")
    rows = LadybugEngine(tmp_path / "grown").run(_METHOD_MENTIONS).rows
    assert rows and rows == LadybugEngine(tmp_path / "roomy").run(_METHOD_MENTIONS).rows


def test_the_build_report_names_forward_only_tables(tmp_path):
    """A build that stores relationship tables forward only says so in its report, since
    undirected patterns over them (path-between) are refused; a small build says nothing."""
    from kg.orchestrate import build

    papers = _three_example_papers(tmp_path)
    exporters = ("jsonl", "ladybug", "report")
    plain = build([papers], tmp_path / "plain", export=ExportOptions(outputs=exporters))
    assert not [n for n in plain.notes if "forward only" in n]
    fwd = ExportOptions(ladybug=LadybugOptions(forward_only_above_mb=0))
    summary = build([papers], tmp_path / "fwd", export=replace(fwd, outputs=exporters))
    (note,) = [n for n in summary.notes if "forward only" in n]
    assert "MENTIONS" in note and "path-between" in note
    assert note in (tmp_path / "fwd" / "report.md").read_text(encoding="utf-8")
    store = LadybugEngine(tmp_path / "fwd")
    info = store.run("CALL table_info('MENTIONS') RETURN storage_direction LIMIT 1")
    assert info.rows == [("fwd",)]


def test_a_store_of_many_papers_leaves_their_texts_out_and_says_so(tmp_path):
    """Above --ladybug-text-max-papers papers the store leaves Paper.text out (the texts
    would set its memory) and the report says where the texts are; below, they are kept."""
    from kg.orchestrate import build

    papers = _three_example_papers(tmp_path)
    exporters = ("jsonl", "ladybug", "report")
    query = "MATCH (p:Paper) RETURN p.paper_id, p.text ORDER BY p.paper_id"
    plain = build([papers], tmp_path / "plain", export=ExportOptions(outputs=exporters))
    assert not [n for n in plain.notes if "Paper.text" in n]
    kept = LadybugEngine(tmp_path / "plain").run(query).rows
    n = len(kept)
    assert n >= 2 and all(text for _, text in kept)
    few = ExportOptions(ladybug=LadybugOptions(text_max_papers=n - 1))
    summary = build([papers], tmp_path / "big", export=replace(few, outputs=exporters))
    (note,) = [n for n in summary.notes if "Paper.text" in n]
    assert f"{n} papers, more than {n - 1}" in note and "extractions.jsonl" in note
    assert note in (tmp_path / "big" / "report.md").read_text(encoding="utf-8")
    rows = LadybugEngine(tmp_path / "big").run(query).rows
    assert [pid for pid, _ in rows] == [pid for pid, _ in kept]
    assert all(text is None for _, text in rows)


def test_a_store_of_many_papers_can_leave_the_evidence_out_and_says_so(tmp_path):
    """With --ladybug-evidence-max-papers below the build's papers the store's relationships
    have no evidence and the report says where it is; unset (the default), they keep it."""
    import kg.exporters.ladybug as ladybug_export
    from kg.orchestrate import build

    papers = _three_example_papers(tmp_path)
    exporters = ("jsonl", "ladybug", "report")
    assert ladybug_export.EVIDENCE_MAX_PAPERS is None
    plain = build([papers], tmp_path / "plain", export=ExportOptions(outputs=exporters))
    assert not [n for n in plain.notes if "evidence" in n]
    kept = LadybugEngine(tmp_path / "plain").run(_METHOD_MENTIONS).rows
    assert len(kept) >= 3 and all(evidence for *_, evidence in kept)
    few = ExportOptions(ladybug=LadybugOptions(evidence_max_papers=plain.papers - 1))
    summary = build([papers], tmp_path / "big", export=replace(few, outputs=exporters))
    (note,) = [n for n in summary.notes if "evidence" in n]
    assert f"{plain.papers} papers, more than {plain.papers - 1}" in note
    assert note in (tmp_path / "big" / "report.md").read_text(encoding="utf-8")
    rows = LadybugEngine(tmp_path / "big").run(_METHOD_MENTIONS).rows
    assert [row[:3] for row in rows] == [row[:3] for row in kept]
    assert all(evidence is None for *_, evidence in rows)


@pytest.mark.slow
def test_a_forward_only_store_in_buckets_gives_the_same_answers(
    sample_build, tmp_path, monkeypatch
):
    """The way a big build writes its store (relationship tables forward only, nodes and
    relationships copied in many buckets) changes no saved query's answer on the sample,
    except path-between, whose undirected pattern LadybugDB refuses with a hint."""
    import kg.exporters.ladybug as ladybug_export
    from kg.graph.store import GraphTables

    monkeypatch.setattr(ladybug_export, "BUCKET_NODES", 7)
    monkeypatch.setattr(ladybug_export, "_MEMORY_ROWS", 50)
    store = tmp_path / "fwd.lbdb"
    written = ladybug_export.write_database(
        GraphTables(sample_build / "tables"), store, forward_only_above=0
    )
    assert written.counts["Paper"] == 120
    (note,) = written.notes  # the pool did not grow; every table is kept forward only
    assert note.startswith("graph.lbdb keeps ") and "MENTIONS" in note and "forward only" in note
    full, forward = LadybugEngine(sample_build), LadybugEngine(store)
    ddl = forward.run("CALL show_tables() RETURN name").rows
    assert ("MENTIONS",) in ddl
    for rtype in EDGE_ENDS:  # each table was created forward only, by the size rule
        info = forward.run(f"CALL table_info('{rtype}') RETURN storage_direction LIMIT 1")
        assert info.rows == [("fwd",)], rtype
    # a build of ordinary size keeps both directions
    info = full.run("CALL table_info('MENTIONS') RETURN storage_direction LIMIT 1")
    assert info.rows == [("both",)]
    params = _example_params(True)
    compared = 0
    for q in list_queries():
        given = params.get(q.name, {})
        if q.name == "path-between":
            with pytest.raises(KgError, match="forward only: give the pattern a direction"):
                run_saved(forward, q.name, given)
            continue
        want, got = run_saved(full, q.name, given), run_saved(forward, q.name, given)
        assert got.columns == want.columns and got.rows == want.rows, q.name
        compared += bool(want.rows)
    assert compared >= 12
    # the relationships really are stored forward only, and still match from the entity side
    (n,) = forward.run(
        "MATCH (p:Paper)-[:MENTIONS]->(e:Dataset {name: 'ImageNet'}) RETURN count(p)"
    ).rows[0]
    assert n > 1
    with pytest.raises(KgError, match="storage type 'fwd'"):
        forward.run("MATCH (p:Paper)-[:MENTIONS]-(e:Dataset) RETURN count(*)")
    full.run("MATCH (p:Paper)-[:MENTIONS]-(e:Dataset) RETURN count(*)")

"""Builds give the same answers however they run: -j 1, -j 2, a local Dask cluster, an
``--add-to`` build in two halves, and a killed build resumed. Real pipeline, real files."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kg.exporters.jsonio import read_build_graph, read_graph_json
from kg.orchestrate import ExportOptions, ExtractOptions, Target, build
from tests.conftest import ROOT, shared_path

pytestmark = pytest.mark.slow  # builds hundreds of abstracts per module

N_PAPERS = 240
ANSWERS = ("jsonl", "json")
"""The outputs :func:`_answers` reads: the builds compared write only them."""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The first N_PAPERS abstracts of the shared arXiv corpus, as JSONL."""
    src = shared_path("corpora", "ml_abstracts.jsonl.gz")
    path = tmp_path_factory.mktemp("scale") / "papers.jsonl"
    with gzip.open(src, "rt", encoding="utf-8") as fh, open(path, "w", encoding="utf-8") as out:
        for i, line in enumerate(fh):
            if i >= N_PAPERS:
                break
            out.write(line)
    return path


def _halves(corpus: Path, tmp: Path) -> tuple[Path, Path]:
    lines = corpus.read_text(encoding="utf-8").splitlines(keepends=True)
    first, second = tmp / "first.jsonl", tmp / "second.jsonl"
    first.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    second.write_text("".join(lines[len(lines) // 2 :]), encoding="utf-8")
    return first, second


def _answers(out: Path):
    """What must not depend on how a build ran: extractions sorted by paper id (the
    source line aside), and the node and relationship sets with their properties."""
    records = []
    for line in (out / "extractions.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        rec.pop("source")
        records.append(rec)
    records.sort(key=lambda r: r["id"])
    G = read_graph_json(out / "graph.json")
    nodes = {n: {k: v for k, v in d.items() if k != "source"} for n, d in G.nodes(data=True)}
    edges = {(u, v, k): d for u, v, k, d in G.edges(keys=True, data=True)}
    return records, nodes, edges


@pytest.fixture(scope="module")
def reference(corpus, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "out"
    build([corpus], out, extract=ExtractOptions(n_process=1), export=ExportOptions(outputs=ANSWERS))
    return out


def _same(a: Path, b: Path) -> None:
    ra, na, ea = _answers(a)
    rb, nb, eb = _answers(b)
    assert [r["id"] for r in ra] == [r["id"] for r in rb]
    assert ra == rb
    assert set(na) == set(nb) and na == nb
    assert set(ea) == set(eb) and ea == eb


def test_scale_two_workers_give_the_same_build(corpus, reference, tmp_path):
    build(
        [corpus],
        tmp_path / "j2",
        extract=ExtractOptions(n_process=2),
        export=ExportOptions(outputs=ANSWERS),
    )
    _same(reference, tmp_path / "j2")


def test_scale_a_local_dask_cluster_gives_the_same_build(corpus, reference, tmp_path):
    summary = build(
        [corpus],
        tmp_path / "dask",
        extract=ExtractOptions(scheduler="local:2"),
        export=ExportOptions(outputs=ANSWERS),
    )
    assert summary.papers == N_PAPERS
    _same(reference, tmp_path / "dask")


def test_scale_add_to_in_two_halves_gives_the_same_build(corpus, reference, tmp_path):
    first, second = _halves(corpus, tmp_path)
    out = tmp_path / "out"
    build([first], out, export=ExportOptions(outputs=ANSWERS))
    keys_before = set(read_graph_json(out / "graph.json"))
    summary = build([second], Target(out, add_to=True), export=ExportOptions(outputs=ANSWERS))
    assert summary.papers == N_PAPERS and summary.unchanged == 0 and summary.replaced == 0
    _same(reference, out)
    manifest = json.loads((out / "kg-build.json").read_text())
    assert manifest["inputs"] == [str(first), str(second)]
    # deterministic keys: most entity keys of the first half survive the second
    assert len(keys_before - set(read_graph_json(out / "graph.json"))) < 0.05 * len(keys_before)


def test_scale_add_to_extracts_only_new_and_changed_papers(corpus, tmp_path):
    lines = corpus.read_text(encoding="utf-8").splitlines()[:6]
    first = tmp_path / "a.jsonl"
    first.write_text("\n".join(lines[:4]) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    build([first], out)
    changed = json.loads(lines[1])
    changed["abstract"] = "We propose FooNet, which improves BLEU on WMT14 by 2 points. " * 3
    again = tmp_path / "b.jsonl"
    again.write_text(
        "\n".join([lines[0], json.dumps(changed), lines[4], lines[5]]) + "\n", encoding="utf-8"
    )
    summary = build([again], Target(out, add_to=True))
    assert (summary.unchanged, summary.replaced, summary.papers) == (1, 1, 6)
    records = {
        r["id"]: r for r in map(json.loads, (out / "extractions.jsonl").read_text().splitlines())
    }
    assert len(records) == 6 and "FooNet" in records[changed["id"]]["text"]
    assert "1 had a changed abstract and were replaced" in (out / "report.md").read_text()
    again_summary = build([again], Target(out, add_to=True))  # nothing new: nothing extracted
    assert (again_summary.unchanged, again_summary.replaced) == (4, 0)


def test_scale_add_to_refuses_other_settings_or_a_missing_build(corpus, tmp_path):
    from kg.errors import BuildError

    with pytest.raises(BuildError, match="no kg build"):
        build([corpus], Target(tmp_path / "none", add_to=True))
    out = tmp_path / "out"
    small = tmp_path / "small.jsonl"
    small.write_text(corpus.read_text().splitlines()[0] + "\n")
    build([small], out)
    with pytest.raises(BuildError, match="min confidence"):
        build([small], Target(out, add_to=True), extract=ExtractOptions(min_confidence=0.5))


def test_scale_graph_json_cap_and_load_graph_from_tables(corpus, reference, tmp_path):
    out = tmp_path / "capped"
    summary = build(
        [corpus], out, export=ExportOptions(graph_json_max=100, outputs=("json", "report"))
    )
    assert not (out / "graph.json").exists()
    assert any("graph.json not written" in n for n in summary.notes)
    G, ref = read_build_graph(out), read_graph_json(reference / "graph.json")
    assert set(G.nodes) == set(ref.nodes) and set(G.edges(keys=True)) == set(ref.edges(keys=True))
    top = read_build_graph(out, top=5, papers=False)
    labels = [d["label"] for _, d in top.nodes(data=True)]
    assert labels and max(labels.count(x) for x in set(labels)) <= 5 and "Paper" not in labels
    best = max((d["support"], n) for n, d in ref.nodes(data=True) if d["label"] == "Method")
    assert best[1] in top


def test_scale_killed_build_keeps_old_output_and_resumes(corpus, reference, tmp_path):
    out = tmp_path / "out"
    small = tmp_path / "small.jsonl"
    small.write_text(corpus.read_text().splitlines()[0] + "\n")
    build([small], out)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    env = {**os.environ, "KG_PAPERS_PER_SHARD": "40"}
    cmd = [sys.executable, "-m", "kg", "build", str(corpus), "-o", str(out), "--force"]
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    shards = tmp_path / ".out.partial" / "tables" / "papers"
    deadline = time.monotonic() + 300
    try:
        while len(list(shards.glob("part-*.parquet"))) < 2 and time.monotonic() < deadline:
            assert proc.poll() is None, "the build ended before it could be killed"
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    written = len(list(shards.glob("part-*.parquet")))
    assert 2 <= written < N_PAPERS // 40
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    summary = build([corpus], Target(out, force=True, resume=True))
    assert 80 <= summary.resumed < N_PAPERS and summary.papers == N_PAPERS
    _same(reference, out)
    assert not (tmp_path / ".out.partial").exists()


def test_scale_cli_add_to_resume_and_scheduler_options(tmp_path):
    from typer.testing import CliRunner

    from kg.cli import app
    from tests.conftest import EXAMPLES

    runner = CliRunner()
    out = tmp_path / "out"
    first = runner.invoke(app, ["build", str(EXAMPLES), "-o", str(out)])
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, ["build", str(EXAMPLES), "--add-to", str(out)])
    assert again.exit_code == 0, again.output
    assert "12 input papers already there unchanged, 0 replaced" in again.output
    clash = runner.invoke(app, ["build", str(EXAMPLES), "-o", str(tmp_path / "x"), "--add-to",
                                str(out)])  # fmt: skip
    assert clash.exit_code != 0 and "give one of them" in clash.output
    bad = runner.invoke(app, ["build", str(EXAMPLES), "-o", str(tmp_path / "y"), "--scheduler",
                              "somewhere"])  # fmt: skip
    assert bad.exit_code != 0 and "tcp://HOST:8786" in bad.output
    assert not (tmp_path / "y").exists()
    help_text = runner.invoke(app, ["build", "--help"]).output
    for option in ("--add-to", "--resume", "--scheduler", "--graph-json-max"):
        assert option in help_text


def test_edges_merged_in_partitions_are_the_edges_merged_at_once(example_build, tmp_path):
    """Above kg.graph.store.MERGE_ROWS per-paper edge rows, edges are merged in hash
    partitions; the edges (papers, evidence, support) must not change."""
    import pyarrow.parquet as pq

    from kg.graph.store import EDGES, GraphTableWriter, merge_edge_tables
    from kg.util.tables import shard_files

    out, _ = example_build
    records = [json.loads(line) for line in open(out / "extractions.jsonl", encoding="utf-8")]
    merged = {}
    for name, rows in [("whole", 10**9), ("parts", 40)]:
        tables = tmp_path / name
        writer = GraphTableWriter(tables)
        for record in records:
            writer.add_paper(record)
        writer.close()
        n = merge_edge_tables(tables, partition_rows=rows)
        edges = [r for f in shard_files(tables / EDGES) for r in pq.read_table(f).to_pylist()]
        assert n == len(edges) > 300
        merged[name] = sorted((e["type"], e["u"], e["v"], e["data"], e["evidence"]) for e in edges)
    assert merged["parts"] == merged["whole"]


def test_table_edges_hand_on_their_evidence_json_and_old_tables_still_read(example_build, tmp_path):
    """The edge tables keep evidence in a column of its own, so the stores' exporters take
    its JSON text as it is; decoded, it is graph.json's evidence. Tables written before
    that column (evidence inside ``data``) read the same."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    from kg.graph.store import EDGES, GraphTables, NxGraph, json_text
    from kg.util.tables import shard_files

    out, _ = example_build
    G = read_graph_json(out / "graph.json")
    want = {(u, v, k): d for u, v, k, d in G.edges(keys=True, data=True)}
    tables = GraphTables(out / "tables")
    decoded = {(u, v, t): d for u, v, t, d in tables.edges()}
    raw = {(u, v, t): d for u, v, t, d in tables.edges(evidence_json=True)}
    assert set(decoded) == set(raw) == set(want) and len(want) > 300
    for key, data in raw.items():
        assert isinstance(data["evidence"], str)
        assert json.loads(data["evidence"]) == decoded[key]["evidence"] == want[key]["evidence"]
        assert data["evidence"] == json_text(want[key]["evidence"])
        assert {k: v for k, v in data.items() if k != "evidence"} == {
            k: v for k, v in decoded[key].items() if k != "evidence"
        }
    from_nx = {(u, v, t): d["evidence"] for u, v, t, d in NxGraph(G).edges(evidence_json=True)}
    assert from_nx == {key: d["evidence"] for key, d in raw.items()}

    old = tmp_path / "tables"
    shutil.copytree(out / "tables", old)
    for file in shard_files(old / EDGES):
        t = pq.read_table(file)
        data = [
            json_text({**json.loads(d), "evidence": json.loads(e)})
            for d, e in zip(
                t.column("data").to_pylist(), t.column("evidence").to_pylist(), strict=True
            )
        ]
        pq.write_table(
            t.drop(["evidence"]).set_column(
                t.schema.get_field_index("data"), "data", pa.array(data)
            ),
            file,
        )
    assert "evidence" not in pq.read_schema(shard_files(old / EDGES)[0]).names
    old_tables = GraphTables(old)
    assert {(u, v, t): d for u, v, t, d in old_tables.edges()} == decoded
    assert {(u, v, t): d for u, v, t, d in old_tables.edges(evidence_json=True)} == raw

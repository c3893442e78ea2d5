"""Hostile input and commands (issue 45): long records, queries that write or reach out."""

from __future__ import annotations

import random
import re
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kg.cli import app
from kg.errors import KgError
from kg.orchestrate import Hooks, Target
from tests.conftest import shared_path
from tests.orchestrate.test_build_safety import _tree as _digests

runner = CliRunner()


# -- item 1: one long record costs memory in proportion to its length ------------------------


def _names_text(n: int, seed: int = 0) -> str:
    """``n`` invented names with acronyms, "Word Word (WW3)", in sentences: a new entity every
    few words, the worst case for pairing entities."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    parts = []
    for i in range(n):
        a = "".join(rng.choice(letters) for _ in range(7)).capitalize()
        b = "".join(rng.choice(letters) for _ in range(6)).capitalize()
        parts.append(f"We compare {a} {b} ({a[0]}{b[0]}{i}) with the baseline.")
    return " ".join(parts)


def test_relation_candidates_grow_linearly_with_the_text(nlp):
    relations = nlp.get_pipe("kg_relations")
    counts = []
    for n in (150, 300):
        doc = nlp(_names_text(n))
        counts.append(len(relations.candidates(doc)))
    # every pair of 300 or 600 entities would be 4x as many pairs for twice the text
    assert counts[1] <= 2.3 * counts[0], counts


def test_long_text_runs_the_base_components_in_segments(nlp):
    from kg.nlp.pipeline import SEGMENT_CHARS, pipe_texts

    text = _names_text(400)
    assert len(text) > 4 * SEGMENT_CHARS
    short = "We propose SparseNet, which reaches 81.2% accuracy on ImageNet."
    docs = list(pipe_texts(nlp, [short, text, short], batch_size=2))
    assert [d.text for d in docs] == [short, text, short]
    long_doc = docs[1]
    assert len(long_doc) == len(nlp.make_doc(text))
    assert long_doc.has_annotation("DEP") and long_doc.has_annotation("LEMMA")
    assert len(long_doc.spans["kg_entities"]) > 400  # kg's components saw the whole text
    alone = nlp(short)
    assert [e.text for e in docs[0].spans["kg_entities"]] == [
        e.text for e in alone.spans["kg_entities"]
    ]


# -- item 2: query commands never write, never reach out ---------------------------------------


class _Catcher(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):  # noqa: N802 - http.server's name
        _Catcher.hits.append(self.path)
        self.send_response(404)
        self.end_headers()

    do_POST = do_GET

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture(scope="module")
def catcher():
    """An HTTP server on 127.0.0.1 that records every request it gets."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Catcher)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Catcher.hits.clear()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def build_copy(example_build, tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile") / "out"
    shutil.copytree(example_build[0], out)
    return out


def test_cypher_copy_to_a_build_table_is_refused(build_copy):
    table = next((build_copy / "tables").rglob("*.parquet"))
    before = _digests(build_copy)
    query = f"COPY (MATCH (m:Method) RETURN m.name) TO '{table}'"
    result = runner.invoke(app, ["cypher", str(build_copy), query])
    assert result.exit_code == 1
    assert "only queries that read" in result.output
    assert _digests(build_copy) == before


def test_sparql_update_and_service_are_refused(build_copy, catcher):
    result = runner.invoke(app, ["sparql", str(build_copy), "INSERT DATA { <a:x> <a:y> <a:z> }"])
    assert result.exit_code == 1
    assert "SPARQL Update" in result.output and "CONSTRUCT" in result.output
    service = f"SELECT * WHERE {{ SERVICE <{catcher}/sparql> {{ ?s ?p ?o }} }}"
    result = runner.invoke(app, ["sparql", str(build_copy), service])
    assert result.exit_code == 1 and "--allow-service" in result.output
    assert _Catcher.hits == []


def test_allow_service_sends_the_request(build_copy, catcher):
    from kg.query.sparql import SparqlEngine

    engine = SparqlEngine(build_copy, allow_service=True)
    _Catcher.hits.clear()
    with pytest.raises(KgError):  # the catcher answers 404
        engine.run(f"SELECT * WHERE {{ SERVICE <{catcher}/sparql> {{ ?s ?p ?o }} }}")
    assert _Catcher.hits, "with --allow-service the SERVICE request is made"
    _Catcher.hits.clear()


def test_reading_queries_that_name_the_keywords_still_run():
    from kg.query.guard import check_cypher, check_sparql

    check_cypher("MATCH (m:Method) WHERE m.name CONTAINS 'COPY' RETURN m.set AS `delete`")
    check_cypher("// CREATE a comment\nMATCH (n) RETURN n /* MERGE */ LIMIT 1")
    check_cypher("CALL show_tables() RETURN *")
    check_sparql('SELECT ?s WHERE { ?s kgo:load "INSERT" ; <http://x/DELETE> ?o } # DROP')


# Statements that write or reach out, in the forms the two stores take; {t} a build file,
# {d} a folder in the build, {u} the catcher's URL.
_CYPHER_BAD = [
    "COPY Method TO '{t}'",
    "COPY (MATCH (m:Method) RETURN m.key) TO '{t}'",
    "COPY Method FROM '{t}'",
    "EXPORT DATABASE '{d}'",
    "IMPORT DATABASE '{d}'",
    "INSTALL httpfs",
    "LOAD EXTENSION '{t}'",
    "LOAD httpfs",
    "LOAD FROM '{u}/x.csv' RETURN *",
    "ATTACH '{t}' AS other (dbtype lbug)",
    "DETACH other",
    "USE other",
    "CALL threads=1",
    "CALL create_fts_index('Method', 'idx', ['name'])",
    "CALL checkpoint_threshold=1",
    "MATCH (m:Method) SET m.name = 'x'",
    "MATCH (m:Method) DETACH DELETE m",
    "MATCH (m:Method) REMOVE m.name",
    "CREATE (m:Method {{key: 'x'}})",
    "MERGE (m:Method {{key: 'x'}})",
    "CREATE NODE TABLE X(id INT64, PRIMARY KEY(id))",
    "DROP TABLE Method",
    "ALTER TABLE Method ADD extra INT64",
    "CHECKPOINT",
    "BEGIN TRANSACTION",
]
_SPARQL_BAD = [
    "INSERT DATA {{ <a:x> <a:y> <a:z> }}",
    "DELETE WHERE {{ ?s ?p ?o }}",
    "DELETE {{ ?s ?p ?o }} INSERT {{ ?s ?p 1 }} WHERE {{ ?s ?p ?o }}",
    "WITH <a:g> DELETE {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o }}",
    "LOAD <{u}/x.ttl>",
    "LOAD SILENT <{u}/x.ttl> INTO GRAPH <a:g>",
    "CLEAR ALL",
    "DROP DEFAULT",
    "CREATE GRAPH <a:g>",
    "COPY DEFAULT TO <a:g>",
    "MOVE DEFAULT TO <a:g>",
    "ADD DEFAULT TO <a:g>",
    "SELECT * WHERE {{ SERVICE <{u}/sparql> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ SERVICE SILENT <{u}/sparql> {{ ?s ?p ?o }} }}",
    "ASK {{ ?s ?p ?o . SERVICE <{u}/q> {{ ?s ?p ?o }} }}",
]
_READS = {
    "cypher": "MATCH (m:Method) RETURN m.name LIMIT 1",
    "sparql": "SELECT ?s WHERE {{ ?s ?p ?o }} LIMIT 1",
}


def _disguise(query: str, rng: random.Random, comment: str) -> str:
    """The same statement with keyword case, spacing and comments varied, and perhaps a
    reading statement before it."""
    words = re.split(r"(\s+)", query)
    out = []
    for w in words:
        if w.isspace():
            out.append(rng.choice([" ", "\n", "\t ", f" {comment} "]))
        elif re.fullmatch(r"[A-Za-z_]+", w):
            out.append("".join(c.upper() if rng.random() < 0.5 else c.lower() for c in w))
        else:
            out.append(w)
    return "".join(out)


@pytest.fixture(scope="module")
def engines(build_copy):
    """What kg cypher and kg sparql run queries on, opened once."""
    from kg.query import LadybugEngine
    from kg.query.sparql import SparqlEngine

    return {"cypher": LadybugEngine(build_copy), "sparql": SparqlEngine(build_copy)}


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_fuzz_query_commands_never_write_or_reach_out(build_copy, engines, catcher, data):
    before = _digests(build_copy)
    table = next((build_copy / "tables").rglob("*.parquet"))
    language = data.draw(st.sampled_from(["cypher", "sparql"]))
    template = data.draw(st.sampled_from(_CYPHER_BAD if language == "cypher" else _SPARQL_BAD))
    seed = data.draw(st.integers(0, 10_000))
    comment = "/* x */" if language == "cypher" else "# x\n"
    query = template.format(t=table, d=build_copy / "tables", u=catcher)
    query = _disguise(query, random.Random(seed), comment)
    if data.draw(st.booleans()):
        query = _READS[language].replace("{{", "{").replace("}}", "}") + " ;\n" + query
    with pytest.raises(KgError) as refused:
        engines[language].run(query)
    assert type(refused.value).__name__ == "QueryRefused", refused.value  # refused by kg
    assert _Catcher.hits == []
    assert _digests(build_copy) == before


# -- item 3: written files never replace what kg did not write --------------------------------


@pytest.fixture
def own_build(example_build, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(example_build[0], out)
    return out


def _keeps(mine: Path, args: list[str], why: str) -> None:
    """``kg ARGS`` must refuse to write over the user's file ``mine``, saying ``why``."""
    mine.write_text("my notes", encoding="utf-8")
    result = runner.invoke(app, args)
    assert result.exit_code == 1 and why in result.output, result.output
    assert mine.read_text(encoding="utf-8") == "my notes"


def test_viz_never_replaces_a_foreign_file_or_a_build_file(own_build, tmp_path):
    mine = tmp_path / "notes.html"
    _keeps(mine, ["viz", str(own_build), "-o", str(mine)], "not written by kg")
    records = own_build / "extractions.jsonl"
    before = records.read_bytes()
    for extra in ([], ["--force"]):
        result = runner.invoke(app, ["viz", str(own_build), "-o", str(records), *extra])
        assert result.exit_code == 1 and "never writes into a build's own files" in result.output
    assert records.read_bytes() == before
    page = tmp_path / "graph.html"
    for _ in range(2):  # a page kg viz wrote may be written again
        assert runner.invoke(app, ["viz", str(own_build), "-o", str(page)]).exit_code == 0
    assert runner.invoke(app, ["viz", str(own_build), "-o", str(mine), "--force"]).exit_code == 0
    assert "kg viz" in mine.read_text(encoding="utf-8")[:500]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp left
    (own_build / "graph.html").write_text("an older kg's page", encoding="utf-8")
    assert runner.invoke(app, ["viz", str(own_build)]).exit_code == 0  # the build's own place


def test_analyze_and_export_write_only_folders_of_their_own(own_build, tmp_path):
    for command in (
        ["analyze", str(own_build), "-o"],
        ["export", "neo4j-csv", str(own_build), "-o"],
    ):
        for inside in (own_build, own_build / "tables"):
            before = _digests(own_build)
            result = runner.invoke(app, [*command, str(inside), "--force"])
            assert result.exit_code == 1, result.output
            assert _digests(own_build) == before
        folder = tmp_path / command[0]
        folder.mkdir()
        (folder / "keep.txt").write_text("mine", encoding="utf-8")
        result = runner.invoke(app, [*command, str(folder)])
        assert result.exit_code == 1 and "keep.txt" in result.output
        assert (folder / "keep.txt").read_text(encoding="utf-8") == "mine"
        (folder / "keep.txt").unlink()
        for _ in range(2):
            result = runner.invoke(app, [*command, str(folder)])
            assert result.exit_code == 0, result.output
    import_md = (tmp_path / "export" / "IMPORT.md").read_text(encoding="utf-8")
    assert str(tmp_path / "export" / "nodes_Method.csv") in import_md  # not the temp folder
    assert (tmp_path / "analyze" / "analysis.md").is_file()


def test_eval_save_and_fetch_keep_to_their_files(own_build, tmp_path):
    gold = shared_path("gold", "dev.jsonl")
    mine = tmp_path / "scores.json"
    mine.write_text("{}", encoding="utf-8")
    result = runner.invoke(app, ["eval", str(own_build), str(gold), "-o", str(mine)])
    assert result.exit_code == 1 and mine.read_text(encoding="utf-8") == "{}"
    saved = tmp_path / "new.json"
    for _ in range(2):
        args = ["eval", str(own_build), str(gold), "-o", str(saved)]
        assert runner.invoke(app, args).exit_code == 0
    before = _digests(own_build)
    target = own_build / "extractions.jsonl"
    result = runner.invoke(app, ["fetch", "hf-daily", "--date", "2026-11-30", "-o", str(target)])
    assert result.exit_code == 1 and "build's own files" in result.output
    assert _digests(own_build) == before


# -- item 5: symlinks and full disks -----------------------------------------------------------


def _tmpfs(path: Path, size: str, *options: str) -> None:
    """Mount a small tmpfs at ``path`` (a real file system that fills up, or is read-only);
    skip when this machine does not let the test mount one."""
    import subprocess

    path.mkdir(parents=True, exist_ok=True)
    opts = ",".join([f"size={size}", *options])
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(path)],
                          capture_output=True, text=True)  # fmt: skip
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {proc.stderr.strip()}")


def _umount(path: Path) -> None:
    import subprocess

    subprocess.run(["umount", str(path)], check=False)


def _build(*args: str):
    return runner.invoke(app, ["build", *args])


def test_symlinked_output_is_written_through_the_link(tmp_path):
    from tests.conftest import EXAMPLES

    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "out"
    link.symlink_to(real)
    for _ in range(2):
        result = _build(str(EXAMPLES), "-o", str(link))
        assert result.exit_code == 0, result.output
        assert "is a link to" in result.output
        assert link.is_symlink() and link.resolve() == real.resolve()
        assert (real / "kg-build.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "real"]  # no .old-* link


def test_full_disk_says_so_and_leaves_no_partial_output(tmp_path):
    from tests.conftest import EXAMPLES

    disk = tmp_path / "disk"
    _tmpfs(disk, "3m")
    try:
        result = _build(str(EXAMPLES), "-o", str(disk / "out"))
        assert result.exit_code == 1
        assert f"no space left on the device holding {disk}" in result.output
        assert "MEMORY" not in result.output  # not a memory setting's fault
        assert list(disk.iterdir()) == []  # the partial output is gone: the space is free
    finally:
        _umount(disk)


def test_read_only_folder_is_an_error_not_a_traceback(tmp_path):
    from tests.conftest import EXAMPLES

    disk = tmp_path / "ro"
    _tmpfs(disk, "1m", "ro")
    try:
        result = _build(str(EXAMPLES), "-o", str(disk / "out"))
        assert result.exit_code == 1
        assert isinstance(result.exception, SystemExit)  # a message, not a traceback
        assert "kg: error:" in result.output and "Read-only file system" in result.output
    finally:
        _umount(disk)


# -- items 6 and 7: ordinary mistakes get a message, and a rebuild says what it removed --------


def test_eval_leaves_out_malformed_lines_and_says_where(own_build, tmp_path):
    gold = shared_path("gold", "dev.jsonl")
    bad_gold = tmp_path / "gold.jsonl"
    bad_gold.write_text('{"text_start": "x"\n[1]\n' + gold.read_text(encoding="utf-8"))
    bad_pred = tmp_path / "pred.jsonl"
    records = (own_build / "extractions.jsonl").read_text(encoding="utf-8")
    bad_pred.write_text(records + '{"text": 3}\nnot json\n', encoding="utf-8")
    result = runner.invoke(app, ["eval", str(bad_pred), str(bad_gold)])
    assert result.exit_code == 0, result.output
    assert f"{bad_gold}:1: malformed JSON" in result.output
    assert f"{bad_gold}:2: not a gold record" in result.output
    n = records.count("\n")
    assert f"{bad_pred}:{n + 1}: not a prediction record" in result.output
    assert f"{bad_pred}:{n + 2}: malformed JSON" in result.output
    assert "papers scored: 20" in result.output  # the good lines are all scored


def test_analyze_to_a_file_is_an_error(own_build, tmp_path):
    target = tmp_path / "report.txt"
    _keeps(target, ["analyze", str(own_build), "-o", str(target)], "is a file")


def test_one_nul_rule_and_unreadable_metadata_reported(tmp_path):
    from kg.ingest import read

    text = "We propose SparseNet, a model for long documents that reaches 81.2% accuracy."
    plain = tmp_path / "abstracts.txt"
    plain.write_bytes(("x" * 9000 + ".\n\n" + text + "\n\n" + text[:20] + "\x00" + text[20:]
                       + "\n").encode())  # fmt: skip
    items = list(read([plain]))
    skipped = [i for i in items if not hasattr(i, "text")]
    assert any(s.line == 5 and "NUL" in s.reason for s in skipped), skipped
    jsonl = tmp_path / "meta.jsonl"
    rows = [
        {"id": "a", "abstract": text, "year": "abc"},
        {"id": "b", "abstract": text, "date": "2024-13-45"},
        {"id": "c", "abstract": text, "year": 2023, "date": "2023-05-01"},
        {"id": "d", "abstract": text.replace("model", "model\u0000")},
        {"id": "e", "abstract": text, "date": "Mon, 2 Apr 2007 19:18:42 GMT"},
    ]
    import json

    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    by_id = {getattr(i, "id", None): i for i in read([jsonl])}
    assert by_id["a"].year is None and "year 'abc' is not a year" in by_id["a"].notes[0]
    assert by_id["b"].date is None and "not a date" in by_id["b"].notes[0]
    assert (by_id["c"].year, by_id["c"].date, by_id["c"].notes) == (2023, "2023-05-01", ())
    assert (by_id["e"].year, by_id["e"].notes) == (2007, ())
    assert "NUL characters" in by_id["d"].notes[0] and "\x00" not in by_id["d"].text
    result = _build(str(jsonl), "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert f"{jsonl}:1: year 'abc' is not a year; left out (record kept)" in result.output
    assert f"{jsonl}:2: date '2024-13-45' is not a date" in result.output
    assert f"{jsonl}:4: NUL characters (\\u0000) in the abstract read as spaces" in result.output


def test_rebuild_says_which_derived_files_it_removed(own_build):
    from tests.conftest import EXAMPLES

    assert runner.invoke(app, ["viz", str(own_build)]).exit_code == 0
    result = _build(str(EXAMPLES), "-o", str(own_build))
    assert result.exit_code == 0, result.output
    assert "removed graph.html of the previous build" in result.output
    assert not (own_build / "graph.html").exists()


# -- item 10: papers of a text input are found by their first words -----------------------


def test_papers_found_by_first_words_and_empty_leaderboard_says_why(build_copy):
    import json
    from collections import Counter

    records = [json.loads(x) for x in (build_copy / "extractions.jsonl").read_text().splitlines()]
    first = records[0]
    assert first["id"].startswith("sha1:") and not first["title"]  # a text input's paper
    words = " ".join(first["text"].split()[:5]).upper()
    for command in (["query", str(build_copy), "paper-graph"],
                    ["sparql", str(build_copy), "paper-contributions"]):  # fmt: skip
        by_id = runner.invoke(app, [*command, "-p", f"paper={first['id']}", "--format", "json"])
        by_words = runner.invoke(app, [*command, "-p", f"paper={words}", "--format", "json"])
        assert by_id.exit_code == 0 and by_words.exit_code == 0, by_words.output
        assert f"is paper {first['id']}" in by_words.output
        rows = by_words.output[by_words.output.index("[") :]
        assert json.loads(rows) == json.loads(by_id.output) != []
    common, n = Counter(r["text"][:2] for r in records).most_common(1)[0]
    assert n >= 2, "two example abstracts start with the same letters"
    args = ["query", str(build_copy), "paper-graph", "-p", f"paper={common}"]
    ambiguous = runner.invoke(app, args)
    assert ambiguous.exit_code == 1 and "several papers start so" in ambiguous.output
    reported = [x["dataset"] for r in records for x in r["results"] if x.get("dataset")]
    assert reported, "the example build reports results on a data set"
    for command in (["query", str(build_copy), "leaderboard"],
                    ["sparql", str(build_copy), "leaderboard"]):  # fmt: skip
        args = [*command, "-p", f"dataset={reported[0]}", "-p", "metric=no-such-metric"]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert f"no leaderboard on {reported[0]!r} has 'no-such-metric' in its" in result.output
        assert "its leaderboards:" in result.output


# -- item 9: progress with a total, stages that say what they do -------------------------------


def test_build_counts_its_papers_first_and_names_its_stages(tmp_path):
    from kg.orchestrate import build
    from tests.conftest import EXAMPLES

    totals, stages = [], []

    def progress(items, description="", total=None):
        totals.append((description, total))
        return items

    hooks = Hooks(progress=progress, count_first=True, on_stage=stages.append)
    summary = build([EXAMPLES], tmp_path / "out", hooks=hooks)
    assert totals == [("Extracting", summary.papers)]
    assert stages[0] == "resolving names across papers"
    assert {"writing graph.ttl", "writing the LadybugDB store graph.lbdb"} <= set(stages)
    totals.clear()
    build(
        [EXAMPLES],
        Target(tmp_path / "out", add_to=True),
        hooks=Hooks(count_first=True, progress=progress),
    )
    assert totals == [("Extracting", 0)]  # nothing new to extract: the total says so

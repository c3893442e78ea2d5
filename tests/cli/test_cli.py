"""The kg command line, run in-process with typer's CliRunner."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kg.cli import app
from kg.orchestrate import ExportOptions
from tests.conftest import EXAMPLES, shared_path

runner = CliRunner()


def test_cli_help_lists_commands():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for cmd in ("build", "eval", "cypher"):
        assert cmd in result.output


def _commands():
    """Every command of the app, as (its words, the command)."""
    import typer

    def walk(command, words):
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                yield from walk(sub, [*words, name])
        else:
            yield " ".join(words), command

    return list(walk(typer.main.get_command(app), ["kg"]))


def test_cli_grammar_is_one():
    """One spelling per flag: -o/--out for what is written, --format a choice of output
    formats, flags without --no- twins, a one-line summary and examples after the
    options; old spellings are hidden."""
    commands = _commands()
    assert len(commands) >= 20
    for words, command in commands:
        summary = command.help.split("\n\n")[0]
        assert "\n" not in summary and len(summary) <= 90, (words, summary)
        assert command.epilog and command.epilog.startswith("Example"), words
        for param in command.params:
            if param.param_type_name != "option" or param.hidden:
                continue
            assert not param.secondary_opts, (words, param.opts)  # no --no-x
            assert not {"--to", "--output", "--db", "--save", "--pred", "--file", "--json"} & set(
                param.opts
            ), (words, param.opts)
            if "-o" in param.opts:
                assert param.opts == ["-o", "--out"], (words, param.opts)
            if "--format" in param.opts:
                assert param.type_descriptor.is_choice, words
                assert not {"scierc", "scirex"} & set(param.type_descriptor.choices), words


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (["query", "top-entities", "--db", "{out}", "--format", "csv"], "kg query BUILD NAME"),
        (["sparql", "top-entities", "{out}", "--format", "csv"], "kg sparql BUILD top-entities"),
        (["explain", "LoRA", "--db", "{out}"], "kg explain BUILD WHAT"),
    ],
)
def test_cli_old_spellings_still_work_and_name_the_new_one(example_build, old, new):
    out, _ = example_build
    result = runner.invoke(app, [a.replace("{out}", str(out)) for a in old])
    assert result.exit_code == 0, result.output
    assert f"write {new} instead" in result.stderr


def test_cli_build_then_cypher_and_eval(tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(app, ["build", str(EXAMPLES), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "12 papers" in result.output and "skipped 1" in result.output
    result = runner.invoke(
        app,
        [
            "cypher",
            str(out),
            "--format",
            "json",
            "MATCH (p:Paper)-[:PROPOSES]->(m:Method) WHERE m.name = $n RETURN m.name AS name",
            "-p",
            "n=BlockLoRA",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == [{"name": "BlockLoRA"}]
    gold = tmp_path / "gold.jsonl"
    first = json.loads((out / "extractions.jsonl").read_text().splitlines()[0])
    gold.write_text(
        json.dumps(
            {
                "text_start": first["text"][:80],
                "entities": [
                    {"type": e["type"], "name": e["name"], "aliases": []} for e in first["entities"]
                ],
                "relations": [],
                "results": [],
            }
        )
        + "\n"
    )
    result = runner.invoke(app, ["eval", str(out), str(gold), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["entities"]["recall"] == 1.0
    saved = tmp_path / "metrics" / "dev.json"
    result = runner.invoke(app, ["eval", str(out), str(gold), "-o", str(saved)])
    assert result.exit_code == 0, result.output
    assert "entities (typed)" in result.output  # the table still prints
    assert json.loads(saved.read_text())["entities"]["recall"] == 1.0


def test_cli_build_reports_bad_input_and_keeps_good_records(tmp_path):
    bad = tmp_path / "mixed.jsonl"
    good = {"id": "g", "abstract": EXAMPLES.read_text().split("\n\n")[1]}
    bad.write_text(
        json.dumps(good) + "\n{broken\n" + json.dumps({"id": "e", "abstract": ""}) + "\n"
    )
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    out = tmp_path / "out"
    result = runner.invoke(app, ["build", str(bad), str(empty), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "mixed.jsonl:2: malformed JSON" in result.output
    assert "mixed.jsonl:3: empty abstract" in result.output
    assert "empty.txt: empty file" in result.output
    report = (out / "report.md").read_text()
    assert "malformed JSON" in report and "empty abstract" in report and "empty file" in report
    assert len((out / "extractions.jsonl").read_text().splitlines()) == 1


def test_cli_build_with_nothing_readable_fails(tmp_path):
    result = runner.invoke(
        app, ["build", str(tmp_path / "missing.txt"), "-o", str(tmp_path / "out")]
    )
    assert result.exit_code == 1
    assert "missing.txt: no such file or directory" in result.output
    assert not (tmp_path / "out").exists()


def test_cli_bad_field_option(tmp_path):
    result = runner.invoke(app, ["build", str(EXAMPLES), "--field", "text", "-o", str(tmp_path)])
    assert result.exit_code != 0 and "NAME=KEY" in result.output


def test_cli_cypher_bad_query_is_a_clear_error(example_build):
    out, _ = example_build
    result = runner.invoke(app, ["cypher", str(out), "MATCH (n:Nope) RETURN n"])
    assert result.exit_code != 0 and "Table Nope does not exist" in result.output


def test_build_rerun_replaces_output_atomically(tmp_path, monkeypatch):
    from kg.errors import BuildError
    from kg.exporters import report
    from kg.orchestrate import build

    out = tmp_path / "out"
    build([EXAMPLES], out, export=ExportOptions(outputs=("jsonl", "report")))
    before = (out / "extractions.jsonl").read_text()
    build([EXAMPLES], out, export=ExportOptions(outputs=("jsonl", "report")))
    assert (out / "extractions.jsonl").read_text() == before  # deterministic

    def crash(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(report, "write_report", crash)
    with pytest.raises(BuildError, match="disk full.*unchanged"):
        build([EXAMPLES], out, export=ExportOptions(outputs=("jsonl", "report")))
    assert (out / "extractions.jsonl").read_text() == before
    # the extraction stays beside the untouched output, for --resume; a build without
    # --resume starts afresh and removes it
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.partial", "out"]
    monkeypatch.undo()
    build([EXAMPLES], out, export=ExportOptions(outputs=("jsonl", "report")))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_cli_query_list_and_run_on_the_embedded_store(example_build):
    out, _ = example_build
    result = runner.invoke(app, ["query", "--list"])
    assert result.exit_code == 0 and "leaderboard" in result.output
    result = runner.invoke(
        app,
        ["query", str(out), "leaderboard", "-p", "dataset=LIBERO", "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert rows[0]["method"] == "GraspVLA" and rows[0]["value"] == 94.0
    result = runner.invoke(
        app, ["query", str(out), "top-entities", "-p", "limit=2", "--format", "csv"]
    )
    assert result.exit_code == 0 and len(result.output.strip().splitlines()) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["query", "{out}", "leaderboard"], "needs --param dataset"),
        (["query", "{out}", "nope"], "no saved query 'nope'"),
        (["query", "{out}", "top-entities", "-p", "limit=x"], "limit=x"),
        (["query", "top-entities"], "kg query BUILD NAME"),
        (["load", "neo4j", "{out}/missing"], "no graph.json"),
    ],
)
def test_cli_query_errors_are_clear(example_build, monkeypatch, args, message):
    monkeypatch.delenv("NEO4J_URI", raising=False)
    out, _ = example_build
    result = runner.invoke(app, [a.format(out=out) for a in args])
    assert result.exit_code != 0
    assert message in result.output


def test_cli_export_neo4j_csv(example_build, tmp_path):
    import csv

    out, _ = example_build
    result = runner.invoke(app, ["export", "neo4j-csv", str(out), "-o", str(tmp_path / "csv")])
    assert result.exit_code == 0, result.output
    with open(tmp_path / "csv" / "nodes_Paper.csv", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][0] == "key:ID" and len(rows) == 13
    with open(tmp_path / "csv" / "relationships_PROPOSES.csv", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert header[:3] == [":START_ID", ":END_ID", ":TYPE"]
    assert "neo4j-admin database import full" in (tmp_path / "csv" / "IMPORT.md").read_text()


def test_cli_load_neo4j_then_query(example_build, empty_neo4j, neo4j_settings, monkeypatch):
    out, _ = example_build
    monkeypatch.setenv("NEO4J_URI", neo4j_settings.uri)
    monkeypatch.setenv("NEO4J_USERNAME", neo4j_settings.username)
    monkeypatch.setenv("NEO4J_PASSWORD", neo4j_settings.password)
    result = runner.invoke(app, ["load", "neo4j", str(out), "--batch-size", "100"])
    assert result.exit_code == 0, result.output
    assert "12 new papers, 0 already there" in " ".join(result.output.split())
    result = runner.invoke(app, ["load", "neo4j", str(out)])
    said = " ".join(result.output.split())
    assert "0 new papers, 12 already there; created 0 nodes and 0 relationships" in said
    result = runner.invoke(
        app, ["query", "outperforms-transitive", "--neo4j", "-p", "method=SegFormer"]
    )
    assert result.exit_code == 0 and "TerraSeg" in result.output


def test_cli_load_neo4j_wrong_password_is_a_clear_error(example_build, neo4j_settings):
    out, _ = example_build
    args = ["load", "neo4j", str(out), "--uri", neo4j_settings.uri, "--password", "wrong-pass"]
    result = runner.invoke(app, args)
    assert result.exit_code != 0
    assert "refused user 'neo4j'" in result.output


def _all_commands():
    """Every command path of the CLI, e.g. ``["load", "neo4j"]``."""
    import typer.main

    def walk(command, path):
        subs = getattr(command, "commands", None)
        if not subs:
            yield path
            return
        for name, sub in subs.items():
            yield from walk(sub, [*path, name])

    return list(walk(typer.main.get_command(app), []))


def test_cli_help_names_values_in_words_not_python_types():
    commands = _all_commands()
    assert ["build"] in commands and ["load", "neo4j"] in commands
    for path in commands:
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, path
        for python_name in ("<list[", "<str>", "<int", "<bool>", "<path>", "<float>"):
            assert python_name not in result.output, (path, python_name)
    build_help = runner.invoke(app, ["build", "--help"], env={"COLUMNS": "200"}).output
    assert "id, title, text, year, date, authors, url, code_url, categories" in build_help
    assert "--jobs" in build_help and " N " in build_help and " PATH " in build_help


def test_cli_version():
    from kg import __version__

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"kg {__version__}"


def test_cli_messages_are_not_wrapped(tmp_path):
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "papers.jsonl"
    deep.parent.mkdir()
    good = {"id": "g", "abstract": EXAMPLES.read_text().split("\n\n")[1]}
    deep.write_text(json.dumps(good) + "\n{broken\n")
    result = runner.invoke(app, ["build", str(deep), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if "malformed JSON" in x)
    assert f"{deep}:2: malformed JSON" in line and len(line) > 120


def test_cli_csv_has_unix_line_ends(example_build):
    out, _ = example_build
    args = ["query", str(out), "top-entities", "-p", "limit=3", "--format", "csv"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0
    assert "\r" not in result.output and result.output.count("\n") == 4


def test_cli_query_show_needs_no_parameters_or_database(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./kg-out here
    monkeypatch.delenv("NEO4J_URI", raising=False)
    result = runner.invoke(app, ["query", "leaderboard", "--show"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("// Title: Leaderboard") and "$dataset" in result.output
    result = runner.invoke(app, ["query", "path-between", "--show", "--neo4j"])
    assert "allShortestPaths" in result.output  # the Neo4j form


def test_cli_query_unknown_name_suggests_close_ones(example_build):
    out, _ = example_build
    args = ["query", str(out), "leaderboard", "-p", "dataset=Libero"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0 and "GraspVLA" in result.output  # names match any case
    result = runner.invoke(app, [*args[:-1], "dataset=LIBRO"])
    assert result.exit_code == 1
    assert "no Dataset called 'LIBRO'" in result.output and "close names: LIBERO" in result.output
    result = runner.invoke(app, ["query", str(out), "co-occurring", "-p", "entity=thumos"])
    assert result.exit_code == 1 and "THUMOS14" in result.output  # found by part of its name


def test_cli_query_json_evidence_is_json(example_build):
    out, _ = example_build
    args = ["query", str(out), "mentions-with-evidence", "-p", "entity=LoRA"]
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)
    assert isinstance(row["evidence"], list) and row["evidence"][0]["paper"] == row["paper"]
    assert {"sentence", "start", "end", "text"} <= set(row["evidence"][0])


def test_cli_eval_explain_names_the_paper(example_build, tmp_path):
    out, _ = example_build
    first = json.loads((out / "extractions.jsonl").read_text().splitlines()[0])
    gold = tmp_path / "gold.jsonl"
    row = {
        "text_start": first["text"][:80],
        "entities": [{"type": "Method", "name": "NoSuchMethod", "aliases": []}],
        "relations": [],
        "results": [],
    }
    gold.write_text(json.dumps(row) + "\n")
    result = runner.invoke(app, ["eval", str(out), str(gold), "--explain"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = lines.index(next(x for x in lines if x.startswith(first["id"])))
    assert first["text"].split()[0] in lines[header]
    assert any("entity_fn" in x and "NoSuchMethod" in x for x in lines[header + 1 :])


def _relations(out):
    lines = (out / "extractions.jsonl").read_text(encoding="utf-8").splitlines()
    return [r for line in lines for r in json.loads(line)["relations"]]


@pytest.mark.slow
def test_build_min_confidence_leaves_out_less_likely_relations(tmp_path):
    corpus = shared_path("gold", "silver", "test_abstracts.jsonl")
    runs = {}
    for threshold in ("0", "0.5"):
        out = tmp_path / f"out-{threshold}"
        result = runner.invoke(
            app, ["build", str(corpus), "-o", str(out), "--only", "jsonl", "-j", "2",
                  "--min-confidence", threshold],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        runs[threshold] = _relations(out)
    assert runs["0"] and all(0 < r["confidence"] < 1 for r in runs["0"])
    assert any(r["confidence"] < 0.5 for r in runs["0"])
    assert runs["0.5"] and all(r["confidence"] >= 0.5 for r in runs["0.5"])
    kept = {(r["head"], r["type"], r["tail"]) for r in runs["0.5"]}
    assert kept == {(r["head"], r["type"], r["tail"]) for r in runs["0"] if r["confidence"] >= 0.5}
    result = runner.invoke(app, ["build", str(EXAMPLES), "-o", str(tmp_path / "x"),
                                 "--min-confidence", "1.5"], env={"COLUMNS": "200"})  # fmt: skip
    assert result.exit_code == 2 and "--min-confidence" in result.output
    assert "less than or equal to" in result.output and not (tmp_path / "x").exists()


def test_the_cli_starts_without_the_heavy_libraries():
    """`kg --help`, `kg sparql` and `kg query` start fast: importing the CLI loads neither
    spaCy, networkx, rdflib nor the HTTP client; a command loads what it uses."""
    import subprocess
    import sys

    heavy = ["spacy", "networkx", "rdflib", "httpx", "neo4j", "duckdb"]
    code = f"import sys, kg.cli; print(','.join(m for m in {heavy!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"importing kg.cli loaded {done.stdout.strip()}"


def test_cli_explain_shows_the_merges_behind_an_entity_and_eval_scores_them(tmp_path):
    papers = tmp_path / "papers.jsonl"
    texts = [
        "We adapt large models with Low-Rank Adaptation (LoRA) and report 71.0% accuracy.",
        "Our method extends Low-Rank Adaptation (LoRA) to vision transformers on ImageNet.",
        "We fine-tune GPT-2 with LoRA and compare it with full fine-tuning.",
    ]
    papers.write_text(
        "".join(json.dumps({"id": f"p{i}", "text": t}) + "\n" for i, t in enumerate(texts))
    )
    out = tmp_path / "out"
    assert runner.invoke(app, ["build", str(papers), "-o", str(out)]).exit_code == 0
    result = runner.invoke(app, ["explain", str(out), "LoRA", "--format", "json"])
    assert result.exit_code == 0, result.output
    (entity,) = json.loads(result.output)
    assert entity["key"] == "method:low-rank-adaptation" and entity["support"] == 3
    (merge,) = entity["merges"]
    assert merge["rule"] == "acronym" and merge["source"] == "method:lora"
    assert merge["papers"] == ["p0", "p1"] and merge["paper_count"] == 2
    text = runner.invoke(app, ["explain", str(out), "method:low-rank-adaptation"])
    assert "merged method:lora (acronym" in text.output
    missing = runner.invoke(app, ["explain", str(out), "no such thing"])
    assert missing.exit_code != 0 and "find-entity" in missing.output

    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(
        "type\ta\tb\tsame\tsource\n"
        "Method\tLow-Rank Adaptation\tLoRA\tyes\ttest\n"
        "Method\tLoRA\tGPT-2\tno\ttest\n"
        "Method\tLoRA\tQLoRA\tno\ttest\n"
    )
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"text_start": texts[0][:80], "entities": [],
                                "relations": [], "results": []}) + "\n")  # fmt: skip
    result = runner.invoke(
        app, ["eval", str(out), str(gold), "--pairs", str(pairs), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    merges = json.loads(result.output)["merges"]
    assert merges["precision"] == 1.0 and merges["recall"] == 1.0
    assert merges["merged"] == 1 and merges["not_in_build"] == 1
    alone = runner.invoke(app, ["eval", str(out), "--pairs", str(pairs)])  # no gold: merges only
    assert alone.exit_code == 0, alone.output
    assert alone.output.startswith("merges: precision 1.000 (1 labelled pairs merged)")
    unexplained = runner.invoke(app, ["eval", str(out), "--pairs", str(pairs), "--explain"])
    assert unexplained.exit_code == 2 and "give GOLD" in unexplained.output

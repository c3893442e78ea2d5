"""A build's settings are data it keeps and checks (issue 61, items 1-5 and 19): the
manifest keeps the pipeline, its config, the base and the curation file by absolute path
and digest; --add-to, --resume and kg update take the build's own and name what differs;
kg update on a fast and an accurate build, on a real local OAI-PMH server."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from kg.cli import app
from kg.errors import BuildError
from kg.nlp.pipeline import pipeline_config
from kg.orchestrate import ExportOptions, ExtractOptions, Hooks, ResolveOptions, Target, build
from kg.orchestrate.update import updates_dir
from tests.orchestrate.test_curation import _papers
from tests.sources_server import Answer, SourceServer, oai_page, oai_record, paper

runner = CliRunner()

TEXTS = [
    "We adapt large models with Low-Rank Adaptation (LoRA) and report 71.0% accuracy on ImageNet.",
    "We fine-tune GPT-2 with LoRA and compare it with full fine-tuning on CIFAR-100.",
]


LINES = ("jsonl",)
"""What these builds write besides the manifest and tables they are checked by."""


def _manifest(out) -> dict:
    return json.loads((out / "kg-build.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """A fast and an accurate build of two abstracts."""
    base = tmp_path_factory.mktemp("settings")
    papers = _papers(base / "papers.jsonl", TEXTS)
    build([papers], base / "fast", export=ExportOptions(outputs=LINES))
    build(
        [papers],
        base / "accurate",
        extract=ExtractOptions(pipeline="accurate"),
        export=ExportOptions(outputs=LINES),
    )
    return base


def _update(out, server, *extra):
    args = ["update", str(out), "--category", "cs.CL", "--base-url", server.url,
            "--delay", "0", "--from", "2026-11-29", "--until", "2026-11-30", *extra]  # fmt: skip
    return runner.invoke(app, args)


def _server():
    records = [oai_record(paper(1))]
    return SourceServer(lambda path, params: Answer(oai_page(records, "")))


def test_settings_manifest_keeps_config_base_and_curation_by_path_and_digest(builds, tmp_path):
    kept = _manifest(builds / "fast")["pipeline"]
    config = pipeline_config("fast")
    assert kept["name"] == "fast" and kept["min_confidence"] == 0.0
    assert kept["config"]["path"] == str(config.resolve())
    assert len(kept["config"]["digest"]) == 64
    assert kept["base"]["name"] and kept["base"]["version"] and len(kept["base"]["digest"]) == 64
    fixes = tmp_path / "fixes.toml"
    fixes.write_text('[[drop]]\nkey = "method:nothing"\n', encoding="utf-8")
    build(
        [builds / "papers.jsonl"],
        tmp_path / "out",
        resolve=ResolveOptions(curation=fixes),
        export=ExportOptions(outputs=LINES),
    )
    curation = _manifest(tmp_path / "out")["pipeline"]["curation"]
    assert curation["path"] == str(fixes.resolve()) and len(curation["digest"]) == 64


@pytest.mark.parametrize("pipeline", ["fast", "accurate"])
def test_settings_kg_update_keeps_the_builds_pipeline(builds, tmp_path, pipeline):
    out = tmp_path / "out"
    shutil.copytree(builds / pipeline, out)
    before = _manifest(out)["pipeline"]
    with _server() as server:
        result = _update(out, server)
    assert result.exit_code == 0, result.output
    assert "added 1 papers" in result.output
    after = _manifest(out)["pipeline"]
    assert after == before  # name, config, base, min confidence: the build's own
    assert after["name"] == pipeline


def test_settings_a_relative_config_is_kept_by_absolute_path(builds, tmp_path, monkeypatch):
    here, other = tmp_path / "here", tmp_path / "other"
    here.mkdir()
    other.mkdir()
    shutil.copy(pipeline_config("fast"), here / "my.cfg")
    (other / "my.cfg").write_text("[nlp]\nnot = a kg config\n", encoding="utf-8")
    monkeypatch.chdir(here)
    build(
        [builds / "papers.jsonl"],
        here / "out",
        extract=ExtractOptions(config="my.cfg"),
        export=ExportOptions(outputs=LINES),
    )
    assert _manifest(here / "out")["pipeline"]["config"]["path"] == str(here / "my.cfg")
    monkeypatch.chdir(other)  # another my.cfg here: the build's own is still the one used
    with _server() as server:
        result = _update(here / "out", server)
    assert result.exit_code == 0, result.output
    assert _manifest(here / "out")["pipeline"]["name"] == "custom"
    with open(here / "my.cfg", "a", encoding="utf-8") as f:
        f.write("\n# changed since the build\n")
    with pytest.raises(BuildError, match=r"config: .*my\.cfg \(sha256 \w+\) then"):
        build([builds / "papers.jsonl"], Target(here / "out", add_to=True))


def test_settings_base_is_kept_and_checked(builds, tmp_path):
    import spacy

    from kg.nlp.pipeline import base_settings, default_base

    package = base_settings()["name"]
    copy = tmp_path / "my-base"
    model = spacy.util.get_package_path(default_base())
    shutil.copytree(next(p for p in model.iterdir() if (p / "config.cfg").is_file()), copy)
    out = tmp_path / "out"
    build(
        [builds / "papers.jsonl"],
        out,
        extract=ExtractOptions(base=str(copy)),
        export=ExportOptions(outputs=LINES),
    )
    assert _manifest(out)["pipeline"]["base"]["name"] == str(copy)
    more = _papers(tmp_path / "more.jsonl", ["We evaluate SegFormer on COCO."], 10)
    build(
        [more], Target(out, add_to=True), export=ExportOptions(outputs=LINES)
    )  # no --base: the build's own
    assert _manifest(out)["pipeline"]["base"]["name"] == str(copy)
    with pytest.raises(BuildError, match=rf"base: {copy} .* then, {package} .* now"):
        build([more], Target(out, add_to=True), extract=ExtractOptions(base=package))


def test_settings_update_of_the_current_directory_is_refused(builds, tmp_path, monkeypatch):
    out = tmp_path / "out"
    shutil.copytree(builds / "fast", out)
    monkeypatch.chdir(out)
    with _server() as server:
        inside = _update(".", server)
        assert inside.exit_code == 1
        assert "current directory" in inside.output
        assert not (out / ".updates").exists() and not updates_dir(out).exists()
        monkeypatch.chdir(tmp_path)
        again = _update(out, server)
    assert again.exit_code == 0, again.output  # the build is not wedged


def test_settings_resume_names_only_what_differs(builds, tmp_path):
    out = tmp_path / "out"
    papers = builds / "papers.jsonl"

    def interrupted(items, **_):
        raise KeyboardInterrupt
        yield from items

    with pytest.raises(KeyboardInterrupt):
        build([papers], out, export=ExportOptions(outputs=LINES), hooks=Hooks(progress=interrupted))
    with pytest.raises(BuildError, match=r"\(min_confidence differ\)"):
        build(
            [papers],
            Target(out, resume=True),
            extract=ExtractOptions(min_confidence=0.5),
            export=ExportOptions(outputs=LINES),
        )
    summary = build(
        [papers], Target(out, resume=True), export=ExportOptions(outputs=LINES)
    )  # the same settings
    assert summary.papers == 2


def test_settings_update_refuses_from_after_until(builds, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(builds / "fast", out)
    with _server() as server:
        args = ["update", str(out), "--base-url", server.url, "--delay", "0",
                "--from", "2026-12-02", "--until", "2026-12-01"]  # fmt: skip
        result = runner.invoke(app, args)
        assert not server.seen
    assert result.exit_code == 1 and "after --until" in result.output
    assert not updates_dir(out).exists()


def test_a_note_on_a_kept_record_is_told_as_a_note_not_a_skipped_record(tmp_path):
    papers = tmp_path / "papers.jsonl"
    rows = [{"id": "a", "abstract": TEXTS[0], "year": "abc"}, {"id": "b", "abstract": TEXTS[1]}]
    papers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    notes, skipped = [], []
    summary = build(
        [papers],
        tmp_path / "out",
        export=ExportOptions(outputs=LINES),
        hooks=Hooks(on_note=notes.append, on_skip=skipped.append),
    )
    assert [str(n) for n in notes] == [
        f"{papers}:1: year 'abc' is not a year; left out (record kept)"
    ]
    assert skipped == [] and summary.skipped == [] and summary.papers == 2
    assert summary.metadata_notes == 1


def test_a_paper_s_extraction_is_a_typed_struct_and_an_older_build_s_tables_are_read(
    builds, tmp_path
):
    """Extractions as JSON text and local entities without their ids and mentions (what
    builds before kept) give the same records when a build is added to."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from kg.orchestrate.shards import LOCALS, PAPERS

    (shard,) = (builds / "fast" / "tables" / PAPERS).glob("part-*.parquet")
    column = pq.read_table(shard).schema.field("extraction").type
    assert pa.types.is_struct(column) and "mentions" in [f.name for f in column]
    typed, as_text = tmp_path / "typed", tmp_path / "as-text"
    shutil.copytree(builds / "fast", typed)
    shutil.copytree(builds / "fast", as_text)
    old = pq.read_table(shard)  # as a build that kept JSON text wrote it
    texts = [json.dumps(e, ensure_ascii=False) for e in old.column("extraction").to_pylist()]
    old = old.set_column(2, "extraction", pa.array(texts, pa.string()))
    pq.write_table(old, as_text / "tables" / PAPERS / shard.name)
    locals_ = pq.read_table(builds / "fast" / "tables" / LOCALS / shard.name)
    assert {"local_id", "mention_ids", "scope"} <= set(locals_.schema.names)
    locals_ = locals_.drop_columns(["local_id", "mention_ids", "scope"])
    pq.write_table(locals_, as_text / "tables" / LOCALS / shard.name)
    more = _papers(tmp_path / "more.jsonl", ["We compare BERT with LoRA on GLUE."], 5)
    for out in (typed, as_text):
        assert (
            build([more], Target(out, add_to=True), export=ExportOptions(outputs=LINES)).papers == 3
        )
    assert (as_text / "extractions.jsonl").read_bytes() == (
        typed / "extractions.jsonl"
    ).read_bytes()

"""Pipelines by name: `kg build --pipeline fast|accurate`, named in the build's manifest,
its report and `kg eval`."""

from __future__ import annotations

import json

import pytest

from kg.errors import BuildError
from kg.eval import evaluate_files, format_table
from kg.orchestrate import ExportOptions, ExtractOptions, Target, build

ABSTRACTS = [
    "We propose SparseNet, a pruning method. SparseNet reaches 76.1% top-1 accuracy on "
    "ImageNet, outperforming ResNet-50.",
    "We study machine translation with Transformers and report BLEU on WMT14.",
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "abstracts.jsonl"
    path.write_text(
        "".join(json.dumps({"id": f"p{k}", "abstract": a}) + "\n" for k, a in enumerate(ABSTRACTS)),
        encoding="utf-8",
    )
    return path


def test_an_accurate_build_says_so_in_its_manifest_report_and_scores(corpus, tmp_path):
    out = tmp_path / "accurate"
    summary = build(
        [corpus],
        out,
        extract=ExtractOptions(pipeline="accurate"),
        export=ExportOptions(outputs=("jsonl", "report")),
    )
    assert summary.pipeline == "accurate"
    manifest = json.loads((out / "kg-build.json").read_text(encoding="utf-8"))
    assert manifest["pipeline"]["name"] == "accurate"
    assert "- pipeline: accurate" in (out / "report.md").read_text(encoding="utf-8")
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "p0", "entities": [], "relations": [], "results": []})
                    + "\n", encoding="utf-8")  # fmt: skip
    assert "name accurate" in format_table(evaluate_files(gold, out))
    again = build(
        [corpus], Target(out, add_to=True), export=ExportOptions(outputs=("jsonl",))
    )  # keeps its pipeline
    assert again.pipeline == "accurate"


def test_adding_to_a_build_with_the_other_pipeline_is_refused(corpus, tmp_path):
    out = tmp_path / "fast"
    assert build([corpus], out, export=ExportOptions(outputs=("jsonl",))).pipeline == "fast"
    with pytest.raises(BuildError, match="accurate"):
        build(
            [corpus],
            Target(out, add_to=True),
            extract=ExtractOptions(pipeline="accurate"),
            export=ExportOptions(outputs=("jsonl",)),
        )
    with pytest.raises(BuildError, match="unknown pipeline"):
        build([corpus], tmp_path / "x", extract=ExtractOptions(pipeline="huge"))

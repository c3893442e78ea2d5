"""The training workflow (training/project.yml) and the artefacts it ships are in step."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from kg.nlp.models.perceptron import AveragedPerceptron
from tests.conftest import ROOT, shared_path

PROJECT = ROOT / "training"
DATA = ROOT / "kg" / "nlp" / "data"


def test_project_yml_is_a_valid_spacy_project_with_the_full_workflow():
    from weasel.util import load_project_config  # spaCy projects run on weasel

    config = load_project_config(PROJECT)
    commands = {c["name"]: c for c in config["commands"]}
    assert config["workflows"]["all"] == [
        "convert",
        "train",
        "train-relations",
        "train-score",
        "train-accurate",
        "train-relations-accurate",
        "package",
        "evaluate",
        "evaluate-accurate",
    ]
    assert set(config["workflows"]["all"]) <= set(commands)
    for name in ("convert", "train", "train-relations", "train-score", "clusters", "tagger",
                 "train-accurate", "train-relations-accurate"):  # fmt: skip
        script = commands[name]["script"][0]
        path = script.split()[1]
        assert (PROJECT / path).resolve().is_file(), script


def _call(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def _run(*args: str) -> str:
    proc = _call(*args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _training_inputs(silver: bool = False) -> list[str]:
    """The --gold and --abstracts options of the training scripts (skips without them):
    gold/train.jsonl, and with ``silver`` also gold/silver/train.jsonl."""
    files = [shared_path("gold", "train.jsonl")]
    if silver:
        files.append(shared_path("gold", "silver", "train.jsonl"))
    abstracts = shared_path("corpora", "ml_abstracts.jsonl.gz")
    return [a for f in files for a in ("--gold", str(f))] + ["--abstracts", str(abstracts)]


@pytest.mark.slow
@pytest.mark.shipped
def test_shipped_vocabulary_is_what_convert_builds(tmp_path):
    terms = shared_path("datasets", "ml_vocab", "ml_terms.tsv")
    shared_path("datasets", "scierc", "train.json")
    _run("scripts/build_vocab.py", str(terms), str(tmp_path))
    for name in ("vocab.tsv", "head_priors.json"):
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name


@pytest.mark.slow
@pytest.mark.shipped
def test_shipped_acronym_table_is_what_learn_acronyms_builds(tmp_path):
    abstracts = shared_path("corpora", "ml_abstracts.jsonl.gz")
    out = tmp_path / "acronyms.tsv"
    _run("scripts/learn_acronyms.py", "--abstracts", str(abstracts), "--out", str(out))
    shipped = ROOT / "kg" / "resolve" / "data" / "acronyms.tsv"
    assert out.read_bytes() == shipped.read_bytes()


def test_learn_acronyms_reads_definitions_with_parts_in_either_order():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from learn_acronyms import definitions
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    text = (
        "We report the area under the zeta quux curve (ZQ-AUC), the Mean Wobble "
        "Error (MWE) and the rate of things (RQT)."
    )
    assert definitions(text) == [
        ("MWE", "mean wobble error"),
        ("ZQ-AUC", "area under zeta quux curve"),
    ]


@pytest.mark.slow
@pytest.mark.shipped
def test_shipped_classifier_is_what_train_builds(tmp_path):
    out = tmp_path / "entity_classifier.msgpack"
    said = _run("scripts/train_entities.py", *_training_inputs(silver=True), "--out", str(out))
    assert "1340 abstracts" in said
    assert out.read_bytes() == (DATA / "entity_classifier.msgpack").read_bytes()


@pytest.mark.slow
@pytest.mark.shipped
def test_shipped_score_classifier_is_what_train_score_decision_builds(tmp_path):
    out = tmp_path / "score_classifier.msgpack"
    said = _run(
        "scripts/train_score_decision.py", *_training_inputs(silver=True), "--out", str(out)
    )
    assert "1340 abstracts" in said and "held out none: precision" in said
    assert out.read_bytes() == (DATA / "score_classifier.msgpack").read_bytes()


def test_score_decision_table_scores_held_out_predictions_per_bias(tmp_path):
    preds = tmp_path / "preds.jsonl"
    _run("scripts/cross_validate.py", *_training_inputs(), "--limit", "8", "--folds", "2",
         "--assignments", "1", "--epochs", "1", "--seeds", "1",
         "--predictions", str(preds))  # fmt: skip
    save = tmp_path / "cv.json"
    _run("scripts/train_score_decision.py", *_training_inputs(), "--limit", "8", "--folds", "2",
         "--epochs", "2", "--seeds", "1", "--predictions", str(preds), "--save", str(save),
         "--out", str(tmp_path / "small.msgpack"))  # fmt: skip
    table = json.loads(save.read_text())["predictions"]
    assert table[0]["none_bias"] is None and table[0]["dropped"] == 0
    assert [row["dropped"] for row in table[1:]] == sorted(row["dropped"] for row in table[1:])[
        ::-1
    ]
    assert all(0 <= row["dropped_in_gold"] <= row["dropped"] for row in table)
    agree = json.loads(save.read_text())["delta_flag"]
    assert 0 <= agree["model"] <= agree["rows"] and 0 <= agree["rules"] <= agree["rows"]


def test_train_smoke_run_gives_a_model_the_pipeline_loads(tmp_path):
    from kg.nlp import load_pipeline

    out = tmp_path / "small.msgpack"
    _run(
        "scripts/train_entities.py", *_training_inputs(),
        "--limit", "5", "--epochs", "2", "--seeds", "1", "--out", str(out),
    )  # fmt: skip
    nlp = load_pipeline(overrides={"components.kg_entities.classifier.path": str(out)})
    doc = nlp("We fine-tune BERT with Low-Rank Adaptation (LoRA) on the SQuAD benchmark.")
    assert len(doc.spans["kg_entities"]) >= 2


def test_train_reports_the_gold_entities_no_candidate_matches(tmp_path):
    report = tmp_path / "unprojected.json"
    said = _run(
        "scripts/train_entities.py", *_training_inputs(), "--limit", "8", "--epochs", "1",
        "--seeds", "1", "--out", str(tmp_path / "m.msgpack"), "--report", str(report),
    )  # fmt: skip
    gold = [json.loads(line) for line in shared_path("gold", "train.jsonl").open()][:8]
    data = json.loads(report.read_text())
    assert data["entities"] == sum(len(g["entities"]) for g in gold)
    assert 0 < data["unprojected"] < data["entities"]
    assert data["not_in_text"] <= data["unprojected"]
    assert sum(t["unprojected"] for t in data["by_type"].values()) == data["unprojected"]
    names = {(g["id"], e["name"]) for g in gold for e in g["entities"]}
    assert all((row["paper"], row["name"]) in names for row in data["examples"])
    assert f"{data['unprojected']} of {data['entities']} gold entities" in said


def test_cross_validation_smoke_run_scores_every_held_out_paper(tmp_path):
    out = tmp_path / "cv.json"
    said = _run(
        "scripts/cross_validate.py", *_training_inputs(), "--limit", "6",
        "--folds", "2", "--assignments", "2", "--epochs", "2", "--seeds", "1",
        "--set", "components.kg_entities.recall_bias=12", "--save", str(out),
    )  # fmt: skip
    gold = shared_path("gold", "train.jsonl")
    papers = [json.loads(line) for line in gold.open(encoding="utf-8")][:6]
    scores = json.loads(out.read_text())
    assert len(scores["runs"]) == 2
    for run in scores["runs"]:
        assert run["papers"] == 6 and run["papers_without_prediction"] == []
        assert run["entities"]["gold"] == sum(len(p["entities"]) for p in papers)
        assert run["entities"]["pred"] > 0 and 0 < run["entities"]["f1"] < 1
    assert "mean:" in said
    assert 0 < scores["mean"]["entities_f1"] < 1


@pytest.mark.slow
def test_metric_linker_trains_on_held_out_predictions(tmp_path):
    """cross_validate.py --predictions writes each paper as models that never saw it
    extract it; train_result_linking.py learns the metric of each number from them and
    writes a model the pipeline loads."""
    from kg.nlp import load_pipeline

    predictions = tmp_path / "held_out.jsonl"
    _run(
        "scripts/cross_validate.py", *_training_inputs(), "--limit", "16",
        "--folds", "2", "--assignments", "1", "--epochs", "2", "--seeds", "1",
        "--predictions", str(predictions),
    )  # fmt: skip
    assert len(predictions.read_text().splitlines()) == 16
    model = tmp_path / "metric_linker.msgpack"
    said = _run(
        "scripts/train_result_linking.py", "--predictions", str(predictions),
        "--gold", str(shared_path("gold", "train.jsonl")), "--folds", "2", "--c", "1",
        "--out", str(model),
    )  # fmt: skip
    assert "16 papers" in said and "rules: metric right for" in said
    linker = AveragedPerceptron.from_disk(model)
    assert linker.classes == ["no", "yes"] and linker.meta["rows"] > 0
    nlp = load_pipeline(overrides={"components.kg_results.metric_linker.path": str(model)})
    assert nlp.get_pipe("kg_results").metric_linker.weights == linker.weights


@pytest.mark.slow
def test_cross_validation_trains_each_folds_relation_classifier_on_the_other_folds(tmp_path):
    """With train_relations.py's cross-fitted pairs, cross_validate.py builds each fold with
    a relation classifier that never saw it, not the shipped one (which saw every paper)."""
    pairs = tmp_path / "pairs.json"
    _run(
        "scripts/train_relations.py", *_training_inputs(), "--limit", "16", "--folds", "2",
        "--entity-seeds", "1", "--entity-epochs", "2", "--seeds", "1", "--epochs", "2",
        "--examples", str(pairs), "--out", str(tmp_path / "relations.msgpack"),
    )  # fmt: skip
    assert len(json.loads(pairs.read_text())) == 16
    runs = {}
    for name, extra in (("shipped", []), ("folds", ["--relation-examples", str(pairs)])):
        held_out = tmp_path / f"{name}.jsonl"
        _run(
            "scripts/cross_validate.py", *_training_inputs(), "--limit", "16",
            "--folds", "2", "--assignments", "1", "--epochs", "2", "--seeds", "1",
            "--predictions", str(held_out), *extra,
        )  # fmt: skip
        records = [json.loads(line) for line in held_out.read_text().splitlines()]
        assert len(records) == 16
        runs[name] = [[(r["head"], r["type"], r["tail"]) for r in p["relations"]] for p in records]
    assert [p for p in runs["shipped"] if p]  # both find relations,
    assert [p for p in runs["folds"] if p]
    assert runs["folds"] != runs["shipped"]  # not the same ones
    proc = _call(
        "scripts/cross_validate.py", *_training_inputs(), "--limit", "16",
        "--assignments", "2", "--relation-examples", str(pairs),
    )  # fmt: skip
    assert proc.returncode != 0 and "--assignments 1" in proc.stderr


def test_cross_validation_names_a_setting_the_config_lacks():
    proc = _call(
        "scripts/cross_validate.py", *_training_inputs(), "--limit", "2",
        "--set", "components.kg_nowhere.size=3",
    )  # fmt: skip
    assert proc.returncode != 0
    assert "components.kg_nowhere.size" in proc.stderr and "kg_nowhere" in proc.stderr


@pytest.mark.parametrize("pipeline", ["fast", "accurate"])
def test_relation_training_smoke_run_gives_a_calibrated_model_the_pipeline_loads(
    tmp_path, pipeline
):
    from kg.nlp import load_pipeline
    from kg.nlp.pipeline import pipeline_config

    out = tmp_path / "relations.msgpack"
    tagger_outputs = ROOT / "training/assets/tagger_oof.msgpack"
    settings = ["--set", f"components.kg_tagger.outputs={tagger_outputs}"]
    said = _run(
        "scripts/train_relations.py", *_training_inputs(), "--limit", "16", "--folds", "2",
        "--entity-seeds", "1", "--entity-epochs", "2", "--seeds", "1", "--epochs", "2",
        "--pipeline", pipeline, *(settings if pipeline == "accurate" else []),
        "--out", str(out),
    )  # fmt: skip
    assert "entity pairs from 16 abstracts" in said and "calibration" in said
    meta = AveragedPerceptron.from_disk(out).meta
    a, b = meta["calibration"]
    assert a > 0  # a larger margin over "no relation" means a likelier relation
    assert isinstance(meta["bias"], float)
    nlp = load_pipeline(
        config=pipeline_config(pipeline),
        overrides={"components.kg_relations.classifier.path": str(out)},
    )
    doc = nlp(
        "We propose StrideNet for temporal action detection. StrideNet uses a VideoMAE "
        "encoder and outperforms ActionFormer on THUMOS14."
    )
    rels = doc._.kg_relations
    assert all(r["rule"] == "kg_relations.classifier" and 0 < r["confidence"] < 1 for r in rels)


def test_shipped_models_are_described_by_meta_json():
    """kg/nlp/data/meta.json (spaCy's package meta) names every shipped file with its size
    and digest, where it comes from and its licence, and the pipeline's scores; a model
    retrained without `scripts/write_meta.py` fails here."""
    import hashlib

    meta = json.loads((DATA / "meta.json").read_text(encoding="utf-8"))
    files = sorted(
        p.relative_to(DATA).as_posix() for p in DATA.rglob("*") if p.is_file()
        and p.name != "meta.json" and "__pycache__" not in p.parts
    )  # fmt: skip
    assert sorted(meta["files"]) == files
    for name, record in meta["files"].items():
        data = (DATA / name).read_bytes()
        assert record["bytes"] == len(data), name
        assert record["sha256"] == hashlib.sha256(data).hexdigest(), name
        assert record["what"] and record["made_by"] and record["licence"], name
    for measured in ("silver_test", "dev", "cross_validation"):
        assert 0.3 < meta["performance"][measured]["entities_f1"] < 1, measured
        assert 0.3 < meta["performance_accurate"][measured]["entities_f1"] < 1, measured
    assert (DATA / "entity_classifier.msgpack").read_bytes()[:1] != b"{"  # binary, not JSON


@pytest.mark.parametrize(
    "name", ["relation_classifier.msgpack", "relation_classifier_accurate.msgpack"]
)
def test_shipped_relation_classifier_carries_its_cross_validated_settings(name):
    meta = AveragedPerceptron.from_disk(DATA / name).meta
    assert meta["calibration"][0] > 0 and meta["bias"] <= 0


def test_cluster_smoke_run_gives_a_hierarchy_the_pipeline_reads(tmp_path):
    from kg.nlp import load_pipeline
    from kg.nlp.entities.vocabulary import load_word_clusters

    out = tmp_path / "clusters.tsv"
    abstracts = shared_path("corpora", "ml_abstracts.jsonl.gz")
    said = _call(
        "scripts/train_clusters.py", "--abstracts", str(abstracts), "--limit", "300",
        "--min-count", "3", "--epochs", "1", "--workers", "1", "--levels", "4", "16",
        "--out", str(out),
    )  # fmt: skip
    assert said.returncode == 0, said.stderr
    assert "300 abstracts" in said.stderr
    clusters = load_word_clusters(str(out))
    assert len(clusters) > 16
    coarse_of: dict[str, str] = {}
    for coarse, fine in clusters.values():
        assert coarse.startswith("4:") and fine.startswith("16:")
        assert coarse_of.setdefault(fine, coarse) == coarse  # each fine cluster in one coarse
    nlp = load_pipeline(overrides={"components.kg_entities.word_clusters.path": str(out)})
    doc = nlp("We evaluate the model on image classification.")
    feats = [f for _, _, fs in nlp.get_pipe("kg_entities").featurised_spans(doc) for f in fs]
    assert any(f.startswith("c_head=16:") for f in feats)


def test_shipped_classifier_reads_the_shipped_clusters():
    from kg.nlp.entities.vocabulary import load_word_clusters

    clusters = load_word_clusters()
    assert clusters is not None and len(clusters) > 10_000
    assert {len(ids) for ids in clusters.values()} == {3}
    weights = AveragedPerceptron.from_disk(DATA / "entity_classifier.msgpack").weights
    assert any(feat.startswith("c_head=1024:") for feat in weights)


def test_a_named_cluster_file_that_is_missing_is_an_error(tmp_path):
    from kg.nlp.entities.vocabulary import load_word_clusters

    missing = tmp_path / "nowhere.tsv"
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
        load_word_clusters(str(missing))
    assert load_word_clusters("none") is None


def test_tagger_training_smoke_run_gives_an_onnx_model_and_out_of_fold_outputs(tmp_path):
    """scripts/train_tagger.py on a few abstracts: two folds' held-out outputs, and a
    tagger (ONNX int8) the accurate pipeline runs. Needs the train extra (torch)."""
    import importlib.util
    import os

    if importlib.util.find_spec("torch") is None:
        if os.environ.get("KG_REQUIRE_TRAIN"):
            pytest.fail("torch is missing and KG_REQUIRE_TRAIN is set: pip install -e '.[train]'")
        pytest.skip("torch is not installed (pip install -e '.[train]')")
    from kg.nlp import load_pipeline
    from kg.nlp.models.tagger import read_outputs
    from kg.nlp.pipeline import pipeline_config

    out, outputs = tmp_path / "tagger", tmp_path / "oof.msgpack"
    _run(
        "scripts/train_tagger.py", *_training_inputs(), "--limit", "6", "--epochs", "1",
        "--folds", "2", "--outputs", str(outputs), "--out", str(out),
    )  # fmt: skip
    assert len(read_outputs(outputs)) == 6  # every paper, each from the fold that held it out
    assert {p.name for p in out.iterdir()} == {"model.onnx", "tokenizer.json"}
    nlp = load_pipeline(
        config=pipeline_config("accurate"), overrides={"components.kg_tagger.model": str(out)}
    )
    doc = nlp("We fine-tune BERT on the SQuAD benchmark.")
    assert doc._.kg_tagger.shape == (len(doc), 9)


@pytest.mark.slow
@pytest.mark.shipped
def test_shipped_edge_calibration_is_what_calibrate_edges_fits(tmp_path):
    """kg/graph/data/edge_calibration.json comes from the judged edges it names."""
    out = tmp_path / "edge_calibration.json"
    said = _run("scripts/calibrate_edges.py", "--out", str(out))
    assert "<- chosen" in said
    shipped = ROOT / "kg" / "graph" / "data" / "edge_calibration.json"
    assert out.read_bytes() == shipped.read_bytes()
    assert json.loads(out.read_text())["source"] == "benchmarks/edges/calibration.tsv"


def test_calibrate_edges_refuses_verdicts_that_do_not_match_the_draw(tmp_path):
    draw = tmp_path / "draw.jsonl"
    draw.write_text(json.dumps({"type": "USES", "head": "A", "tail": "B", "support": 2,
                                "confidences": [0.5, 0.4], "digest": "x"}) + "\n")  # fmt: skip
    verdicts = tmp_path / "verdicts.tsv"
    verdicts.write_text("type\thead\ttail\tverdict\twhy\nUSES\tA\tC\tright\tshown\n")
    table = tmp_path / "table.tsv"
    proc = _call("scripts/calibrate_edges.py", "--table", str(table), "--add", str(draw),
                 str(verdicts))  # fmt: skip
    assert proc.returncode != 0 and "verdicts.tsv:2: not a verdict on USES A B" in proc.stderr
    assert not table.exists()
    verdicts.write_text("type\thead\ttail\tverdict\twhy\nUSES\tA\tB\tright\tshown\n")
    _run("scripts/calibrate_edges.py", "--table", str(table), "--add", str(draw), str(verdicts))
    assert "0.500,0.400" in table.read_text()

"""The encoder tagger (ONNX Runtime on the CPU), what the entity recognizer reads of it,
and the accurate pipeline that runs it."""

from __future__ import annotations

import configparser

import numpy as np
import pytest

from kg.nlp.entities.tagger_features import tagger_candidates, tagger_features
from kg.nlp.models.tagger import TAGS, PieceOutputs, read_outputs, text_key, write_outputs
from kg.resources import nlp_data_dir

TEXT = "We fine-tune ResNet-50 for image classification on ImageNet and report top-1 accuracy."


@pytest.fixture(scope="module")
def accurate():
    from kg.nlp import load_pipeline
    from kg.nlp.pipeline import pipeline_config

    return load_pipeline(config=pipeline_config("accurate"))


def test_the_shipped_tagger_runs_on_the_cpu_and_writes_a_row_per_token(accurate):
    doc = accurate(TEXT)
    probs = doc._.kg_tagger
    assert probs.shape == (len(doc), len(TAGS))
    assert np.allclose(probs.sum(axis=1), 1, atol=0.02)
    tagged = {(doc[c.start : c.end].text, c.label) for c in tagger_candidates(doc, probs)}
    assert ("ImageNet", "Dataset") in tagged
    assert any(label == "Method" and "ResNet" in text for text, label in tagged)


def test_the_tagger_answers_a_batch_as_it_answers_each_text(accurate):
    texts = [TEXT, "Short.", "BLEU improves by 2 points on WMT14 English-German translation."]
    alone = [accurate(t)._.kg_tagger for t in texts]
    together = [d._.kg_tagger for d in accurate.pipe(texts, batch_size=3)]
    for a, b in zip(alone, together, strict=True):
        assert np.allclose(a, b, atol=1e-4)


def test_a_long_text_is_tagged_in_overlapping_windows_to_its_end(accurate):
    text = " ".join([TEXT] * 30)  # about 600 word pieces: three windows
    doc = accurate(text)
    assert doc._.kg_tagger.shape[0] == len(doc)
    tail = doc[-20:].as_doc()
    last = [tail[c.start : c.end].text for c in tagger_candidates(tail, doc._.kg_tagger[-20:])]
    assert "ImageNet" in last


def test_precomputed_outputs_stand_in_for_the_model_for_their_text(tmp_path):
    from kg.nlp import load_pipeline
    from kg.nlp.pipeline import pipeline_config

    text = "Transformers win."
    probs = np.zeros((2, len(TAGS)), dtype=np.float32)
    probs[:, TAGS.index("B-Task")] = 1.0  # nothing a model would say: only read from the file
    outputs = {text_key(text): PieceOutputs(np.array([[0, 12], [13, 16]]), probs)}
    write_outputs(outputs, tmp_path / "outputs.msgpack")
    back = read_outputs(tmp_path / "outputs.msgpack")[text_key(text)]
    assert np.array_equal(back.offsets, outputs[text_key(text)].offsets)
    assert np.allclose(back.probs, probs, atol=1 / 255)
    nlp = load_pipeline(
        config=pipeline_config("accurate"),
        overrides={"components.kg_tagger.outputs": str(tmp_path / "outputs.msgpack")},
    )
    doc = nlp(text)
    assert doc._.kg_tagger[0].argmax() == TAGS.index("B-Task")
    assert doc._.kg_tagger[2].argmax() == 0  # "." has no piece of its own in the file: O
    other = nlp("Something else entirely.")  # not in the file: the model answers
    assert other._.kg_tagger.shape[0] == len(other)


def test_tagger_spans_become_candidates_with_features_the_classifier_weighs(accurate):
    recognizer = accurate.get_pipe("kg_entities")
    doc = accurate(TEXT)
    featurised = recognizer.featurised_spans(doc)
    by_text = {span.text: (cands, feats) for span, cands, feats in featurised}
    cands, feats = by_text["ImageNet"]
    assert any(c.rule == "tagger" and c.label == "Dataset" for c in cands)
    assert any(f.startswith("tg_type=Dataset:") for f in feats)
    assert all(any(f.startswith("tg_type=") for f in f_) for _, _, f_ in featurised)


def test_the_fast_pipeline_runs_no_tagger(nlp):
    assert "kg_tagger" not in nlp.pipe_names
    assert nlp(TEXT)._.kg_tagger is None


def test_tagger_features_say_when_a_span_is_cut_short():
    o, b, i = np.eye(len(TAGS))[[0, TAGS.index("B-Method"), TAGS.index("I-Method")]]
    probs = np.array([o, b, i, i, o])
    assert "tg_after_inside=4" in tagger_features(probs, 1, 3)  # the mention goes on
    assert "tg_after_inside=0" in tagger_features(probs, 1, 4)
    assert "tg_first_inside=4" in tagger_features(probs, 2, 4)  # it began before


def test_the_accurate_config_is_the_fast_one_with_the_tagger():
    """accurate.cfg repeats pipeline.cfg: only the lines marked "accurate:" may differ."""

    def sections(name: str) -> dict[str, dict[str, str]]:
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(nlp_data_dir() / name, encoding="utf-8")
        return {s: dict(parser[s]) for s in parser.sections()}

    fast, accurate = sections("pipeline.cfg"), sections("accurate.cfg")
    assert accurate.pop("components.kg_tagger")["factory"] == '"kg_tagger"'
    classifier = "components.kg_entities.classifier"
    assert accurate[classifier].pop("shipped") == '"entity_classifier_accurate.msgpack"'
    relations = "components.kg_relations.classifier"
    assert accurate[relations].pop("shipped") == '"relation_classifier_accurate.msgpack"'
    steps = accurate["nlp"].pop("pipeline")
    assert steps == fast["nlp"].pop("pipeline").replace(
        '"kg_entities"', '"kg_tagger","kg_entities"'
    )
    assert accurate == fast

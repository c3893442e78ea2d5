"""Relations read from what the sentence says: stated wins, lists, proposals."""

from __future__ import annotations

from kg.nlp.text import clean_text

_STRIDENET = (
    "We propose StrideNet, a detector for temporal action detection. StrideNet uses a "
    "VideoMAE encoder. On THUMOS14, StrideNet outperforms the ActionFormer detector by "
    "2.6 mAP."
)


def _relations(doc) -> set[tuple[str, str, str]]:
    return {
        (doc.text[r["head"][0] : r["head"][1]], r["type"], doc.text[r["tail"][0] : r["tail"][1]])
        for r in doc._.kg_relations
    }


def test_pipeline_reads_a_stated_win(nlp):
    """Whatever the loser's entity confidence (ActionFormer is a low-confidence mention
    here): a win a rule reads is not judged by how sure its ends are."""
    assert ("StrideNet", "OUTPERFORMS", "ActionFormer") in _relations(nlp(clean_text(_STRIDENET)))


def test_a_list_of_compared_models_states_no_win(nlp):
    """Models named together are compared, not ranked: a win needs a sentence stating it."""
    text = (
        "We present GlintNet, a detector for retinal lesions. We benchmark VGG16, VGG19, "
        "ResNet-50 and DenseNet-121 on the APTOS dataset, and GlintNet outperforms "
        "ResNet-50 by 3.1 points of accuracy."
    )
    wins = {(h, t) for h, r, t in _relations(nlp(text)) if r == "OUTPERFORMS"}
    assert ("GlintNet", "ResNet-50") in wins
    assert not wins & {("VGG16", "VGG19"), ("VGG19", "VGG16"), ("VGG16", "ResNet-50"),
                       ("ResNet-50", "DenseNet-121")}  # fmt: skip


def test_pipeline_proposals_and_relations(nlp):
    doc = nlp(clean_text(_STRIDENET))
    proposed = {doc.text[s:e] for s, e, _ in doc._.kg_proposed}
    assert "StrideNet" in proposed
    rels = _relations(doc)
    assert ("StrideNet", "EVALUATED_ON", "THUMOS14") in rels
    assert all(
        r["rule"].startswith("kg_relations.") and 0 < r["confidence"] <= 1
        for r in doc._.kg_relations
    )

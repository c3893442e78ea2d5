"""Entity recognition: abbreviations, phrases, proposals, names, the classifier's gate and
the entities' calibrated confidence."""

from __future__ import annotations

import pytest
import spacy
from spacy.tokens import Span

from kg.ingest import Record
from kg.nlp.entities.abbreviations import find_abbreviations, find_long_form
from kg.nlp.entities.phrases import content_tokens, inner_phrases, is_name_like, light_trim
from kg.nlp.entities.proposals import (
    _name_after_comma,
    _proposed_tasks_as_methods,
    is_named,
    proposed_method,
)
from kg.nlp.extensions import ENTITY_SPANS
from kg.nlp.text import clean_text
from tests.conftest import EXAMPLES


def test_token_table_reads_what_token_objects_read(nlp):
    from kg.nlp.entities.phrases import TokenTable

    texts = [clean_text(t) for t in EXAMPLES.read_text(encoding="utf-8").split("\n\n")]
    for doc in nlp.pipe(texts[:4] + ["See https://x.org or a@b.org, 3.5 or ten.  Done ."]):
        tab = TokenTable(doc)
        expected = [
            (t.text, t.lower_, t.lemma_.lower(), t.pos_, t.tag_, t.dep_, t.head.i)
            + (t.is_title, t.is_alpha, t.is_stop, bool(t.whitespace_), t.like_url)
            + (t.is_punct, t.is_sent_start is True, t.like_num, t.like_email)
            for t in doc
        ]
        got = list(
            zip(
                tab.text,
                tab.lower,
                tab.lemma,
                tab.pos,
                tab.tag,
                tab.dep,
                tab.head,
                tab.is_title,
                tab.is_alpha,
                tab.is_stop,
                tab.space_after,
                tab.like_url,
                tab.is_punct,
                tab.is_sent_start,
                tab.like_num,
                tab.like_email,
                strict=True,
            )
        )
        assert got == expected
        for start in range(0, len(doc), 7):
            for end in (start + 1, min(start + 5, len(doc))):
                assert tab.span_text(start, end) == doc[start:end].text
        assert [c.text for c in tab.noun_chunks] == [c.text for c in doc.noun_chunks]


@pytest.mark.parametrize(
    ("text", "short", "long"),
    [
        ("We use Low-Rank Adaptation (LoRA) here.", "LoRA", "Low-Rank Adaptation"),
        ("Temporal action detection (TAD) is hard.", "TAD", "Temporal action detection"),
        ("large language models (LLMs) are big", "LLMs", "large language models"),
        (
            "we apply Non-negative Tensor Factorization (NTF) to",
            "NTF",
            "Non-negative Tensor Factorization",
        ),
        ("We present QuRo (Query Routing Optimizer), a router.", "QuRo", "Query Routing Optimizer"),
    ],
)
def test_abbreviations_find_pairs(text, short, long):
    ((s, lf),) = find_abbreviations(text)
    assert text[s[0] : s[1]] == short and text[lf[0] : lf[1]] == long


def test_abbreviations_reject_unmatched_parentheses():
    assert find_abbreviations("This works well (see Table 2) in practice.") == []
    assert find_long_form("XYZ", "nothing matches here ") is None


def test_abbreviations_component_marks_later_uses():
    nlp = spacy.blank("en")
    nlp.add_pipe("kg_abbreviations")
    doc = nlp("Model Inversion Attacks (MIAs) leak data. Existing MIAs and one MIA fail.")
    shorts = [doc.text[i["short"][0] : i["short"][1]] for i in doc._.kg_abbreviations]
    assert shorts == ["MIAs", "MIAs", "MIA"]
    assert all(
        doc.text[i["long"][0] : i["long"][1]] == "Model Inversion Attacks"
        for i in doc._.kg_abbreviations
    )


def test_abbreviations_short_form_first_needs_matching_letters():
    assert find_abbreviations("We train BERT (a strong encoder) on text.") == []


def test_mentions_cover_whole_hyphenated_words(nlp):
    doc = nlp("We compare zeta-mini-7b with Rho-as-a-Service on new data.")
    texts = {s.text for s in doc.spans["kg_entities"]}
    assert "zeta-mini-7b" in texts
    assert not texts & {"mini-7b", "Rho", "as-a-Service"}


def test_inner_phrases_of_a_noun_phrase(nlp):
    doc = nlp("Several continual learning methods fail.")
    chunk = next(c for c in doc.noun_chunks if "methods" in c.text)
    inner = {s.text for s in inner_phrases(light_trim(chunk))}
    assert {"continual learning", "learning methods", "learning"} <= inner
    assert chunk.text not in inner
    doc = nlp("We report few-shot results.")
    chunk = next(c for c in doc.noun_chunks if "results" in c.text)
    assert "shot results" not in {s.text for s in inner_phrases(light_trim(chunk))}


def test_noun_phrases_are_cut_after_their_last_comma(nlp):
    doc = nlp("We propose a scalable, hierarchical multi-agent framework for planning.")
    chunk = next(c for c in doc.noun_chunks if "framework" in c.text)
    lexicon = nlp.get_pipe("kg_entities").lexicon
    assert light_trim(chunk).text == "hierarchical multi-agent framework"
    assert content_tokens(chunk, lexicon).text == "hierarchical multi-agent framework"


@pytest.fixture(scope="module")
def rules_nlp():
    """The pipeline with its relation rules alone (no relation classifier)."""
    from kg.nlp import load_pipeline

    return load_pipeline(overrides={"components.kg_relations.classifier.path": "none"})


def test_metrics_are_not_tied_to_a_task_named_elsewhere(rules_nlp):
    nlp = rules_nlp
    doc = nlp(
        clean_text(
            "We propose StrideNet for temporal action detection. "
            "It runs fast. The accuracy of StrideNet is high."
        )
    )
    assert not [r for r in doc._.kg_relations if r["type"] == "MEASURED_BY"]


def test_unnamed_proposal_after_a_macro_object(nlp):
    doc = nlp(
        clean_text(r"We propose {\mname}, a plug-and-play distillation framework that is fast.")
    )
    proposed = {doc.text[s:e] for s, e, _ in doc._.kg_proposed}
    assert proposed == {"plug-and-play distillation framework"}


def _proposed(doc):
    return {doc.text[s:e]: rule.split(".")[-1] for s, e, rule in doc._.kg_proposed}


def test_proposal_named_after_a_generic_object(nlp):
    doc = nlp(
        "In this study, we build a simple baseline method, Frozen Trunk Probing (FTP), "
        "that isolates the effect of the classifier head."
    )
    assert "Frozen Trunk Probing" in _proposed(doc)
    assert "baseline method" not in _proposed(doc)
    # the same, read off the words when the parse misses the apposition
    doc = nlp.make_doc("we build a baseline method, Frozen Trunk Probing (FTP), that works")
    name = Span(doc, 6, 9, label="Method")
    info = {f"{name.start_char}:{name.end_char}": {"rule": "kg_entities.abbreviation"}}
    assert _name_after_comma(doc, 5, [name], info) == name
    assert _name_after_comma(doc, 4, [name], info) is None
    assert _name_after_comma(doc, 5, [name], {}) is None  # a descriptive phrase, not a name


def test_proposal_in_an_agentless_passive_that_defines_an_acronym(nlp):
    doc = nlp(
        "To close this gap, a layer-wise token pruning scheme (LTP) was developed: "
        "redundant tokens are dropped early."
    )
    assert _proposed(doc) == {"layer-wise token pruning scheme": "passive"}
    doc = nlp("A sparse routing network (SRN) was proposed by earlier work for this task.")
    assert _proposed(doc) == {}  # someone else's
    doc = nlp("Spoken dialogue models (SDMs) are designed to answer questions aloud.")
    assert _proposed(doc) == {}  # a description of a kind of model


def test_a_proposed_task_is_retyped_as_a_method_with_its_short_form(nlp):
    doc = nlp.make_doc("We propose Dense Caption Grounding (DCG). DCG is fast.")
    long_form, short, again = doc[2:5], doc[6:7], doc[9:10]
    spans = [Span(doc, s.start, s.end, label="Task") for s in (long_form, short, again)]
    info = {
        f"{s.start_char}:{s.end_char}": {"rule": "x.abbreviation", "group": long_form.text}
        for s in spans[:2]
    }
    proposed = [[long_form.start_char, long_form.end_char, "x.propose"]]
    assert [m.label_ for m in _proposed_tasks_as_methods(spans, proposed, info)] == ["Method"] * 3
    assert [m.label_ for m in _proposed_tasks_as_methods(spans, [], info)] == ["Task"] * 3


def test_a_name_that_only_describes_something_else_is_not_a_coined_name(nlp):
    doc = nlp("We build an LLM-driven planner with GraphNet.")
    modifier, name = doc[3:6], doc[8:9]
    assert (modifier.text, name.text) == ("LLM-driven", "GraphNet")
    info = {f"{s.start_char}:{s.end_char}": {"rule": "kg_entities.name"} for s in (modifier, name)}
    assert not is_named(modifier, info)
    assert is_named(name, info)


def test_the_main_method_is_the_longer_of_two_nested_proposals(nlp):
    doc = nlp.make_doc("We propose sparse Transformer. Our adaptively sparse Transformer is fast.")
    short, long_ = Span(doc, 2, 4, label="Method"), Span(doc, 6, 9, label="Method")
    assert long_.text == "adaptively sparse Transformer"
    doc._.kg_proposed = [[m.start_char, m.end_char, "x.propose"] for m in (short, long_)]
    assert proposed_method(doc, [short, long_]) == long_
    doc._.kg_proposed = [[short.start_char, short.end_char, "x.propose"]]
    assert proposed_method(doc, [short, long_]) == short


@pytest.mark.parametrize("word", ["LoRA", "GPT-4", "ResNet", "COCO", "wav2vec"])
def test_entities_name_like(word):
    assert is_name_like(word)


@pytest.mark.parametrize("word", ["Model", "the", "Transformers", "data"])
def test_entities_not_name_like(word):
    assert not is_name_like(word)


def _ents(doc):
    return {(s.text, s.label_) for s in doc.spans[ENTITY_SPANS]}


def test_pipeline_finds_each_entity_type(nlp):
    doc = nlp(
        clean_text(
            "Temporal action detection (TAD) is a core video task. "
            "We propose StrideNet, a detector that builds on a VideoMAE encoder. "
            "On the THUMOS14 benchmark StrideNet reaches 71.4% "
            "mAP, and it outperforms ActionFormer."
        )
    )
    ents = _ents(doc)
    assert ("Temporal action detection", "Task") in ents and ("TAD", "Task") in ents
    assert ("StrideNet", "Method") in ents
    assert ("THUMOS14", "Dataset") in ents
    assert ("mAP", "Metric") in ents


def test_phrase_stats_verdicts():
    from kg.nlp.entities.vocabulary import PhraseStats, suffix_form

    stats = PhraseStats(
        seen={"state of the art": 300, "rag": 30, "few shot learning": 20, "*-based": 150},
        taken={"rag": {"Method": 27, "Task": 1}, "few shot learning": {"Task": 12, "Method": 6}},
    )
    assert stats.verdict("state of the art") == "O"
    assert stats.verdict("rag") == "Method"
    assert stats.verdict("few shot learning") is None  # the annotators' types disagree
    # ... but taken 18 times, never as a data set: a rule's Dataset becomes their Task
    assert stats.verdict("few shot learning", label="Dataset") == "Task"
    assert stats.verdict("few shot learning", label="Method") is None
    assert stats.verdict("unseen phrase") is None
    assert suffix_form("LLM-based") == suffix_form("deep learning-based") == "*-based"
    assert suffix_form("rule based") is None


def test_gate_follows_the_annotators_record_whatever_rule_found_a_phrase(tmp_path):
    from kg.nlp import load_pipeline
    from kg.nlp.entities.vocabulary import write_phrase_stats

    text = (
        "We propose an LLM-based agent built on Retrieval-Augmented Generation (RAG) that "
        "uses Light Detection and Ranging (LiDAR) scans and reaches 81.2% accuracy on KITTI."
    )
    stats = tmp_path / "phrase_stats.tsv"
    empty = {"Method": 0, "Task": 0, "Dataset": 0, "Metric": 0}
    write_phrase_stats(
        {
            "*-based": (150, empty),
            "lidar": (20, empty),
            "retrieval augmented generation": (30, {**empty, "Task": 25}),
        },
        stats,
    )
    plain = load_pipeline(overrides={"components.kg_entities.phrase_stats.path": "none"})
    gated = load_pipeline(overrides={"components.kg_entities.phrase_stats.path": str(stats)})

    def found(pipeline):
        doc = pipeline(text)
        return {s.text: s.label_ for s in doc.spans["kg_entities"]}

    before, after = found(plain), found(gated)
    assert {"LiDAR", "Light Detection and Ranging"} & set(before)
    assert not {"LLM-based", "LiDAR", "Light Detection and Ranging"} & set(after)
    assert after.get("Retrieval-Augmented Generation") == "Task"  # the record's type
    assert after.get("RAG") == "Task"  # the acronym follows its long form
    assert after.get("KITTI") == before.get("KITTI") == "Dataset"


def test_gate_keeps_generic_measures_as_result_terms_and_acronyms_take_their_long_form(
    tmp_path,
):
    """A measure the annotators never take, not even beside a number ("score"), is no
    entity but still names a result's metric; one they take beside numbers (latency)
    stays an entity; a hyphenated adjective in front of a noun is no metric; an
    acronym's record, which mixes its meanings, does not retype its long form; a
    term's acronym keeps a real type."""
    from kg.nlp import load_pipeline
    from kg.nlp.entities.vocabulary import number_form, write_phrase_stats
    from kg.nlp.pipeline import doc_to_extraction

    text = (
        "Jailbreak attacks threaten LLMs. Our attack reaches an attack success rate (ASR) "
        "of 95% on AdvBench and a score of 85.1 with a latency of 20 ms, and the ASR stays "
        "high with a high-precision filter. The depth head reaches a mean error (ME) of 3.1 "
        "on KITTI."
    )
    empty = {"Method": 0, "Task": 0, "Dataset": 0, "Metric": 0}
    rows = {
        "score": (120, empty),
        number_form("score"): (40, empty),
        "latency": (60, {**empty, "Metric": 4}),
        number_form("latency"): (20, {**empty, "Metric": 15}),
        "asr": (20, {**empty, "Task": 16, "Metric": 2}),
        "mean error": (50, empty),  # a term beside its number, and so its acronym
        number_form("mean error"): (20, empty),
    }
    stats = tmp_path / "phrase_stats.tsv"
    write_phrase_stats(rows, stats)
    nlp = load_pipeline(overrides={"components.kg_entities.phrase_stats.path": str(stats)})
    doc = nlp(text)
    extraction = doc_to_extraction(doc, Record(id="p", text=text))
    found = {m.text: m.type for m in extraction.mentions}
    assert set(found.values()) <= {"Method", "Task", "Dataset", "Metric"}
    assert "score" not in found and "high-precision" not in found
    assert found.get("latency") == "Metric"
    assert found.get("ASR") == found.get("attack success rate") == "Metric"
    assert "mean error" not in found and found.get("ME") in (None, "Metric")
    by_value = {r.value: r for r in extraction.results}
    assert by_value[85.1].metric == "score" and by_value[85.1].metric_mention is None
    assert by_value[95.0].metric_mention is not None
    assert by_value[3.1].metric in ("ME", "mean error")


def test_confidence_calibration_fits_steps_per_group_and_falls_back(tmp_path):
    from kg.nlp.entities.calibration import ConfidenceCalibration

    scores = [0.5 + 0.45 * k / 99 for k in range(100)]
    items = [("kg_entities.chunk", "Method", False, s, s > 0.7) for s in scores]
    items += [("kg_entities.name", "Task", True, 0.9, k % 4 != 0) for k in range(20)]
    model = ConfidenceCalibration.fit(items, min_items=50)
    assert model("kg_entities.chunk", "Method", False, 0.9) == 0.99  # right every time
    assert model("kg_entities.chunk", "Method", False, 0.55) == 0.01  # never
    assert ("kg_entities.name", "Task", "proposed") not in model.steps  # too few: falls back
    assert model("kg_entities.name", "Task", True, 0.9) == model("other", "Task", True, 0.9)
    path = tmp_path / "calibration.tsv"
    model.to_disk(path)
    assert ConfidenceCalibration.from_disk(path) == model


def test_pipeline_mentions_take_their_calibrated_confidence(tmp_path):
    from kg.nlp import load_pipeline

    path = tmp_path / "calibration.tsv"
    path.write_text("rule\ttype\tproposed\tscore\tright\n*\t*\t*\t0.0\t0.42\n*\t*\t*\t1.0\t0.42\n")
    text = "We propose FooNet, which improves accuracy on ImageNet over ResNet-50."
    nlp = load_pipeline(overrides={"components.kg_confidence.calibration.path": str(path)})
    raw = load_pipeline(overrides={"components.kg_confidence.calibration.path": "none"})
    doc, before = nlp(text), raw(text)
    info, raw_info = doc._.kg_mention_info, before._.kg_mention_info
    assert doc.spans["kg_entities"] and {m["confidence"] for m in info.values()} == {0.42}
    assert {m["confidence"] for m in raw_info.values()} != {0.42}


def test_proposal_whose_verb_the_tagger_reads_as_an_adjective(nlp):
    # "present" tagged ADJ, yet parsed with a subject and an object: still a proposal
    doc = nlp("We present BitDance, a scalable image generator that predicts binary tokens.")
    assert "present" in {t.text for t in doc if t.pos_ != "VERB"}
    assert _proposed(doc) == {"BitDance": "propose"}
    doc = nlp("We present ReVision, a retinal model that learns from the alignment of images.")
    assert doc[0].dep_ != "nsubj"  # "We" parsed as the root: the words say it all the same
    assert _proposed(doc) == {"ReVision": "propose"}

"""The spaCy components, on blank pipelines where they allow it and on kg's real pipeline."""

from __future__ import annotations

import pytest
import spacy
from spacy.tokens import Span
from spacy.util import registry

from kg.ingest import Record
from kg.nlp import extract
from kg.nlp.entities.abbreviations import find_abbreviations, find_long_form
from kg.nlp.entities.phrases import content_tokens, inner_phrases, is_name_like, light_trim
from kg.nlp.entities.proposals import (
    _name_after_comma,
    _proposed_tasks_as_methods,
    is_named,
    proposed_method,
)
from kg.nlp.extensions import ENTITY_SPANS
from kg.nlp.results.component import find_numbers
from kg.nlp.text import clean_text, clean_text_map
from tests.conftest import EXAMPLES


def test_factory_registrations_are_exactly_kg_components():
    names = {n for n in registry.factories.get_all() if n.startswith("kg_")}
    assert names == {
        "kg_abbreviations",
        "kg_attribute_ruler",
        "kg_confidence",
        "kg_entities",
        "kg_lemmatizer",
        "kg_proposals",
        "kg_results",
        "kg_relations",
        "kg_tagger",
    }
    misc = {n for n in registry.misc.get_all() if n.startswith("kg.")}
    assert misc == {
        "kg.lexicon.v1",
        "kg.gazetteer.v1",
        "kg.head_priors.v1",
        "kg.word_clusters.v1",
        "kg.entity_classifier.v1",
        "kg.relation_classifier.v1",
        "kg.metric_linker.v1",
        "kg.score_classifier.v1",
        "kg.parse_number.v1",
        "kg.phrase_stats.v1",
        "kg.entity_calibration.v1",
    }
    assert "kg.tokenizer_tweaks.v1" in registry.callbacks.get_all()
    assert "kg.faster_base_components.v1" in registry.callbacks.get_all()


def _token_annotations(nlp, texts):
    names = [n for n in nlp.pipe_names if not n.startswith("kg_")]
    with nlp.select_pipes(enable=names):
        return [
            [(t.text, t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_) for t in doc]
            for doc in nlp.pipe(texts)
        ]


def test_faster_base_components_annotate_exactly_like_spacys(nlp):
    from kg.nlp import load_pipeline
    from kg.nlp.models.base_components import IndexedAttributeRuler, MatmulOps, MemoLemmatizer

    assert all(isinstance(node.ops, MatmulOps) for node in nlp.get_pipe("tok2vec").model.walk())
    assert isinstance(nlp.get_pipe("attribute_ruler"), IndexedAttributeRuler)
    assert isinstance(nlp.get_pipe("lemmatizer"), MemoLemmatizer)
    assert nlp.get_pipe("attribute_ruler")._pattern_index() is not None  # no silent fallback
    spacys = load_pipeline(overrides={"nlp.after_pipeline_creation": None})
    assert type(spacys.get_pipe("attribute_ruler")).__name__ == "AttributeRuler"
    texts = [clean_text(t) for t in EXAMPLES.read_text(encoding="utf-8").split("\n\n")]
    texts += ["I can't say he'd won't, y' know; nothin' is 'cause o' them.  Done ."]
    ours = _token_annotations(nlp, texts)
    assert ours == _token_annotations(spacys, texts)
    assert ours == _token_annotations(nlp, texts)  # and again, from what it remembered


def test_memo_lemmatizer_leaves_its_lookup_tables_as_loaded(nlp):
    lemmatizer = nlp.get_pipe("lemmatizer")
    doc = nlp("The encoders were trained on unlabelled corpora by the authors.")
    assert [t.lemma_ for t in doc][1:4] == ["encoder", "be", "train"]
    index = lemmatizer.lookups.get_table("lemma_index")
    assert all(isinstance(words, list) for words in index.values())  # sets only inside
    restored = type(lemmatizer)(nlp.vocab, None, "copy", mode="rule")
    restored.from_bytes(lemmatizer.to_bytes())
    assert restored.lookups.to_bytes() == lemmatizer.lookups.to_bytes()


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


def test_indexed_attribute_ruler_uses_spacys_matcher_for_operators(nlp):
    from spacy.pipeline import AttributeRuler

    from kg.nlp.models.base_components import IndexedAttributeRuler

    ruler = IndexedAttributeRuler(nlp.vocab, "rules")
    ruler.add_patterns(
        [
            {"patterns": [[{"LOWER": "deep"}, {"LOWER": "learning"}]], "attrs": {"TAG": "X1"}},
            {"patterns": [[{"TAG": "NN", "OP": "+"}]], "attrs": {"TAG": "X2"}},
        ]
    )
    assert ruler._pattern_index() is None  # "OP" is beyond the index
    doc = ruler(nlp.make_doc("deep learning works"))
    assert [t.tag_ for t in doc] == ["X1", "", ""]
    ruler = IndexedAttributeRuler(nlp.vocab, "rules")
    ruler.add_patterns(
        [
            {
                "patterns": [[{"LOWER": "deep"}, {"LOWER": {"REGEX": "^learn"}}]],
                "attrs": {"TAG": "X1"},
            }
        ]
    )
    assert ruler._pattern_index() is not None
    doc = ruler(nlp.make_doc("deep learning and deep nets"))
    assert [t.tag_ for t in doc] == ["X1", "", "", "", ""]
    # patterns added or loaded after use are matched as spaCy's ruler matches them
    other = IndexedAttributeRuler(nlp.vocab, "rules")
    other.add_patterns([{"patterns": [[{"LOWER": "nets"}]], "attrs": {"TAG": "X2"}}])
    spacys = AttributeRuler(nlp.vocab, "rules")
    spacys.add_patterns(ruler.patterns)
    for each in (ruler, spacys):
        each.from_bytes(other.to_bytes())
        each.add_patterns([{"patterns": [[{"LOWER": "and"}]], "attrs": {"TAG": "X3"}}])
    text = "deep learning and deep nets"
    tags = [t.tag_ for t in ruler(nlp.make_doc(text))]
    assert tags == [t.tag_ for t in spacys(nlp.make_doc(text))]
    assert tags[2:] == ["X3", "", "X2"]
    fresh = [  # as many patterns as before, so only clearing can tell the sets apart
        {"patterns": [[{"LOWER": word}]], "attrs": {"TAG": f"Y{k}"}}
        for k, word in enumerate(["deep", "learning", "nets"])
    ]
    for each in (ruler, spacys):
        each.clear()
        each.add_patterns(fresh)
    tags = [t.tag_ for t in ruler(nlp.make_doc(text))]
    assert tags == [t.tag_ for t in spacys(nlp.make_doc(text))] == ["Y0", "Y1", "", "Y0", "Y2"]


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


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("We test on CityScenes-5K.", "CityScenes-5K"),
        ("Pretrained on ImageNet-21K and tuned", "ImageNet-21K"),
        ("It runs Falcon-40B.", "Falcon-40B"),
    ],
)
def test_tokenizer_keeps_sized_names_whole(nlp, text, token):
    assert token in [t.text for t in nlp.make_doc(text)]


def test_tokenizer_still_splits_units_and_percentages(nlp):
    words = [t.text for t in nlp.make_doc("It gains 3-5% with 10K samples.")]
    assert words[2:] == ["3", "-", "5", "%", "with", "10", "K", "samples", "."]


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


def test_text_clean_maps_offsets_back():
    raw = r"We get 11\% and 4.6$\times$ speedup with \textbf{FastNet}."
    clean = clean_text_map(raw)
    assert clean.text == "We get 11% and 4.6x speedup with FastNet."
    start = clean.text.index("FastNet")
    assert raw[slice(*clean.span(start, start + len("FastNet")))] == "FastNet"
    assert [(n, u) for _, _, _, n, u in find_numbers(clean.text)] == [("11", "%"), ("4.6", "x")]


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (r"\texttt{D}ual-\texttt{H}ead \texttt{O}ptimization", "Dual-Head Optimization"),
        (r"the Fr\'echet Inception Distance", "the Fréchet Inception Distance"),
        (r"Fr{\'e}chet and G\"odel", "Fréchet and Gödel"),
        (r"an $\ell_2$ penalty", "an ℓ2 penalty"),
        (r"a $4\times$ speedup, 4\times less", "a 4x speedup, 4x less"),
        (r"as in~\cite{smith2020} and \href{https://x.org}{here}.", "as in  and here."),
        ("plain text, no markup", "plain text, no markup"),
    ],
)
def test_text_clean_removes_latex(raw, clean):
    assert clean_text(raw) == clean


def test_latex_never_reaches_names_and_offsets_point_into_the_original():
    text = (
        r"We propose \texttt{D}ual-\texttt{H}ead \texttt{O}ptimization (DHO), a method for "
        r"image generation. DHO lowers the Fr\'echet Inception Distance by $4\times$ on "
        r"the \textbf{CelebA} dataset."
    )
    (paper,) = extract([Record(id="p1", text=text)])
    names = {m.text for m in paper.mentions}
    assert "Dual-Head Optimization" in names
    assert not [n for n in names if "\\" in n or "texttt" in n or "{" in n]
    for m in paper.mentions:
        cleaned = clean_text(text[m.start : m.end])
        assert " ".join(cleaned.split()) == m.text, (m, text[m.start : m.end])
    for start, end in paper.sentences:
        assert 0 <= start < end <= len(text)


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


@pytest.mark.parametrize(
    ("sentence", "value", "unit", "delta", "metric"),
    [
        ("Our model, FooNet, reaches 60.2 AP on the COCO benchmark.", 60.2, None, False, "AP"),
        (
            "FooNet achieves a 94.0% average success rate on LIBERO.",
            94.0,
            "%",
            False,
            "average success rate",
        ),
        ("FooNet improves accuracy by 3% over the baseline.", 3.0, "%", True, "accuracy"),
        ("FooNet runs with a 1.75x speedup over BarNet.", 1.75, "x", True, None),
        ("FooNet is 4times faster than BarNet.", 4.0, "x", True, "speed"),
    ],
)
def test_results_patterns(nlp, sentence, value, unit, delta, metric):
    doc = nlp(clean_text(sentence))
    rows = [r for r in doc._.kg_results if r["value"] == value]
    assert rows, doc._.kg_results
    row = rows[0]
    assert (row["unit"], row["delta"]) == (unit, delta)
    if metric is not None:
        assert row["metric"] == metric


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [  # each number form: the (value, unit) rows the sentence gives
        ("FooNet reaches a BLEU-4 of 72,64% on WMT14.", [(72.64, "%")]),  # decimal comma
        (
            "FooNet reaches a throughput of 1,234.5 and 91.2% accuracy.",
            [(1234.5, None), (91.2, "%")],
        ),
        ("FooNet improves accuracy by 5-15% over BarNet.", [(5.0, "%"), (15.0, "%")]),
        ("FooNet reaches 10.2%-14.3% accuracy.", [(10.2, "%"), (14.3, "%")]),
        ("FooNet reaches an accuracy of 85.3 ± 1.2 on BazSet.", [(85.3, None)]),  # spread
        ("FooNet reaches 3.1 FID at 256×256 and a 2.4x speedup.", [(3.1, None), (2.4, "x")]),
        ("As in [12], FooNet reaches 71.5% accuracy.", [(71.5, "%")]),  # citation
        ("ResNet-50 with GPT-4 reaches 76.1% top-1 accuracy.", [(76.1, "%")]),  # names
    ],
)
def test_results_number_forms(nlp, sentence, expected):
    doc = nlp(clean_text(sentence))
    assert [(r["value"], r["unit"]) for r in doc._.kg_results] == expected


def test_results_both_ends_of_a_range_share_metric_and_delta(nlp):
    doc = nlp(clean_text("FooNet runs 7-15x faster than BarNet."))
    rows = doc._.kg_results
    assert [(r["value"], r["unit"]) for r in rows] == [(7.0, "x"), (15.0, "x")]
    assert rows[0]["metric"] == rows[1]["metric"] and rows[0]["delta"] and rows[1]["delta"]


def test_results_say_whether_the_paper_s_own_method_or_a_baseline_reported_them(nlp):
    text = (
        "We propose FooNet, a sparse detector. FooNet reaches 60.2 AP on COCO, while DETR "
        "reaches 55.1 AP. The numbers were 12.5% higher than expected."
    )
    doc = nlp(clean_text(text))
    own = {r["value"]: r["own"] for r in doc._.kg_results}
    assert own[60.2] is True and own[55.1] is False  # the nearest subject's number


def test_results_respectively_gives_each_value_its_own_data_set(nlp):
    text = (
        "FooNet reaches 81.2%, 76.4% and 90.1% accuracy on CIFAR-10, CIFAR-100 and ImageNet, "
        "respectively."
    )
    doc = nlp(clean_text(text))
    got = [(r["value"], r["metric"], doc.text[slice(*r["dataset_span"])]) for r in doc._.kg_results]
    assert got == [(81.2, "accuracy", "CIFAR-10"), (76.4, "accuracy", "CIFAR-100"),
                   (90.1, "accuracy", "ImageNet")]  # fmt: skip
    doc = nlp(clean_text(text.replace(", respectively", "")))
    datasets = [doc.text[slice(*r["dataset_span"])] for r in doc._.kg_results]
    assert datasets == ["CIFAR-10"] * 3  # no "respectively": the nearest data set, as before


def test_results_take_the_data_set_of_their_own_clause(nlp):
    text = "FooNet reaches a BLEU-4 of 38.2 on MS COCO, and 81.3% top-1 accuracy on ImageNet."
    doc = nlp(clean_text(text))
    got = {r["value"]: doc.text[slice(*r["dataset_span"])] for r in doc._.kg_results}
    assert got == {38.2: "MS COCO", 81.3: "ImageNet"}


def test_results_of_a_clause_closed_by_a_data_set_take_it_and_the_list_s_metric(nlp):
    text = (
        "We propose GlioNet for tumor segmentation. Experiments on the KiTS19, KiTS20 and "
        "KiTS21 datasets give Dice scores of 91.2% and 90.1% for the kidney and the tumor "
        "respectively in KiTS19; 89.3% and 88.4% in KiTS20; and 87.5% and 86.6% in KiTS21."
    )
    doc = nlp(clean_text(text))
    got = [
        (r["value"], r["metric"], doc.text[slice(*r["dataset_span"])], r["own"])
        for r in doc._.kg_results
    ]
    assert got == [
        (91.2, "Dice", "KiTS19", True), (90.1, "Dice", "KiTS19", True),
        (89.3, "Dice", "KiTS20", True), (88.4, "Dice", "KiTS20", True),
        (87.5, "Dice", "KiTS21", True), (86.6, "Dice", "KiTS21", True),
    ]  # fmt: skip


def test_results_say_the_setting_their_metric_and_data_set_are_qualified_by(nlp):
    doc = nlp(
        "We propose FooTok, an image tokenizer. FooTok achieves state-of-the-art results on "
        "ImageNet reconstruction, reaching 0.81 FID and 23.1 PSNR."
    )
    assert [(r["value"], r["condition"]) for r in doc._.kg_results] == [
        (0.81, "reconstruction"), (23.1, "reconstruction")
    ]  # fmt: skip
    doc = nlp(
        "We propose FooDrive. On the NAVSIM benchmark, FooDrive achieves a PDMS of 91.2 and "
        "a Best-of-N PDMS of 95.1."
    )
    assert [(r["value"], r["condition"]) for r in doc._.kg_results] == [
        (91.2, None), (95.1, "Best-of-N")
    ]  # fmt: skip


def test_results_of_a_method_run_with_a_part_are_the_method_s(nlp):
    doc = nlp(
        "A three phase pipeline progresses from a baseline GCN with AAL (73.3% accuracy, "
        "AUC=0.74), to a Graph Attention Network ensemble achieving 95.0% accuracy."
    )
    methods = {r["value"]: doc.text[slice(*r["method_span"])] for r in doc._.kg_results}
    assert methods[73.3] == "GCN" and methods[95.0] == "Graph Attention Network"


def test_results_score_decision_drops_counts_and_list_indices_and_keeps_scores(nlp):
    from kg.nlp.pipeline import load_pipeline

    pipe = nlp.get_pipe("kg_results")
    assert pipe.score_classifier is not None and pipe.score_classifier.meta["bias"]
    rules_only = load_pipeline(overrides={"components.kg_results.score_classifier.path": "none"})
    assert rules_only.get_pipe("kg_results").score_classifier is None
    for text, rules, kept in [
        ("We evaluate accuracy over 5 random seeds and 3 datasets.", [5.0, 3.0], []),
        ("FooNet studies accuracy in two ways: (1) accuracy under noise and (2) accuracy "
         "under shift.", [1.0, 2.0], []),
        ("FooNet reaches 71.3% accuracy on BazSet.", [71.3], [71.3]),
    ]:  # fmt: skip
        assert [r["value"] for r in rules_only(clean_text(text))._.kg_results] == rules
        assert [r["value"] for r in nlp(clean_text(text))._.kg_results] == kept


def test_results_a_number_with_a_label_of_its_own_takes_no_earlier_metric(nlp):
    doc = nlp(clean_text("FooNet reaches 95.0% accuracy (AUC=0.98) on BazSet."))
    assert [(r["value"], r["metric"]) for r in doc._.kg_results] == [(95.0, "accuracy")]
    doc = nlp(clean_text("FooNet reaches an accuracy: 95.0% on BazSet."))
    assert [(r["value"], r["metric"]) for r in doc._.kg_results] == [(95.0, "accuracy")]


def test_results_of_a_sized_variant_of_the_proposed_method_are_the_paper_s_own(nlp):
    text = (
        "We propose ZorpRL, a reinforcement learning framework for tool use. ZorpRL-7B "
        "reaches 43.3% accuracy on AIME24, while Qwen2.5-Math-7B reaches 30.0% accuracy."
    )
    doc = nlp(clean_text(text))
    own = {r["value"]: r["own"] for r in doc._.kg_results}
    assert own == {43.3: True, 30.0: False}


def test_results_skip_years_and_model_sizes(nlp):
    doc = nlp("In 2023 we trained a 7B model on 1,200 images.")
    assert doc._.kg_results == []


def test_extract_provenance_offsets(nlp):
    text = "We propose StrideNet for temporal action detection. StrideNet uses ResNet-50."
    (ex,) = list(extract([Record(id="p", text=text)]))
    for m in ex.mentions:
        assert text[m.start : m.end] == m.text
        start, end = ex.sentences[m.sentence]
        assert start <= m.start < m.end <= end
        assert m.rule.startswith(("kg_entities.", "kg_proposals.")) and 0 < m.confidence <= 1
    assert any(m.proposed and m.text == "StrideNet" for m in ex.mentions)


def test_extract_multiprocess_matches_single_process():
    records = [
        Record(
            id=f"p{i}",
            text=f"We propose Net{i}, which uses ResNet-50 for image "
            f"classification and reaches {80 + i}.5% accuracy on ImageNet.",
        )
        for i in range(6)
    ]
    one = [(e.record.id, [m.text for m in e.mentions]) for e in extract(records, batch_size=2)]
    two = [
        (e.record.id, [m.text for m in e.mentions])
        for e in extract(records, n_process=2, batch_size=2)
    ]
    assert one == two
    assert [i for i, _ in one] == [f"p{i}" for i in range(6)]


def test_extract_multiprocess_reports_a_pipeline_that_fails_to_load(tmp_path):
    records = [Record(id="p0", text="We propose Net0 for image classification.")]
    with pytest.raises(FileNotFoundError, match="missing.cfg"):
        list(extract(records, n_process=2, config=tmp_path / "missing.cfg"))


def test_extract_reads_a_config_again_after_it_is_edited(tmp_path):
    from thinc.api import Config

    from kg.resources import nlp_data_dir

    config = Config().from_disk(nlp_data_dir() / "pipeline.cfg", interpolate=False)
    path = tmp_path / "pipeline.cfg"
    records = [Record(id="p0", text="We propose StrideNet for image classification on ImageNet.")]

    def relations_with(bias: float | None) -> int:
        config["components"]["kg_relations"]["bias"] = bias  # 1e9: the classifier keeps none
        config.to_disk(path)
        return sum(len(e.relations) for e in extract(records, config=path))

    assert relations_with(None) > 0
    assert relations_with(1e9) == 0  # the same path, edited: not the cached pipeline
    assert relations_with(None) > 0


def test_chunks_keep_their_new_words_only_up_to_the_string_budget(nlp):
    from kg.nlp.running.workers import process_records as _process_records

    strings = nlp.vocab.strings

    def records(tag: str) -> list[Record]:
        text = f"We propose Zq{tag}Net, which uses ResNet-50 for image classification."
        return [Record(id=tag, text=text)]

    before = len(strings)
    _process_records(nlp, records("a"), 8, kept_strings=before + 10_000)
    assert "ZqaNet" in strings and len(strings) > before  # kept: under the budget
    before = len(strings)
    [ex] = _process_records(nlp, records("b"), 8, kept_strings=before)
    assert "ZqbNet" not in strings and len(strings) == before  # freed: budget reached
    assert "ZqbNet" in {m.text for m in ex.mentions}


@pytest.mark.parametrize("n_process", [1, 2])
def test_nothing_to_extract_loads_no_pipeline(tmp_path, n_process):
    """A resumed or added-to build with no new paper loads no pipeline and starts no
    workers: a config that does not exist is never read."""
    missing = tmp_path / "missing.cfg"
    assert list(extract([], n_process=n_process, config=missing)) == []
    with pytest.raises(Exception, match="missing.cfg"):
        list(extract([Record(id="p", text="We train a model.")], config=missing))


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


def test_a_failing_kg_component_goes_to_the_error_handler(nlp):
    """kg's components are spaCy Pipes: nlp.pipe hands a failing document to the handler
    set on the component (spaCy's default raises), naming the component."""
    from kg.nlp.component import KgComponent

    class Failing(KgComponent):
        def __init__(self, name):
            self.name = name

        def process(self, doc):
            raise ValueError(f"cannot read {doc.text!r}")

    failing = Failing("kg_failing")
    with pytest.raises(ValueError, match="cannot read"):
        list(failing.pipe([nlp.make_doc("x")]))
    seen = []
    failing.set_error_handler(lambda name, proc, docs, exc: seen.append((name, str(exc))))
    assert list(failing.pipe([nlp.make_doc("a b")])) == []
    assert seen == [("kg_failing", "cannot read 'a b'")]


def test_metric_linker_scores_each_metric_of_the_paper_and_no_metric():
    """The linker's candidates are the paper's Metric names (the mention nearest the number,
    its own sentence first) and "no metric"; a linear model picks the best scored."""
    from kg.nlp.models.perceptron import AveragedPerceptron
    from kg.nlp.results.linking import MetricMention, NumberRow, link_metric, metric_choices

    text = "Recall is what we track. Our model reaches 91.2% recall, and lowers latency."
    at = text.index("91.2")
    number = NumberRow(at, at + 5, 1, "%", False, None)
    mentions = [
        MetricMention("Recall", 0, 6, 0),
        MetricMention("recall", text.index("recall,"), text.index("recall,") + 6, 1),
        MetricMention("latency", text.index("latency"), text.index("latency") + 7, 1),
    ]
    choices = metric_choices(number, mentions)
    assert sorted(choices) == ["latency", "recall"]
    assert choices["recall"].sentence == 1  # the mention in the number's sentence
    near = AveragedPerceptron(["no", "yes"], {"adjacent|after": {"yes": 2.0}, "null": {"yes": 1}})
    chosen, p = link_metric(near, number, mentions, text)
    assert chosen.text == "recall" and 0.5 < p < 1
    none = AveragedPerceptron(["no", "yes"], {"null": {"yes": 3.0}})
    assert link_metric(none, number, mentions, text)[0] is None


def test_proposal_whose_verb_the_tagger_reads_as_an_adjective(nlp):
    # "present" tagged ADJ, yet parsed with a subject and an object: still a proposal
    doc = nlp("We present BitDance, a scalable image generator that predicts binary tokens.")
    assert "present" in {t.text for t in doc if t.pos_ != "VERB"}
    assert _proposed(doc) == {"BitDance": "propose"}
    doc = nlp("We present ReVision, a retinal model that learns from the alignment of images.")
    assert doc[0].dep_ != "nsubj"  # "We" parsed as the root: the words say it all the same
    assert _proposed(doc) == {"ReVision": "propose"}

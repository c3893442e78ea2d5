"""Reported results: numbers, their metric, data set, method and setting, the score
decision and the metric linker."""

from __future__ import annotations

import pytest

from kg.nlp.text import clean_text


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

"""Keys, local grouping and cross-paper resolution."""

from __future__ import annotations

from kg.ingest import Record
from kg.nlp.extraction import Mention, PaperExtraction
from kg.resolve import Resolver, entity_key, local_entities, normalise_name


def _mention(text, type_="Method", long_form=None, proposed=False):
    return Mention(
        text=text,
        type=type_,
        start=0,
        end=len(text),
        sentence=0,
        rule="t",
        confidence=0.9,
        proposed=proposed,
        long_form=long_form,
    )


def _paper(pid, *mentions):
    return PaperExtraction(Record(id=pid, text="x"), [(0, 1)], list(mentions))


def test_resolve_keys_are_deterministic():
    assert entity_key("Method", "Low-Rank Adaptation") == "method:low-rank-adaptation"
    assert entity_key("Method", "low rank adaptations") == "method:low-rank-adaptation"
    assert entity_key("Task", "ÉTUDE") != entity_key("Task", "etude")  # non-ASCII kept apart


def test_resolve_normalisation_follows_gold_rules():
    assert normalise_name("Vision-Language_Models/") == "vision language model"
    assert normalise_name("mAP@0.5 (%)") == "map0.5 %"
    assert normalise_name("class") == "class"


def test_resolve_local_acronym_and_long_form_are_one_entity():
    paper = _paper(
        "p",
        _mention("Low-Rank Adaptation", long_form="Low-Rank Adaptation"),
        _mention("LoRA", long_form="Low-Rank Adaptation"),
        _mention("LoRA"),
    )
    ents = local_entities(paper)
    lora = [e for e in ents if e.name == "Low-Rank Adaptation"]
    assert len(lora) == 1 and "LoRA" in lora[0].aliases and len(lora[0].mentions) == 2


def test_resolve_case_hyphen_plural_variants_merge_across_papers():
    r = Resolver()
    r.add(local_entities(_paper("a", _mention("Vision Transformer"))))
    r.add(local_entities(_paper("b", _mention("vision-transformers"))))
    res = r.resolve()
    (ent,) = res.entities.values()
    assert ent.support == 2 and {"vision-transformers"} <= set(ent.aliases) | {ent.name}


def test_resolve_acronym_merges_across_papers_when_unambiguous():
    r = Resolver()
    r.add(
        local_entities(
            _paper(
                "a",
                _mention("Low-Rank Adaptation", long_form="Low-Rank Adaptation"),
                _mention("LoRA", long_form="Low-Rank Adaptation"),
            )
        )
    )
    r.add(local_entities(_paper("b", _mention("LoRA"))))
    res = r.resolve()
    assert len(res.entities) == 1
    assert any("acronym" in m.reason for m in res.merges)


def test_resolve_ambiguous_acronym_stays_apart():
    r = Resolver()
    r.add(
        local_entities(
            _paper(
                "a",
                _mention("Mean Absolute Error", "Metric", "Mean Absolute Error"),
                _mention("MAE", "Metric", "Mean Absolute Error"),
            )
        )
    )
    r.add(
        local_entities(
            _paper(
                "b",
                _mention("Masked Auto Encoder", "Metric", "Masked Auto Encoder"),
                _mention("MAE", "Metric", "Masked Auto Encoder"),
            )
        )
    )
    r.add(local_entities(_paper("c", _mention("MAE", "Metric"))))
    assert len(r.resolve().entities) == 3


def test_resolve_fuzzy_merges_near_duplicates_but_not_across_types_or_versions():
    r = Resolver()
    r.add(local_entities(_paper("a", _mention("retrieval augmented generaton"))))  # typo
    r.add(local_entities(_paper("b", _mention("retrieval augmented generation"))))
    r.add(local_entities(_paper("c", _mention("retrieval augmented generation", "Task"))))
    r.add(local_entities(_paper("d", _mention("ResNet-50 backbone network"))))
    r.add(local_entities(_paper("e", _mention("ResNet-10 backbone network"))))
    res = r.resolve()
    types = sorted(e.type for e in res.entities.values())
    assert types == ["Method", "Method", "Method", "Task"]
    assert any(m.reason.startswith("fuzzy") for m in res.merges)


def _resolve(*papers, long_forms=None):
    r = Resolver(long_forms=long_forms)
    for pid, mentions in papers:
        r.add(local_entities(_paper(pid, *mentions)), pid)
    return r.resolve()


def test_resolve_keys_keep_whole_words():
    assert entity_key("Task", "autonomous driving") == "task:autonomous-driving"
    assert entity_key("Metric", "LPIPS") == "metric:lpips"
    assert entity_key("Method", "VLMs") == entity_key("Method", "VLM") == "method:vlm"
    assert entity_key("Method", "YOLOv8s") != entity_key("Method", "YOLOv8")


def test_resolve_display_name_is_the_form_most_papers_use():
    res = _resolve(
        ("a", [_mention("clip")]),
        ("b", [_mention("CLIP")]),
        ("c", [_mention("CLIP")]),
    )
    (ent,) = res.entities.values()
    assert ent.name == "CLIP" and "clip" in ent.aliases


def test_resolve_long_form_names_an_entity_only_when_two_papers_define_it():
    kitti = "Karlsruhe Institute of Technology and Toyota Technological Institute"
    res = _resolve(
        ("a", [_mention(kitti, "Dataset", kitti), _mention("KITTI", "Dataset", kitti)]),
        ("b", [_mention("KITTI", "Dataset")]),
        long_forms={"KITTI": (kitti.lower(), 9, 9)},  # what the corpus spells KITTI out as
    )
    (ent,) = res.entities.values()
    assert ent.name == "KITTI"
    lora = [_mention("Low-Rank Adaptation", long_form="Low-Rank Adaptation"),
            _mention("LoRA", long_form="Low-Rank Adaptation")]  # fmt: skip
    res = _resolve(("a", lora), ("b", lora))
    (ent,) = res.entities.values()
    assert ent.name == "Low-Rank Adaptation" and ent.aliases == ["LoRA"]


def test_resolve_acronym_joins_the_long_form_most_definitions_give():
    def defined(long):
        return [_mention(long, long_form=long), _mention("VLM", long_form=long)]

    res = _resolve(
        ("a", defined("vision-language model")),
        ("b", defined("vision-language model")),
        ("c", defined("vision-language model")),
        ("d", defined("visual language model")),
        ("e", [_mention("VLM")]),
    )
    keys = {e.key: e for e in res.entities.values()}
    assert keys["method:vision-language-model"].support == 4  # a, b, c and e's bare VLM
    assert "method:visual-language-model" in keys  # the other long form stays apart
    (merge,) = [m for m in res.merges if m.rule == "acronym"]
    assert merge.score == 0.75 and merge.papers == ("a", "b", "c") and merge.paper_count == 3


def test_resolve_a_long_form_that_does_not_spell_the_acronym_joins_nothing():
    bad = "with extensive evaluation across mathematical"
    res = _resolve(
        ("a", [_mention(bad, "Dataset", bad), _mention("AIME", "Dataset", bad)]),
        ("b", [_mention("AIME", "Dataset")]),
    )
    assert not res.merges and len(res.entities) == 2


def test_resolve_one_definition_does_not_claim_an_acronym_many_papers_use():
    long = "Continuous Thought"
    res = _resolve(
        ("a", [_mention(long, long_form=long), _mention("CT", long_form=long)]),
        *[(f"u{i}", [_mention("CT")]) for i in range(5)],
    )
    assert not [m for m in res.merges if m.rule == "acronym"]


def test_resolve_one_papers_coinage_joins_a_bare_use_elsewhere_only_by_convention():
    long = "See What I Mean"
    papers = (("a", [_mention(long, long_form=long), _mention("SWIM", long_form=long)]),
              ("b", [_mention("SWIM")]))  # fmt: skip
    res = _resolve(*papers, long_forms={})
    assert not res.merges and len(res.entities) == 2  # b's SWIM may be swimming
    conventions = {"SWIM": ("see what i mean", 8, 10)}  # 8 of 10 definitions: the convention
    res = _resolve(*papers, long_forms=conventions)
    (merge,) = res.merges
    assert merge.rule == "acronym" and merge.source == "method:swim"
    disputed = {"SWIM": ("see what i mean", 7, 10)}  # 7 of 10: no convention to go by
    assert not _resolve(*papers, long_forms=disputed).merges
    res = _resolve(*papers, ("c", papers[0][1]), long_forms={})  # two papers define it so
    assert [m.source for m in res.merges] == ["method:swim"]


def test_resolve_a_name_and_the_same_with_its_acronym_spelled_out_are_one():
    conventions = {"ZQL": ("zonal query language", 9, 9), "Zap": ("zero access point", 9, 9)}
    res = _resolve(
        ("a", [_mention("multimodal ZQLs")]),
        ("b", [_mention("Multimodal Zonal Query Languages")]),
        ("c", [_mention("video zap")]),  # a word, not an acronym: not spelled out
        ("d", [_mention("video zero access point")]),
        long_forms=conventions,
    )
    (merge,) = res.merges
    assert merge.rule == "spelled out" and merge.source == "method:multimodal-zql"
    assert merge.target == "method:multimodal-zonal-query-language"
    assert not _resolve(
        *[
            (p, [_mention(n)])
            for p, n in (("a", "multimodal ZQLs"), ("b", "multimodal zonal query languages"))
        ],
        long_forms={},
    ).merges


def test_resolve_names_equal_without_separators_are_one_and_versions_compare_exactly():
    res = _resolve(
        ("a", [_mention("CIFAR-100", "Dataset")]),
        ("b", [_mention("CIFAR100", "Dataset")]),
        ("c", [_mention("GPT 4o models")]),
        ("d", [_mention("GPT 4 models")]),
    )
    names = sorted(e.name for e in res.entities.values())
    assert names == ["CIFAR-100", "GPT 4", "GPT 4o"]  # "models" is a generic head
    (merge,) = res.merges
    assert merge.rule == "separators" and merge.paper_count == 1


def test_resolve_acronyms_that_differ_in_case_compete_for_one_key():
    def defined(long, short):
        return [_mention(long, long_form=long), _mention(short, long_form=long)]

    res = _resolve(
        ("a", defined("supervised fine-tuning", "SFT")),
        ("b", defined("supervised fine-tuning", "SFT")),
        ("e", defined("supervised fine-tuning", "SFT")),
        ("c", defined("shape-from-template", "SfT")),
        ("d", [_mention("SFT")]),
    )
    keys = {e.key: e for e in res.entities.values()}
    assert keys["method:supervised-fine-tuning"].support == 4
    assert keys["method:shape-from-template"].support == 1


def test_resolve_one_type_per_thing_where_papers_clearly_agree_homonyms_apart():
    pe = [(f"m{i}", [_mention("prompt engineering")]) for i in range(4)]
    sg = [(f"g{i}", [_mention("scene graphs", "Dataset")]) for i in range(2)]
    sr = [(f"s{i}", [_mention("SR", "Metric")]) for i in range(4)]
    res = _resolve(
        *pe,
        ("t0", [_mention("prompt engineering", "Task")]),
        *sg,
        ("h0", [_mention("scene graphs")]),
        ("h1", [_mention("scene graphs")]),
        *sr,
        ("r0", [_mention("SR", "Task")]),  # super-resolution, not success rate
    )
    keys = {e.key: e for e in res.entities.values()}
    assert keys["method:prompt-engineering"].support == 5
    assert "task:prompt-engineering" not in keys
    assert {"dataset:scene-graph", "method:scene-graph"} <= set(keys)  # 2 against 2: apart
    assert {"metric:sr", "task:sr"} <= set(keys)  # an acronym: no vote
    (vote,) = [m for m in res.merges if m.rule == "type vote"]
    assert vote.source == "task:prompt-engineering" and vote.score == 0.8


def test_resolve_fuzzy_merges_spellings_not_other_names():
    res = _resolve(
        ("a", [_mention("rotary positional embedding")]),
        ("b", [_mention("rotary position embedding")]),
        ("c", [_mention("RouterXBench", "Dataset")]),
        ("d", [_mention("RouterBench", "Dataset")]),
        ("e", [_mention("synthetic XOR dataset", "Dataset")]),
        ("f", [_mention("synthetic OCR dataset", "Dataset")]),
    )
    assert len(res.entities) == 5 and [m.rule for m in res.merges] == ["fuzzy"]


def test_resolve_fuzzy_joins_forms_of_a_word_not_words_one_letter_apart():
    res = _resolve(
        ("a", [_mention("content understanding", "Task")]),
        ("b", [_mention("context understanding", "Task")]),
        ("c", [_mention("mechanistic interpretability toolkit")]),
        ("d", [_mention("mechanistic interpretability tool")]),
        ("e", [_mention("tumour microenvironment modelling", "Task")]),
        ("f", [_mention("tumor microenvironment modeling", "Task")]),
    )
    assert len(res.entities) == 5
    (merge,) = res.merges
    assert merge.rule == "fuzzy" and "tumo" in merge.source


def test_resolve_head_word_variants_are_one():
    res = _resolve(
        ("a", [_mention("Dice score", "Metric")]),
        ("b", [_mention("Dice", "Metric")]),
        ("c", [_mention("LLM-as-a-judge")]),
        ("d", [_mention("LLM-as-judge")]),
    )
    assert len(res.entities) == 2
    assert sorted(m.rule for m in res.merges) == ["head word", "separators"]


def test_resolve_common_words_do_not_join_through_a_head_word():
    res = _resolve(
        ("a", [_mention("hybrid framework")]),
        ("b", [_mention("hybrid model")]),
        ("c", [_mention("hybrid")]),
    )
    assert len(res.entities) == 3 and not res.merges


def test_resolve_a_head_word_joins_a_name_only_where_it_names_the_thing_itself():
    res = _resolve(
        ("a", [_mention("LLM pipeline")]),  # a pipeline made of LLMs, not an LLM
        ("b", [_mention("LLM")]),
        ("c", [_mention("R scores", "Metric")]),  # a one-letter name stands for many things
        ("d", [_mention("R", "Metric")]),
        ("e", [_mention("Random Forest models")]),
        ("f", [_mention("Random Forest")]),
    )
    (merge,) = res.merges
    assert merge.rule == "head word" and merge.source == "method:random-forest-model"
    assert len(res.entities) == 5


def test_resolve_a_bare_acronym_of_another_type_joins_what_papers_define_it_as():
    ece = "expected calibration error"
    sr = [("s0", [_mention("success rate", "Metric", "success rate"),
                  _mention("SR", "Metric", "success rate")]),
          ("s1", [_mention("super-resolution", "Task", "super-resolution"),
                  _mention("SR", "Task", "super-resolution")])]  # fmt: skip
    res = _resolve(
        ("a", [_mention(ece, "Metric", ece), _mention("ECE", "Metric", ece)]),
        ("b", [_mention(ece, "Metric", ece), _mention("ECE", "Metric", ece)]),
        *[(f"d{i}", [_mention("ECE", "Dataset")]) for i in range(4)],
        *sr,
        ("s2", [_mention("SR", "Dataset")]),
    )
    keys = {e.key: e for e in res.entities.values()}
    assert keys["metric:expected-calibration-error"].support == 6  # the metric's type wins
    assert "dataset:ece" not in keys
    assert "dataset:sr" in keys  # defined as two other things: left alone


def test_resolve_no_cross_type_join_for_an_acronym_its_own_type_defines_too():
    def defined(long, short, type_):
        return [_mention(long, type_, long), _mention(short, type_, long)]

    res = _resolve(
        ("a", defined("text-to-speech", "TTS", "Task")),
        ("b", defined("text-to-speech", "TTS", "Task")),
        ("c", defined("test-time scaling", "TTS", "Method")),  # no Method long form wins,
        ("d", defined("tree-to-sequence", "TTS", "Method")),  # but Methods define it too
        ("e", [_mention("TTS", "Method")]),
    )
    keys = {e.key for e in res.entities.values()}
    assert "method:tts" in keys


def test_resolve_long_forms_that_differ_in_articles_are_one_definition():
    def defined(long):
        return [_mention(long, "Metric", long), _mention("AUROC", "Metric", long)]

    long = "area under the receiver operating characteristic curve"
    res = _resolve(
        ("a", defined(long)),
        ("b", defined(long.replace("the ", ""))),
        ("c", [_mention("AUROC", "Metric")]),
        ("d", [_mention("AUROC", "Metric")]),
    )
    (ent,) = res.entities.values()  # two definitions, one long form: all four join
    assert ent.support == 4 and ent.name == "AUROC"


def test_resolve_unnamed_proposals_stay_with_their_paper():
    """Two papers' "synthetic dataset" are different data; a named one is one thing."""
    res = _resolve(
        ("a", [_mention("synthetic dataset", "Dataset", proposed=True)]),
        ("b", [_mention("synthetic dataset", "Dataset", proposed=True)]),
        ("c", [_mention("synthetic dataset", "Dataset")]),  # used, not made here
        ("d", [_mention("SynthSet dataset", "Dataset", proposed=True)]),
        ("e", [_mention("SynthSet dataset", "Dataset")]),
    )
    keys = sorted(e.key for e in res.entities.values())
    assert "dataset:synthetic-dataset~a" in keys and "dataset:synthetic-dataset~b" in keys
    assert "dataset:synthetic-dataset" in keys
    assert {e.key: e.support for e in res.entities.values()}["dataset:synthset-dataset"] == 2


def test_resolve_a_mapping_task_is_one_with_its_process_named():
    res = _resolve(
        ("a", [_mention("text-to-image generation", "Task")]),
        ("b", [_mention("text-to-image generation", "Task")]),
        ("c", [_mention("text-to-image", "Task")]),
        ("d", [_mention("text-to-image retrieval", "Task")]),  # another task
        ("e", [_mention("object detection", "Task")]),
        ("f", [_mention("object", "Task")]),  # no mapping: nothing joins
    )
    support = {e.key: e.support for e in res.entities.values()}
    assert support["task:text-to-image-generation"] == 3
    assert support["task:text-to-image-retrieval"] == 1
    assert support["task:object-detection"] == 1 and support["task:object"] == 1


def test_resolve_acronyms_that_stand_for_one_long_form_are_one_entity():
    long = "quantised wobble transfer rate"  # what the (made-up) acronyms spell out
    forms = {"QWTR": (long, 9, 10), "WT-QR": (long, 3, 3), "QW": ("quantised wobble", 5, 5)}
    res = _resolve(
        ("a", [_mention("QWTR", "Metric")]),
        ("b", [_mention("QWTR", "Metric")]),
        ("c", [_mention("WT-QR", "Metric")]),
        ("e", [_mention("QW", "Metric")]),
        long_forms=forms,
    )
    keys = {e.key: e for e in res.entities.values()}
    assert keys["metric:qwtr"].support == 3 and "metric:wt-qr" not in keys
    assert "metric:qw" in keys  # another long form
    (merge,) = res.merges
    assert merge.rule == "acronym" and merge.source == "metric:wt-qr" and long in merge.reason
    assert not _resolve(("a", [_mention("QWTR", "Metric")]), ("c", [_mention("WT-QR", "Metric")]),
                        long_forms={}).merges  # fmt: skip


def test_learned_long_forms_need_a_majority_and_spell_out_inner_acronyms():
    from collections import Counter

    from kg.resolve.acronyms import majority_long_forms

    table = majority_long_forms(
        {
            "ZB": Counter({"zeta beta": 3}),
            "AZB": Counter({"alpha zb": 2, "alpha zeta beta": 1, "another zone bit": 1}),
            "QQ": Counter({"quick quiz": 1, "quiet quest": 1}),  # no majority
            "RR": Counter({"rapid rise": 1}),  # one definition
        }
    )
    assert table == {"AZB": ("alpha zeta beta", 3, 4), "ZB": ("zeta beta", 3, 3)}


def test_resolve_two_papers_own_things_of_one_name_stay_apart():
    own_a = _paper("a", _mention("CraftAgent", proposed=True))
    own_b = _paper("b", _mention("Craft-Agent", proposed=True))
    r = Resolver()
    r.add(local_entities(own_a), "a")
    r.add(local_entities(own_b), "b")
    res = r.resolve()
    assert len(res.entities) == 2 and not res.merges
    (apart,) = res.apart  # recorded, with the rule that proposed it and why it was not made
    assert apart.rule == "separators" and "each proposed by its own papers" in apart.reason
    # a paper that uses the name without proposing it: the name is no longer one paper's own
    r.add(local_entities(_paper("c", _mention("Craft-Agent"))), "c")
    assert len(r.resolve().entities) == 1

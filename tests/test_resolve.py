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

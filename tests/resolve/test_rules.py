"""Each merge rule of resolution on a few rows of the local-entity table, alone."""

from __future__ import annotations

import networkx as nx
import pyarrow as pa
import pytest

from kg.resolve.acronyms import acronym_claims
from kg.resolve.keys import entity_key
from kg.resolve.local import locals_schema
from kg.resolve.rules import (
    Keys,
    acronym_merges,
    cross_type_acronym_merges,
    fuzzy_merges,
    head_word_merges,
    separator_merges,
    spelled_out_merges,
    twin_acronym_merges,
    type_vote_merges,
)
from kg.util.tables import duckdb_connection


def _row(paper, type_, name, aliases=(), proposed=False):
    key = entity_key(type_, name)
    return {"paper": paper, "type": type_, "raw_key": key, "name": name, "aliases": list(aliases),
            "mentions": 1, "proposed": proposed, "benchmark": False}  # fmt: skip


@pytest.fixture
def keys_of():
    """``keys_of(rows)``: the :class:`Keys` of a table of those rows."""
    with duckdb_connection() as con:

        def load(rows):
            con.register("kg_rows", pa.Table.from_pylist(rows, schema=locals_schema()))
            con.execute("CREATE OR REPLACE TEMP TABLE kg_locals AS SELECT * FROM kg_rows")
            return Keys.load(con, "kg_locals")

        yield load


def _pairs(merges):
    return [(m.source, m.target) for m in merges]


def test_keys_hold_support_and_the_papers_of_what_every_paper_proposes(keys_of):
    keys = keys_of([_row("a", "Method", "ECHO", proposed=True), _row("b", "Method", "Echo"),
                    _row("c", "Method", "ECHO", proposed=True)])  # fmt: skip
    keys.fetch(["method:echo"])
    assert keys.support == {"method:echo": 3} and not keys.own  # paper b only names it
    assert keys.papers("method:other") == ((), 0)


def test_acronym_rule_joins_a_long_form_two_papers_define(keys_of):
    long = "Low-Rank Adaptation"
    keys = keys_of([_row("a", "Method", long, ["LoRA"]), _row("b", "Method", long, ["LoRA"]),
                    _row("c", "Method", "LoRA")])  # fmt: skip
    _, joins = acronym_claims(keys.con, keys.table, 0.75)
    merges = list(acronym_merges(keys, joins, {}))
    assert _pairs(merges) == [("method:lora", "method:low-rank-adaptation")]
    assert merges[0].papers == ("a", "b") and merges[0].paper_count == 2


def test_acronym_rule_leaves_one_papers_coinage_used_bare_elsewhere(keys_of):
    keys = keys_of([_row("a", "Method", "Spatial Window Integration Module", ["SWIM"]),
                    _row("b", "Method", "SWIM")])  # fmt: skip
    _, joins = acronym_claims(keys.con, keys.table, 0.75)
    assert list(acronym_merges(keys, joins, {})) == []
    conventional = {"swim": "spatial window integration module"}  # what the corpus spells it out as
    assert len(list(acronym_merges(keys, joins, conventional))) == 1


def test_cross_type_rule_gives_a_bare_acronym_the_type_papers_define_it_as(keys_of):
    long = "Expected Calibration Error"
    keys = keys_of([_row("a", "Metric", long, ["ECE"]), _row("b", "Metric", long, ["ECE"]),
                    _row("c", "Dataset", "ECE")])  # fmt: skip
    claims, joins = acronym_claims(keys.con, keys.table, 0.75)
    merges = list(cross_type_acronym_merges(keys, claims, joins))
    assert _pairs(merges) == [("dataset:ece", "metric:expected-calibration-error")]


def test_twin_acronym_rule_joins_acronyms_of_one_long_form(keys_of):
    keys = keys_of([_row("a", "Metric", "AUROC"), _row("b", "Metric", "AUROC"),
                    _row("c", "Metric", "ROC-AUC")])  # fmt: skip
    long = "metric:area-under-roc"
    long_forms = {"auroc": (long, 5, 5), "roc-auc": (long, 4, 4)}
    assert _pairs(twin_acronym_merges(keys, long_forms)) == [("metric:roc-auc", "metric:auroc")]
    assert list(twin_acronym_merges(keys, {})) == []


def test_spelled_out_rule_joins_a_name_with_its_acronym_spelled_out(keys_of):
    keys = keys_of([_row("a", "Method", "multimodal LLMs"),
                    _row("b", "Method", "multimodal large language models")])  # fmt: skip
    merges = spelled_out_merges(keys, {"llm": "large language model"})
    assert _pairs(merges) == [("method:multimodal-llm", "method:multimodal-large-language-model")]


def test_separator_rule_joins_to_the_key_more_papers_use_within_a_type(keys_of):
    keys = keys_of([_row("a", "Dataset", "CIFAR-100"), _row("b", "Dataset", "CIFAR-100"),
                    _row("c", "Dataset", "CIFAR100"), _row("d", "Method", "CIFAR100")])  # fmt: skip
    assert _pairs(separator_merges(keys)) == [("dataset:cifar100", "dataset:cifar-100")]


def test_head_word_rule_joins_a_name_with_a_naming_head_not_a_common_phrase(keys_of):
    keys = keys_of([_row("a", "Metric", "Dice"), _row("b", "Metric", "Dice score"),
                    _row("c", "Method", "hybrid"), _row("d", "Method", "hybrid model"),
                    _row("e", "Task", "text-to-image"),
                    _row("f", "Task", "text-to-image generation")])  # fmt: skip
    assert set(_pairs(head_word_merges(keys))) == {
        ("metric:dice-score", "metric:dice"),
        ("task:text-to-image-generation", "task:text-to-image"),
    }


def test_fuzzy_rule_joins_spellings_not_versions(keys_of):
    keys = keys_of([_row("a", "Method", "contrastive language image pretraining"),
                    _row("b", "Method", "contrastive language image pretraning"),
                    _row("c", "Method", "GPT-4 based evaluation pipeline"),
                    _row("d", "Method", "GPT-4o based evaluation pipeline")])  # fmt: skip
    merges = list(fuzzy_merges(keys, 90.0, 20))
    assert len(merges) == 1 and "gpt" not in merges[0].source
    assert merges[0].rule == "fuzzy" and 0.9 <= merges[0].score <= 1.0


def test_type_vote_rule_counts_whole_entities_and_leaves_close_votes(keys_of):
    rows = [_row(p, "Dataset", "ImageNet-1K") for p in "abc"] + [_row("d", "Method", "ImageNet-1K")]
    rows += [_row(p, "Dataset", "transformer blocks") for p in "ef"]
    rows += [_row(p, "Method", "transformer blocks") for p in "gh"]
    keys = keys_of(rows)
    merges = list(type_vote_merges(keys, nx.utils.UnionFind()))
    assert _pairs(merges) == [("method:imagenet-1k", "dataset:imagenet-1k")]
    assert merges[0].reason == "3 of 4 papers make it a Dataset"

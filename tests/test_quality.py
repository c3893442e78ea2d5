"""Extraction quality on the dev gold: a regression guard at the level measured so far.

The floors below are what the current pipeline reaches (see the README); a change that
lowers them fails here. Raising them is the job of the quality work, not of this test.
"""

from __future__ import annotations

import pytest

from kg.eval import evaluate_files
from tests.conftest import shared_path


@pytest.fixture(scope="module")
def dev_scores(sample_build):
    gold = shared_path("gold", "dev.jsonl")
    return evaluate_files(gold, sample_build / "extractions.jsonl")


def test_quality_dev_gold_entities(dev_scores):
    assert dev_scores["papers_without_prediction"] == []
    assert dev_scores["entities"]["f1"] >= 0.49


def test_quality_dev_gold_relations(dev_scores):
    assert dev_scores["relations"]["f1"] >= 0.18


def test_quality_dev_gold_results(dev_scores):
    assert dev_scores["results"]["f1"] >= 0.70


def test_quality_scierc_test_mentions(nlp):
    """SciERC test, typed exact spans (4 types): a guard at the level measured (0.247)."""
    from kg.eval.mentions import predicted_mentions, read_scierc, score_mentions

    docs = read_scierc(shared_path("datasets", "scierc", "test.json"))
    scores = score_mentions(predicted_mentions(nlp, docs))
    assert scores["documents"] == 100 and scores["typed"]["gold"] == 922
    assert scores["typed"]["f1"] >= 0.22

"""Extraction quality on the dev gold: a regression guard at the level measured so far.

The floors below are what the current pipeline reaches (see the README); a change that
lowers them fails here. Raising them is the job of the quality work, not of this test.
"""

from __future__ import annotations

import pytest

from kg.build import build
from kg.eval import evaluate_files
from tests.conftest import shared_path


@pytest.fixture(scope="module")
def dev_scores(tmp_path_factory):
    corpus = shared_path("corpora", "daily_papers.txt")
    gold = shared_path("gold", "dev.jsonl")
    out = tmp_path_factory.mktemp("dev") / "out"
    summary = build([corpus], out, exporters=("jsonl",))
    assert summary.papers == 120 and len(summary.skipped) == 1
    return evaluate_files(gold, out / "extractions.jsonl")


def test_quality_dev_gold_entities(dev_scores):
    assert dev_scores["papers_without_prediction"] == []
    assert dev_scores["entities"]["f1"] >= 0.49


def test_quality_dev_gold_relations(dev_scores):
    assert dev_scores["relations"]["f1"] >= 0.18


def test_quality_dev_gold_results(dev_scores):
    assert dev_scores["results"]["f1"] >= 0.70

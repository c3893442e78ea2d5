"""The judgements of the graph's head and the script that scores a build against them."""

from __future__ import annotations

from tests.benchmark_scripts import load_benchmark


def test_shipped_judgements_read_and_cover_each_type():
    jh = load_benchmark("judge_head")
    judged = jh.read_judgements(jh.DEFAULT)
    types = {t for t, _ in judged}
    assert types == set(jh.TYPES)
    assert sum(j["verdict"] == "wrong" for j in judged.values()) >= 40  # the before build's


def test_judge_head_scores_shares_duplicates_and_unjudged():
    jh = load_benchmark("judge_head")
    judged = jh.Judgements()
    judged.by_norm = {}
    rows = [("Method", "CLIP", "right", ""), ("Method", "clip", "wrong", "display name: case"),
            ("Method", "ViT", "right", "Vision Transformer"),
            ("Method", "Vision Transformer", "right", ""),
            ("Method", "LLM-based", "wrong", "generic")]  # fmt: skip
    for t, name, verdict, extra in rows:
        row = {"type": t, "name": name, "verdict": verdict,
               "same_as": extra if not extra.startswith(("display", "generic")) else "",
               "why": extra if extra.startswith(("display", "generic")) else ""}  # fmt: skip
        judged[(t, name)] = row
        judged.by_norm.setdefault((t, jh.normalise_name(name)), []).append(row)
    lists = {"Method": [{"name": "CLIP", "papers": 9}, {"name": "ViT", "papers": 8},
                        {"name": "Vision Transformer", "papers": 7},
                        {"name": "llm-based", "papers": 6}, {"name": "Clip", "papers": 5},
                        {"name": "BERT", "papers": 4}],
             "Task": [], "Dataset": [], "Metric": []}  # fmt: skip
    result = jh.score(lists, judged)
    # CLIP right, ViT right, ViT again (duplicate, still right), llm-based wrong (the
    # normalised judgement), Clip unjudged (a display-name judgement does not carry), BERT
    assert result["types"]["Method"]["top"] == 3 / 6
    assert result["duplicates"] == [("Method", "vision transformer")]
    assert [(t, n) for t, n, _ in result["unjudged"]] == [("Method", "Clip"), ("Method", "BERT")]
    assert result["view"][0] == ("Method", "CLIP", "right")

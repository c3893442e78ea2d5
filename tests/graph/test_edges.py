"""Edges across papers: which evidence an edge keeps, its confidence, contradictions."""

from __future__ import annotations

import math

import networkx as nx
import pytest

from kg.graph.assemble import (
    MAX_EVIDENCE,
    EdgeCalibration,
    best_evidence,
    edge_confidence,
    hide_unsure_relations,
    merge_edge,
    settle_contradiction,
)


def _row(paper: str, conf: float, rtype: str = "USES") -> dict:
    ev = {"paper": paper, "sentence": 0, "sentences": [0], "text": "x", "head_span": [0, 1],
          "tail_span": [2, 3], "rule": "r", "confidence": conf}  # fmt: skip
    return {"paper": paper, "type": rtype, "confidence": conf, "evidence": [ev]}


def _fold(rows: list[dict]) -> dict:
    data = None
    for row in rows:
        data = merge_edge(data, row)
    return data


@pytest.mark.parametrize(
    ("confs", "expected"),
    [([0.9], 0.9), ([0.9, 0.5], 0.45), ([0.9, 0.8, 0.5], 0.9 * 0.8 + 0.9 * 0.5 + 0.8 * 0.5
                                        - 2 * 0.9 * 0.8 * 0.5)],
)  # fmt: skip
def test_edge_confidence_is_the_chance_most_shown_papers_are_right(confs, expected):
    evidence = [{"paper": f"p{i}", "confidence": c} for i, c in enumerate(confs)]
    none = EdgeCalibration()
    assert edge_confidence(evidence, len(confs), calibration=none) == pytest.approx(
        expected, abs=1e-3
    )


def test_edge_confidence_counts_each_paper_once_by_its_best_item():
    evidence = [{"paper": "a", "confidence": 0.3}, {"paper": "a", "confidence": 0.9}]
    assert edge_confidence(evidence, calibration=EdgeCalibration()) == 0.9


def test_edge_calibration_reads_type_confidence_and_support():
    calibration = EdgeCalibration(
        intercept=(("USES", -1.0), ("APPLIED_TO", 1.0)), slope=0.5, support_weight=0.3, cap=8
    )
    assert calibration("USES", 0.5, 1) == pytest.approx(1 / (1 + math.e))
    assert calibration("USES", 0.9, 1) < calibration("APPLIED_TO", 0.9, 1)
    assert calibration("USES", 0.6, 1) < calibration("USES", 0.9, 1)
    assert calibration("USES", 0.6, 2) < calibration("USES", 0.6, 8) == calibration("USES", 0.6, 80)
    assert EdgeCalibration()("USES", 0.37, 5) == 0.37


def test_edges_are_calibrated_by_their_type_and_papers():
    calibration = EdgeCalibration(intercept=(("USES", -2.0),), slope=1.0)
    evidence = [{"paper": f"p{i}", "confidence": 0.8} for i in range(3)]
    lowered = edge_confidence(evidence, 3, "USES", calibration)
    assert lowered < edge_confidence(evidence, 3, "USES", EdgeCalibration()) == 0.896
    assert edge_confidence(evidence, 3, "APPLIED_TO", calibration) == 0.896


def test_merged_edges_take_the_shipped_calibration_of_their_type():
    rows = [_row(f"p{i:02}", 0.6, "APPLIED_TO") for i in range(40)]
    data = _fold(rows)
    assert data["support"] == 40 and len(data["evidence"]) == MAX_EVIDENCE
    assert data["confidence"] == edge_confidence(data["evidence"], 40, "APPLIED_TO")


def test_relation_evidence_keeps_the_most_confident_first_whatever_the_paper_order():
    rows = [_row(f"p{i:02}", c) for i, c in enumerate([0.2, 0.9, 0.4, 0.8])]
    forward, backward = _fold(rows), _fold(list(reversed(rows)))
    assert [e["paper"] for e in forward["evidence"]] == ["p01", "p03", "p02", "p00"]
    assert forward == {**backward, "papers": forward["papers"]}
    assert forward["confidence"] == edge_confidence(forward["evidence"], 4, "USES")


def test_relation_evidence_is_capped():
    data = _fold([_row(f"p{i:03}", i / 100) for i in range(60)])
    assert len(data["evidence"]) == MAX_EVIDENCE
    assert data["evidence"][0]["paper"] == "p059"


def test_mention_evidence_keeps_its_order():
    items = [{"paper": "a", "start": 5, "end": 7}, {"paper": "a", "start": 1, "end": 2}]
    assert best_evidence("MENTIONS", items) == items


def test_contradicting_edges_are_settled_by_their_evidence():
    forward, reverse = {"confidence": 0.9}, {"confidence": 0.4}
    settle_contradiction(forward, reverse)
    assert forward["confidence"] == 0.9
    assert reverse["confidence"] == pytest.approx(0.04)


def test_contradicting_edges_of_equal_evidence_both_lose():
    forward, reverse = {"confidence": 0.6}, {"confidence": 0.6}
    settle_contradiction(forward, reverse)
    assert forward["confidence"] == reverse["confidence"] == pytest.approx(0.24)


def test_hide_unsure_relations_keeps_other_edges_and_result_metrics():
    G = nx.MultiDiGraph()
    for key, label in (("a", "Method"), ("b", "Method"), ("r", "Result"), ("m", "Metric"),
                       ("p", "Paper")):  # fmt: skip
        G.add_node(key, label=label)
    G.add_edge("a", "b", key="USES", confidence=0.95)
    G.add_edge("b", "a", key="OUTPERFORMS", confidence=0.2)
    G.add_edge("r", "m", key="MEASURED_BY", confidence=0.1)
    G.add_edge("p", "a", key="MENTIONS", confidence=0.1)
    assert hide_unsure_relations(G, 0.8) == {"OUTPERFORMS": 1}
    assert sorted(k for _, _, k in G.edges(keys=True)) == ["MEASURED_BY", "MENTIONS", "USES"]


def _record(paper: str, relations: list[tuple[str, str, str, float]]) -> dict:
    ents = {k for h, _, t, _ in relations for k in (h, t)}
    return {
        "id": paper, "text": "a b", "entities": [
            {"id": k, "mentions": [{"sentence": 0, "start": 0, "end": 1, "text": "a",
                                    "rule": "r", "confidence": 0.9}]} for k in sorted(ents)],
        "relations": [{"head": h, "type": t, "tail": v, "confidence": c,
                       "evidence": [_row(paper, c)["evidence"][0]]} for h, t, v, c in relations],
        "results": [],
    }  # fmt: skip


@pytest.mark.parametrize("partition_rows", [10**9, 3])
def test_merged_tables_settle_an_edge_against_its_reverse(tmp_path, partition_rows):
    """A OUTPERFORMS B in two papers and B OUTPERFORMS A in one meet when the edge rows
    are merged, in one partition or several: the weaker claim keeps little confidence."""
    from kg.graph.store import GraphTables, GraphTableWriter, merge_edge_tables

    writer = GraphTableWriter(tmp_path)
    writer.add_paper(_record("p1", [("method:a", "OUTPERFORMS", "method:b", 0.9)]))
    writer.add_paper(_record("p2", [("method:a", "OUTPERFORMS", "method:b", 0.8),
                                    ("method:a", "USES", "method:c", 0.7)]))  # fmt: skip
    writer.add_paper(_record("p3", [("method:b", "OUTPERFORMS", "method:a", 0.5),
                                    ("method:c", "APPLIED_TO", "task:x", 0.5)]))  # fmt: skip
    writer.close()
    merge_edge_tables(tmp_path, partition_rows=partition_rows)
    edges = {(u, t, v): d for u, v, t, d in GraphTables(tmp_path).edges()}
    forward = edges[("method:a", "OUTPERFORMS", "method:b")]
    reverse = edges[("method:b", "OUTPERFORMS", "method:a")]
    wins = edge_confidence([{"paper": "p1", "confidence": 0.9}, {"paper": "p2", "confidence": 0.8}],
                           2, "OUTPERFORMS")  # fmt: skip
    loses = edge_confidence([{"paper": "p3", "confidence": 0.5}], 1, "OUTPERFORMS")
    assert loses < wins
    assert forward["support"] == 2 and forward["confidence"] == wins
    assert reverse["confidence"] == pytest.approx(loses * (1 - wins), abs=1e-3)
    uses = edge_confidence([{"paper": "p2", "confidence": 0.7}], 1, "USES")
    assert edges[("method:a", "USES", "method:c")]["confidence"] == uses

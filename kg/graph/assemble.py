"""Build the networkx MultiDiGraph from canonical entities and per-paper records."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import networkx as nx

from kg.graph.model import check_edge_type
from kg.schema import RELATION_TYPES

__all__ = [
    "new_graph",
    "entity_node",
    "add_paper",
    "paper_graph",
    "merge_edge",
    "hide_unsure_relations",
    "best_evidence",
    "edge_confidence",
    "majority_right",
    "edge_calibration",
    "EdgeCalibration",
    "settle_contradiction",
    "CONTRADICTED",
    "MAX_EVIDENCE",
    "SHOWN_EVIDENCE",
]

MAX_EVIDENCE = 25
"""Evidence items kept per edge (support still counts every paper)."""


def new_graph() -> nx.MultiDiGraph:
    """Return an empty kg graph."""
    return nx.MultiDiGraph(name="kg")


def entity_node(ent) -> dict[str, Any]:
    """Return the node data of a canonical entity (``kg.resolve.Entity``)."""
    return {
        "label": ent.type,
        "key": ent.key,
        "type": ent.type,
        "name": ent.name,
        "aliases": list(ent.aliases),
        "support": ent.support,
        "mention_count": ent.mention_count,
        "proposed_count": ent.proposed_count,
        "benchmark": ent.benchmark,
    }


SHOWN_EVIDENCE = 3
"""Evidence items of distinct papers a reader is shown first for a relation: its
confidence is the chance that most of them are right (:func:`edge_confidence`)."""


def best_evidence(rtype: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the :data:`MAX_EVIDENCE` items an edge keeps: for a relation between
    entities, the most confident first (then by paper and place); for other edges, the
    first ones in the order given."""
    if rtype not in RELATION_TYPES:
        return items[:MAX_EVIDENCE]
    return sorted(items, key=_evidence_rank)[:MAX_EVIDENCE]


def _evidence_rank(ev: dict[str, Any]) -> tuple:
    return (-ev.get("confidence", 0.0), ev["paper"], ev.get("sentence", 0),
            ev.get("head_span") or [], ev.get("tail_span") or [])  # fmt: skip


@dataclass(frozen=True)
class EdgeCalibration:
    """The chance that an edge is right, from the chance ``c`` that most of its shown
    papers are right (:func:`majority_right` of their calibrated confidences), its type
    and its support: ``sigmoid(intercept[type] + slope * logit(c) + support_weight *
    log(min(support, cap)))``. Fitted by ``scripts/calibrate_edges.py`` on the edges of a
    build judged by hand (``benchmarks/edges/calibration.tsv``); ``cap`` is the largest
    support it saw. The default is none: ``c`` itself."""

    intercept: tuple[tuple[str, float], ...] = ()
    slope: float = 1.0
    support_weight: float = 0.0
    cap: int = 1

    @cached_property
    def _by_type(self) -> dict[str, float]:
        return dict(self.intercept)  # once, not on every merged edge

    def __call__(self, rtype: str, c: float, support: int) -> float:
        if not self.intercept and self.slope == 1.0 and self.support_weight == 0.0:
            return c
        c = min(max(c, 1e-4), 1 - 1e-4)
        z = self._by_type.get(rtype, 0.0) + self.slope * math.log(c / (1 - c))
        z += self.support_weight * math.log(min(max(support, 1), self.cap))
        return 1 / (1 + math.exp(-z))


@lru_cache(maxsize=1)
def edge_calibration() -> EdgeCalibration:
    """The shipped :class:`EdgeCalibration` (``kg/graph/data/edge_calibration.json``), or
    none when that file is missing."""
    path = Path(__file__).with_name("data") / "edge_calibration.json"
    if not path.is_file():
        return EdgeCalibration()
    data = json.loads(path.read_text(encoding="utf-8"))
    return EdgeCalibration(tuple(sorted(data["intercept"].items())), float(data["slope"]),
                           float(data["support_weight"]), int(data["cap"]))  # fmt: skip


def edge_confidence(
    evidence: list[dict[str, Any]],
    support: int = 1,
    rtype: str = "",
    calibration: EdgeCalibration | None = None,
) -> float:
    """Return the chance that a relation is right as a reader sees it: that most of the
    first :data:`SHOWN_EVIDENCE` papers' evidence shows it (p1 for one paper, p1 p2 for
    two, two of three for more, each paper's best item, their calibrated confidences taken
    as independent), calibrated on judged edges by type and support
    (:class:`EdgeCalibration`; default: the shipped one).

    >>> edge_confidence([{"paper": "a", "confidence": 0.9}, {"paper": "b", "confidence": 0.8}],
    ...                 calibration=EdgeCalibration())
    0.72
    """
    calibration = edge_calibration() if calibration is None else calibration
    best: dict[str, float] = {}
    for ev in evidence:
        best[ev["paper"]] = max(best.get(ev["paper"], 0.0), ev.get("confidence", 0.0))
    if not best:
        return 0.0
    c = majority_right(sorted(best.values(), reverse=True)[:SHOWN_EVIDENCE])
    return round(calibration(rtype, c, support), 3)


def majority_right(p: list[float]) -> float:
    """The chance that most of one, two or three independent items are right.

    >>> round(majority_right([0.9, 0.8, 0.5]), 3)
    0.85
    """
    if not p:
        return 0.0
    if len(p) == 1:
        return p[0]
    if len(p) == 2:
        return p[0] * p[1]
    a, b, c = p[:3]
    return a * b + a * c + b * c - 2 * a * b * c


def merge_edge(data: dict[str, Any] | None, row: dict[str, Any]) -> dict[str, Any]:
    """Fold one paper's edge ``row`` (from :func:`paper_graph`) into the edge ``data``.

    Support counts distinct papers and evidence keeps :data:`MAX_EVIDENCE` items
    (:func:`best_evidence`). A relation between entities has the confidence of its
    evidence (:func:`edge_confidence`), any other edge its best row's. ``data`` is
    changed in place and returned; ``None`` starts a new edge.
    """
    paper = row["paper"]
    if data is None:
        data = {
            "type": row["type"],
            "support": 1,
            "confidence": row["confidence"],
            "papers": [paper],
            "evidence": best_evidence(row["type"], list(row["evidence"])),
        }
    else:
        if paper not in data["papers"]:
            data["papers"].append(paper)
            data["support"] += 1
        data["confidence"] = max(data["confidence"], row["confidence"])
        data["evidence"] = best_evidence(row["type"], data["evidence"] + list(row["evidence"]))
    if row["type"] in RELATION_TYPES:
        data["confidence"] = edge_confidence(data["evidence"], data["support"], row["type"])
    if row.get("mentions") is not None:
        data["mentions"] = row["mentions"]
    return data


CONTRADICTED = ("OUTPERFORMS", "USES")
"""Relations whose reverse between the same two entities contradicts them."""


def settle_contradiction(forward: dict[str, Any], reverse: dict[str, Any]) -> None:
    """Settle ``A -> B`` against ``B -> A`` of a :data:`CONTRADICTED` type by their
    evidence: the less confident direction keeps the chance that it is right and the
    other wrong, the more confident one its own (when they are equal both lose). Both
    stay in the graph; ``confidence`` of each is changed in place."""
    a, b = forward["confidence"], reverse["confidence"]
    if a >= b:
        reverse["confidence"] = round(b * (1 - a), 3)
    if b >= a:
        forward["confidence"] = round(a * (1 - b), 3)


def paper_graph(record: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return the nodes (Paper, Result) and edges one paper record contributes.

    Each edge is a row ``{"u", "v", "type", "paper", "confidence", "evidence", "mentions"}``
    with the paper's own repeats of it already folded together; :func:`merge_edge` folds
    the rows of several papers.
    """
    pkey = f"paper:{record['id']}"
    pid = record["id"]
    nodes: list[dict[str, Any]] = [_paper_node(record)]
    edges: dict[tuple[str, str, str], dict[str, Any]] = {}

    def edge(u: str, v: str, rtype: str, conf: float, evidence: list, mentions=None) -> None:
        check_edge_type(rtype)
        row = {"paper": pid, "type": rtype, "confidence": conf, "evidence": evidence}
        row["mentions"] = mentions
        merged = merge_edge(edges.get((u, rtype, v)), row)
        edges[(u, rtype, v)] = merged

    for ent in record["entities"]:
        evidence = [
            {
                "paper": pid,
                "sentence": m["sentence"],
                "start": m["start"],
                "end": m["end"],
                "text": m["text"],
                "rule": m["rule"],
            }
            for m in ent["mentions"]
        ]
        conf = max((m["confidence"] for m in ent["mentions"]), default=0.5)
        edge(pkey, ent["id"], "MENTIONS", conf, evidence, len(ent["mentions"]))
        if ent.get("proposed"):
            edge(pkey, ent["id"], "PROPOSES", conf, evidence[:1])
    for rel in record["relations"]:
        evidence = [dict(e, paper=pid) for e in rel["evidence"]]
        edge(rel["head"], rel["tail"], rel["type"], rel["confidence"], evidence)
    for res in record["results"]:
        ev = res["evidence"]
        nodes.append(_result_node(res, pid))
        evidence = [dict(ev, paper=pid)]
        edge(pkey, res["id"], "REPORTS", res["confidence"], evidence)
        for field, rtype in (
            ("method_id", "FOR_METHOD"),
            ("task_id", "FOR_TASK"),
            ("dataset_id", "ON_DATASET"),
            ("metric_id", "MEASURED_BY"),
        ):
            if res.get(field):
                edge(res["id"], res[field], rtype, res["confidence"], evidence)
    rows = [
        {"u": u, "v": v, "paper": pid, **{k: d[k] for k in ("type", "confidence", "evidence")},
         "mentions": d.get("mentions")}
        for (u, _, v), d in edges.items()
    ]  # fmt: skip
    return nodes, rows


def _paper_node(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "label": "Paper",
        "key": f"paper:{record['id']}",
        "paper_id": record["id"],
        "title": record.get("title"),
        "year": record.get("year"),
        "date": record.get("date"),
        "authors": list(record.get("authors", [])),
        "url": record.get("url"),
        "code_url": record.get("code_url"),
        "upvotes": record.get("upvotes"),
        "text": record["text"],
        "source": record.get("source", {}).get("file"),
    }


def _result_node(res: dict[str, Any], pid: str) -> dict[str, Any]:
    ev = res["evidence"]
    return {
        "label": "Result",
        "key": res["id"],
        "value": res["value"],
        "unit": res["unit"],
        "delta": res["delta"],
        "own": res.get("own"),
        "change": res.get("change"),
        "metric_name": res["metric"],
        "condition": res["condition"],
        "paper_id": pid,
        "sentence": ev["sentence"],
        "start": ev["start"],
        "end": ev["end"],
        "evidence": ev["text"],
        "confidence": res["confidence"],
    }


def add_paper(G: nx.MultiDiGraph, record: dict[str, Any]) -> None:
    """Add a paper record (one line of ``extractions.jsonl``) to the graph."""
    nodes, edges = paper_graph(record)
    for node in nodes:
        G.add_node(node["key"], **node)
    for row in edges:
        u, v, rtype = row["u"], row["v"], row["type"]
        old = G.edges[u, v, rtype] if G.has_edge(u, v, key=rtype) else None
        data = merge_edge(old, row)
        if old is None:
            G.add_edge(u, v, key=rtype, **data)


def hide_unsure_relations(G: nx.MultiDiGraph, floor: float) -> dict[str, int]:
    """Remove from ``G`` the relations between entities whose confidence is below
    ``floor`` (what the default view leaves out); return how many of each type."""
    hidden: dict[str, int] = {}
    drop = []
    for u, v, rtype, data in G.edges(keys=True, data=True):
        if rtype in RELATION_TYPES and data.get("confidence", 0.0) < floor:
            if G.nodes[u].get("label") != "Result":  # a result's metric is not a relation
                drop.append((u, v, rtype))
                hidden[rtype] = hidden.get(rtype, 0) + 1
    G.remove_edges_from(drop)
    return hidden

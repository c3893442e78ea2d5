"""Build the networkx MultiDiGraph from canonical entities and per-paper records."""

from __future__ import annotations

from typing import Any

import networkx as nx

from kg.graph.model import check_edge_type

__all__ = [
    "new_graph",
    "add_entities",
    "entity_node",
    "add_paper",
    "paper_graph",
    "merge_edge",
    "MAX_EVIDENCE",
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


def add_entities(G: nx.MultiDiGraph, entities) -> None:
    """Add one node per canonical entity (``kg.resolve.Entity``), keyed by its key."""
    for ent in entities:
        G.add_node(ent.key, **entity_node(ent))


def merge_edge(data: dict[str, Any] | None, row: dict[str, Any]) -> dict[str, Any]:
    """Fold one paper's edge ``row`` (from :func:`paper_graph`) into the edge ``data``.

    Support counts distinct papers, confidence is the best, evidence keeps the first
    :data:`MAX_EVIDENCE` items in the order the rows come. ``data`` is changed in place
    and returned; ``None`` starts a new edge.
    """
    paper = row["paper"]
    if data is None:
        data = {
            "type": row["type"],
            "support": 1,
            "confidence": row["confidence"],
            "papers": [paper],
            "evidence": list(row["evidence"][:MAX_EVIDENCE]),
        }
    else:
        if paper not in data["papers"]:
            data["papers"].append(paper)
            data["support"] += 1
        data["confidence"] = max(data["confidence"], row["confidence"])
        room = MAX_EVIDENCE - len(data["evidence"])
        data["evidence"].extend(row["evidence"][: max(room, 0)])
    if row.get("mentions") is not None:
        data["mentions"] = row["mentions"]
    return data


def paper_graph(record: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return the nodes (Paper, Result) and edges one paper record contributes.

    Each edge is a row ``{"u", "v", "type", "paper", "confidence", "evidence", "mentions"}``
    with the paper's own repeats of it already folded together; :func:`merge_edge` folds
    the rows of several papers.
    """
    pkey = f"paper:{record['id']}"
    pid = record["id"]
    nodes: list[dict[str, Any]] = [
        {
            "label": "Paper",
            "key": pkey,
            "paper_id": pid,
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
    ]
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
        nodes.append(
            {
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
        )
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

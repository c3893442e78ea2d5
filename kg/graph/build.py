"""Build the networkx MultiDiGraph from canonical entities and per-paper records."""

from __future__ import annotations

from typing import Any

import networkx as nx

from kg.graph.model import check_edge_type

__all__ = ["new_graph", "add_entities", "add_paper", "MAX_EVIDENCE"]

MAX_EVIDENCE = 25
"""Evidence items kept per edge (support still counts every paper)."""


def new_graph() -> nx.MultiDiGraph:
    """Return an empty kg graph."""
    return nx.MultiDiGraph(name="kg")


def add_entities(G: nx.MultiDiGraph, entities) -> None:
    """Add one node per canonical entity (``kg.resolve.Entity``), keyed by its key."""
    for ent in entities:
        G.add_node(
            ent.key,
            label=ent.type,
            key=ent.key,
            type=ent.type,
            name=ent.name,
            aliases=list(ent.aliases),
            support=ent.support,
            mention_count=ent.mention_count,
            proposed_count=ent.proposed_count,
            benchmark=ent.benchmark,
        )


def _add_edge(
    G: nx.MultiDiGraph,
    u: str,
    v: str,
    rtype: str,
    paper: str,
    conf: float,
    evidence: list[dict[str, Any]],
) -> None:
    check_edge_type(rtype)
    if G.has_edge(u, v, key=rtype):
        data = G.edges[u, v, rtype]
        if paper not in data["papers"]:
            data["papers"].append(paper)
            data["support"] += 1
        data["confidence"] = max(data["confidence"], conf)
        room = MAX_EVIDENCE - len(data["evidence"])
        data["evidence"].extend(evidence[: max(room, 0)])
    else:
        G.add_edge(
            u,
            v,
            key=rtype,
            type=rtype,
            support=1,
            confidence=conf,
            papers=[paper],
            evidence=list(evidence[:MAX_EVIDENCE]),
        )


def add_paper(G: nx.MultiDiGraph, record: dict[str, Any]) -> None:
    """Add a paper record (one line of ``extractions.jsonl``) to the graph."""
    pkey = f"paper:{record['id']}"
    G.add_node(
        pkey,
        label="Paper",
        key=pkey,
        paper_id=record["id"],
        title=record.get("title"),
        year=record.get("year"),
        date=record.get("date"),
        authors=list(record.get("authors", [])),
        url=record.get("url"),
        code_url=record.get("code_url"),
        text=record["text"],
        source=record.get("source", {}).get("file"),
    )
    pid = record["id"]
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
        _add_edge(G, pkey, ent["id"], "MENTIONS", pid, conf, evidence)
        G.edges[pkey, ent["id"], "MENTIONS"]["mentions"] = len(ent["mentions"])
        if ent.get("proposed"):
            _add_edge(G, pkey, ent["id"], "PROPOSES", pid, conf, evidence[:1])
    for rel in record["relations"]:
        evidence = [dict(e, paper=pid) for e in rel["evidence"]]
        _add_edge(G, rel["head"], rel["tail"], rel["type"], pid, rel["confidence"], evidence)
    for res in record["results"]:
        ev = res["evidence"]
        G.add_node(
            res["id"],
            label="Result",
            key=res["id"],
            value=res["value"],
            unit=res["unit"],
            delta=res["delta"],
            metric_name=res["metric"],
            condition=res["condition"],
            paper_id=pid,
            sentence=ev["sentence"],
            start=ev["start"],
            end=ev["end"],
            evidence=ev["text"],
            confidence=res["confidence"],
        )
        evidence = [dict(ev, paper=pid)]
        _add_edge(G, pkey, res["id"], "REPORTS", pid, res["confidence"], evidence)
        for field, rtype in (
            ("method_id", "FOR_METHOD"),
            ("task_id", "FOR_TASK"),
            ("dataset_id", "ON_DATASET"),
            ("metric_id", "MEASURED_BY"),
        ):
            if res.get(field):
                _add_edge(G, res["id"], res[field], rtype, pid, res["confidence"], evidence)

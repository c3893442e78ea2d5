"""Entities ranked by support (papers) or by PageRank, and the degree distribution."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import networkx as nx

from kg.graph.model import ENTITY_LABELS

__all__ = [
    "RankedEntity",
    "entities",
    "relation_graph",
    "pagerank",
    "top_entities",
    "degree_histogram",
]


@dataclass(frozen=True)
class RankedEntity:
    """An entity with its rank score."""

    key: str
    name: str
    type: str
    support: int
    score: float


def entities(G: nx.MultiDiGraph, type: str | None = None) -> list[str]:
    """Return the keys of entity nodes (Method, Task, Dataset, Metric), or of one type."""
    if type is not None and type not in ENTITY_LABELS:
        raise ValueError(f"unknown entity type {type!r}; expected one of {ENTITY_LABELS}")
    wanted = {type} if type else set(ENTITY_LABELS)
    return [n for n, d in G.nodes(data=True) if d.get("label") in wanted]


def relation_graph(G: nx.MultiDiGraph) -> nx.DiGraph:
    """The entity-to-entity relations as a weighted DiGraph (weight: supporting papers)."""
    keys = set(entities(G))
    H = nx.DiGraph()
    H.add_nodes_from(sorted(keys))  # a fixed order, whatever the hash seed
    for u, v, data in G.edges(data=True):
        if u in keys and v in keys:
            w = data.get("support", 1)
            if H.has_edge(u, v):
                H[u][v]["weight"] += w
            else:
                H.add_edge(u, v, weight=w)
    return H


def pagerank(H: nx.DiGraph, alpha: float = 0.85, tol: float = 1e-10) -> dict[str, float]:
    """Return weighted PageRank scores of ``H`` (``networkx.pagerank``: dangling nodes
    spread their rank evenly; a graph it cannot converge on raises
    ``networkx.PowerIterationFailedConvergence`` rather than giving a rough answer).

    Examples
    --------
    >>> H = nx.DiGraph([("a", "b"), ("c", "b")])
    >>> max(pagerank(H).items(), key=lambda kv: kv[1])[0]
    'b'
    """
    if H.number_of_nodes() == 0:
        return {}
    return nx.pagerank(H, alpha=alpha, weight="weight", tol=tol, max_iter=PAGERANK_ITERATIONS)


PAGERANK_ITERATIONS = 1000
"""The most power iterations PageRank may take before it says it did not converge."""


def top_entities(
    G: nx.MultiDiGraph, type: str | None = None, by: str = "support", n: int = 10
) -> list[RankedEntity]:
    """Return the ``n`` top entities (of ``type``, or all) by ``support`` or ``pagerank``.

    PageRank runs on the relations between entities (an edge A→B passes rank to B,
    weighted by its supporting papers); ties break by support, then name.
    """
    keys = entities(G, type)
    if by == "support":
        score = {k: float(G.nodes[k].get("support", 0)) for k in keys}
    elif by == "pagerank":
        H = relation_graph(G)
        score = pagerank(H)
    else:
        raise ValueError(f"by must be 'support' or 'pagerank', not {by!r}")
    ranked = sorted(
        keys, key=lambda k: (-score[k], -G.nodes[k].get("support", 0), G.nodes[k]["name"])
    )
    return [
        RankedEntity(
            k, G.nodes[k]["name"], G.nodes[k]["label"], G.nodes[k].get("support", 0), score[k]
        )
        for k in ranked[:n]
    ]


def degree_histogram(G: nx.MultiDiGraph, type: str | None = None) -> dict[int, int]:
    """Return {degree: number of entities} over entity-to-entity relations (either direction)."""
    H = relation_graph(G).to_undirected()
    keys = entities(G, type)
    return dict(sorted(Counter(H.degree(k) for k in keys).items()))

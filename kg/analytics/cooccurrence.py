"""Co-occurrence of entities across papers: a weighted projection of the paper graph."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import networkx as nx

from kg.analytics.ranking import entities

__all__ = ["cooccurrence_graph", "top_cooccurring"]


def cooccurrence_graph(
    G: nx.MultiDiGraph,
    types: tuple[str, ...] | None = None,
    min_papers: int = 1,
    max_nodes: int | None = None,
) -> nx.Graph:
    """Return an undirected graph of entities; an edge's ``weight`` is the papers naming both.

    Only entities of ``types`` (default: all), the ``max_nodes`` best-supported of them
    when given, and pairs in at least ``min_papers`` papers.
    """
    keys: list[str] = []
    for t in types or (None,):
        keys.extend(entities(G, t))
    if max_nodes is not None:
        keys.sort(key=lambda k: (-G.nodes[k].get("support", 0), k))
        keys = keys[:max_nodes]
    wanted = set(keys)
    pairs: Counter = Counter()
    for paper, data in G.nodes(data=True):
        if data.get("label") != "Paper":
            continue
        named = sorted(
            {v for _, v, key in G.out_edges(paper, keys=True) if key == "MENTIONS" and v in wanted}
        )
        pairs.update(combinations(named, 2))
    C = nx.Graph()
    for key in keys:  # in a fixed order: Louvain's result depends on it
        C.add_node(key, name=G.nodes[key]["name"], label=G.nodes[key]["label"])
    for (a, b), w in pairs.items():
        if w >= min_papers:
            C.add_edge(a, b, weight=w)
    return C


def top_cooccurring(G: nx.MultiDiGraph, key: str, n: int = 10) -> list[tuple[str, str, int]]:
    """Return the ``n`` entities most often named with ``key``: (key, name, shared papers)."""
    C = cooccurrence_graph(G)
    if key not in C:
        return []
    items = [(v, C.nodes[v]["name"], d["weight"]) for v, d in C[key].items()]
    return sorted(items, key=lambda t: (-t[2], t[1]))[:n]

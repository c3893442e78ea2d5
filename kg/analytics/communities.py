"""Communities of methods and tasks (Louvain), labelled by their most-supported members."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from kg.analytics.cooccurrence import cooccurrence_graph
from kg.analytics.ranking import relation_graph

__all__ = ["Community", "communities"]


@dataclass(frozen=True)
class Community:
    """A group of entities that are related or named together more than with others."""

    label: str
    members: tuple[str, ...]
    size: int
    top: tuple[str, ...]


def communities(
    G: nx.MultiDiGraph,
    types: tuple[str, ...] = ("Method", "Task"),
    min_size: int = 2,
    seed: int = 0,
    top: int = 3,
    max_nodes: int = 3000,
) -> list[Community]:
    """Return Louvain communities of the ``max_nodes`` best-supported entities of ``types``,
    largest first.

    Edges are relations between the entities plus co-occurrence in papers, weighted by
    supporting papers. ``seed`` makes the result repeatable. A community's label joins
    the names of its ``top`` most-supported members.
    """
    U = cooccurrence_graph(G, types, max_nodes=max_nodes)
    for u, v, data in relation_graph(G).edges(data=True):
        if u in U and v in U:
            w = U[u][v]["weight"] if U.has_edge(u, v) else 0
            U.add_edge(u, v, weight=w + data["weight"])
    U.remove_nodes_from([n for n in list(U) if U.degree(n) == 0])
    if U.number_of_edges() == 0:
        return []
    found = nx.community.louvain_communities(U, weight="weight", seed=seed)
    out = []
    for members in found:
        if len(members) < min_size:
            continue
        ranked = sorted(members, key=lambda k: (-G.nodes[k].get("support", 0), G.nodes[k]["name"]))
        names = tuple(G.nodes[k]["name"] for k in ranked[:top])
        out.append(Community(" / ".join(names), tuple(ranked), len(members), names))
    return sorted(out, key=lambda c: (-c.size, c.label))

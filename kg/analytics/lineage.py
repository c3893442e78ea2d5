"""Method lineage (chains of USES) and who-outperforms-whom summaries."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import networkx as nx

__all__ = ["method_lineage", "Outperformance", "outperforms_summary"]


def _typed_edges(G: nx.MultiDiGraph, rtype: str) -> nx.DiGraph:
    H = nx.DiGraph()
    for u, v, key, data in G.edges(keys=True, data=True):
        if key == rtype:
            H.add_edge(u, v, support=data.get("support", 1))
    return H


def method_lineage(
    G: nx.MultiDiGraph, method: str, depth: int = 3, direction: str = "uses"
) -> list[list[str]]:
    """Return the USES chains from ``method`` (a key), longest first, at most ``depth`` hops.

    ``direction="uses"`` follows what the method builds on; ``"used_by"`` what builds on it.
    Each chain is a list of keys starting at ``method``; chains end where nothing follows.
    """
    if direction not in {"uses", "used_by"}:
        raise ValueError("direction must be 'uses' or 'used_by'")
    H = _typed_edges(G, "USES")
    if direction == "used_by":
        H = H.reverse(copy=False)
    if method not in H:
        return []
    chains: list[list[str]] = []

    def walk(path: list[str]) -> None:
        nexts = [v for v in sorted(H.successors(path[-1])) if v not in path]
        if len(path) > depth or not nexts:
            if len(path) > 1:
                chains.append(path)
            return
        for v in nexts:
            walk([*path, v])

    walk([method])
    return sorted(chains, key=lambda c: (-len(c), c))


@dataclass(frozen=True)
class Outperformance:
    """How often a method is reported to beat others, and to be beaten."""

    key: str
    name: str
    wins: int
    losses: int
    beats: tuple[str, ...]
    beaten_by: tuple[str, ...]


def outperforms_summary(G: nx.MultiDiGraph, n: int | None = None) -> list[Outperformance]:
    """Return methods with OUTPERFORMS claims, most wins (in papers) first."""
    wins: Counter = Counter()
    losses: Counter = Counter()
    beats: dict[str, list[str]] = {}
    beaten: dict[str, list[str]] = {}
    for u, v, key, data in G.edges(keys=True, data=True):
        if key != "OUTPERFORMS":
            continue
        wins[u] += data.get("support", 1)
        losses[v] += data.get("support", 1)
        beats.setdefault(u, []).append(G.nodes[v]["name"])
        beaten.setdefault(v, []).append(G.nodes[u]["name"])
    keys = sorted(set(wins) | set(losses), key=lambda k: (-wins[k], losses[k], G.nodes[k]["name"]))
    out = [
        Outperformance(
            k,
            G.nodes[k]["name"],
            wins[k],
            losses[k],
            tuple(sorted(beats.get(k, ()))),
            tuple(sorted(beaten.get(k, ()))),
        )
        for k in keys
    ]
    return out[:n] if n else out

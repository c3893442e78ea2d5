"""Curation diagnostics: likely duplicates, one-paper entities, papers without entities."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import networkx as nx
from rapidfuzz import fuzz

from kg.analytics.ranking import entities
from kg.names import normalise_name

__all__ = ["Duplicate", "likely_duplicates", "single_paper_entities", "papers_without_entities"]


@dataclass(frozen=True)
class Duplicate:
    """Two same-type entities that probably name one thing, and why."""

    a: str
    b: str
    type: str
    reason: str
    score: float


def likely_duplicates(
    G: nx.MultiDiGraph, threshold: float = 90.0, block_size: int = 300
) -> list[Duplicate]:
    """Return pairs of same-type entities sharing a name or alias, or with near names.

    Near names: RapidFuzz ratio ≥ ``threshold`` on normalised names, same digits, within
    blocks of a shared first word, each cut to its ``block_size`` best-supported names (so
    the search stays near-linear on big graphs).
    """
    out: dict[tuple[str, str], Duplicate] = {}
    by_form: dict[tuple[str, str], set[str]] = defaultdict(set)
    for key in entities(G):
        node = G.nodes[key]
        for form in (node["name"], *(node.get("aliases") or ())):
            by_form[(node["label"], normalise_name(form))].add(key)
    for (label, form), keys in by_form.items():
        for a in sorted(keys):
            for b in sorted(keys):
                if a < b:
                    out.setdefault((a, b), Duplicate(a, b, label, f"shared name {form!r}", 100.0))
    blocks: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for key in entities(G):
        node = G.nodes[key]
        norm = normalise_name(node["name"])
        if norm:
            blocks[(node["label"], norm.split()[0])].append((key, norm))
    for (label, _), items in blocks.items():
        items.sort(key=lambda kn: (-G.nodes[kn[0]].get("support", 0), kn[0]))
        items = sorted(items[:block_size])
        for i, (a, na) in enumerate(items):
            for b, nb in items[i + 1 :]:
                if (a, b) in out or [c for c in na if c.isdigit()] != [
                    c for c in nb if c.isdigit()
                ]:
                    continue
                score = fuzz.ratio(na, nb)
                if score >= threshold:
                    out[(a, b)] = Duplicate(a, b, label, "near names", score)
    return sorted(out.values(), key=lambda d: (-d.score, d.a, d.b))


def single_paper_entities(G: nx.MultiDiGraph, type: str | None = None) -> list[str]:
    """Return the keys of entities named in exactly one paper, by name."""
    keys = [k for k in entities(G, type) if G.nodes[k].get("support", 0) <= 1]
    return sorted(keys, key=lambda k: G.nodes[k]["name"])


def papers_without_entities(G: nx.MultiDiGraph) -> list[str]:
    """Return the keys of papers with no MENTIONS edge."""
    return sorted(
        n
        for n, d in G.nodes(data=True)
        if d.get("label") == "Paper"
        and not any(key == "MENTIONS" for _, _, key in G.out_edges(n, keys=True))
    )

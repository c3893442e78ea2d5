"""Entities rising or falling over the years of the papers that name them."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

import networkx as nx

__all__ = ["Trend", "trends"]


@dataclass(frozen=True)
class Trend:
    """Papers per year naming an entity, and the least-squares slope of their share."""

    key: str
    name: str
    type: str
    counts: dict[int, int]
    slope: float


def _year(data: dict) -> int | None:
    if data.get("year"):
        return int(data["year"])
    date = data.get("date") or ""
    return int(date[:4]) if date[:4].isdigit() else None


def trends(G: nx.MultiDiGraph, min_papers: int = 3, type: str | None = None) -> list[Trend]:
    """Return entities named in at least ``min_papers`` dated papers, steepest rise first.

    The slope is that of the entity's share of each year's papers (so a growing corpus
    does not make everything rise); falling entities come last with negative slopes.
    An empty list when fewer than two years have papers.
    """
    per_year: Counter = Counter()
    counts: dict[str, Counter] = defaultdict(Counter)
    for paper, data in G.nodes(data=True):
        if data.get("label") != "Paper":
            continue
        year = _year(data)
        if year is None:
            continue
        per_year[year] += 1
        for _, v, key in G.out_edges(paper, keys=True):
            if key == "MENTIONS" and (type is None or G.nodes[v]["label"] == type):
                counts[v][year] += 1
    years = sorted(per_year)
    if len(years) < 2:
        return []
    mean_x = sum(years) / len(years)
    var_x = sum((y - mean_x) ** 2 for y in years)
    out = []
    for key, by_year in counts.items():
        if sum(by_year.values()) < min_papers:
            continue
        shares = [by_year[y] / per_year[y] for y in years]
        mean_s = sum(shares) / len(shares)
        slope = sum((y - mean_x) * (s - mean_s) for y, s in zip(years, shares, strict=True))
        node = G.nodes[key]
        out.append(
            Trend(key, node["name"], node["label"], dict(sorted(by_year.items())), slope / var_x)
        )
    return sorted(out, key=lambda t: (-t.slope, t.name))

"""Leaderboards per (dataset, metric) from Result nodes, best first: the placements of
:mod:`kg.graph.boards` (the rules a build applies and stores on each Result) grouped into
boards, with the counts of rows each hid."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import networkx as nx

from kg.graph.boards import (
    DIRECTION_SHARE,
    HIDDEN_CHANGE,
    HIDDEN_IMPOSSIBLE,
    HIDDEN_NO_DATASET,
    HIDDEN_NO_METHOD,
    HIDDEN_NO_METRIC,
    HIDDEN_SAME,
    SCALE_SHARE,
    LeaderboardRow,
    Placement,
    Votes,
    board_properties,
    learn_directions,
    metric_direction,
    metric_scales,
    on_scale,
    placements,
    shipped_directions,
)
from kg.graph.store import GraphSource

__all__ = [
    "DIRECTION_SHARE",
    "HIDDEN_CHANGE",
    "HIDDEN_IMPOSSIBLE",
    "HIDDEN_NO_DATASET",
    "HIDDEN_NO_METHOD",
    "HIDDEN_NO_METRIC",
    "HIDDEN_SAME",
    "SCALE_SHARE",
    "Board",
    "LeaderboardRow",
    "Placement",
    "Votes",
    "board_properties",
    "boards_of",
    "comparable_rows",
    "learn_directions",
    "leaderboards",
    "metric_direction",
    "metric_scales",
    "on_scale",
    "placements",
    "shipped_directions",
]


@dataclass(frozen=True)
class Board:
    """A leaderboard: its direction, its rows best first, and the rows it hid, per reason."""

    direction: str
    rows: list[LeaderboardRow]
    hidden: dict[str, int] = field(default_factory=dict)


def boards_of(G: nx.MultiDiGraph | GraphSource, min_rows: int = 1) -> dict[tuple[str, str], Board]:
    """Return {(dataset, board): :class:`Board`} from the graph's Result nodes: the
    :func:`placements` of ``G`` grouped by board, each with its shown rows best first and
    its hidden rows counted per reason; boards with fewer than ``min_rows`` rows (or none)
    are left out.

    Only absolute results count (not deltas such as "+2.1 points"); a result needs a
    dataset, a metric and a method. Each metric's values are read on one scale, values of
    different units are never ranked together (``"accuracy [no unit]"``), and each board
    keeps one row per paper, method and condition, its best.
    """
    groups: dict[tuple[str, str], list[Placement]] = {}
    for p in placements(G):
        groups.setdefault((p.dataset, p.board), []).append(p)
    out = {}
    for key, group in groups.items():
        rows = [p.row for p in group if not p.hidden]
        if rows and len(rows) >= min_rows:
            hidden = Counter(p.hidden for p in group if p.hidden)
            out[key] = Board(group[0].direction, rows, dict(hidden))
    return out


def leaderboards(
    G: nx.MultiDiGraph, min_rows: int = 1
) -> dict[tuple[str, str], tuple[str, list[LeaderboardRow]]]:
    """Return {(dataset, metric): (direction, rows best first)}: the boards of
    :func:`boards_of` without their counts of hidden rows."""
    return {key: (b.direction, b.rows) for key, b in boards_of(G, min_rows).items()}


def comparable_rows(
    rows: Sequence[LeaderboardRow], direction: str, min_papers: int = 3
) -> list[LeaderboardRow]:
    """The rows of one leaderboard that can share an axis, best first; [] if too few.

    Keeps the most common unit (``%`` and no unit are not mixed), then the best value of
    each (paper, method), and returns them only when they come from at least
    ``min_papers`` different papers.

    >>> row = lambda p, m, v, u="%": LeaderboardRow("D", "acc", m, v, u, p, f"r{p}{v}")
    >>> rows = [row("p1", "A", 90), row("p1", "A", 85), row("p2", "B", 80),
    ...         row("p3", "C", 0.7, None), row("p4", "C", 70)]
    >>> [(r.paper_id, r.value) for r in comparable_rows(rows, "higher")]
    [('p1', 90), ('p2', 80), ('p4', 70)]
    >>> comparable_rows(rows[:3], "higher")
    []
    """
    if not rows:
        return []
    units = Counter(r.unit for r in rows)
    unit = min(units, key=lambda u: (-units[u], u or ""))
    sign = 1 if direction == "lower" else -1
    best: dict[tuple[str, str | None], LeaderboardRow] = {}
    for r in sorted(rows, key=lambda r: (sign * r.value, r.method or "", r.paper_id)):
        if r.unit == unit:
            best.setdefault((r.paper_id, r.method), r)
    kept = sorted(best.values(), key=lambda r: (sign * r.value, r.method or "", r.paper_id))
    return kept if len({r.paper_id for r in kept}) >= min_papers else []

"""Leaderboards per (dataset, metric) from Result nodes, best first."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

__all__ = ["LeaderboardRow", "comparable_rows", "leaderboards", "metric_direction"]

_LOWER = re.compile(
    r"\b(error|errors|loss|perplexity|ppl|wer|cer|ter|fid|kid|mae|mse|rmse|rmsle|nll|eer|"
    r"latency|runtime|inference time|distance|divergence|abs ?rel|sq ?rel|chamfer|"
    r"miss rate|false positive rate|fpr|bits per|bpc|bpd|regret|ece|epe|ade|fde|lpips|"
    r"memory|flops|params|parameters)\b",
    re.IGNORECASE,
)


def metric_direction(name: str | None) -> str:
    """Return ``"lower"`` when a smaller value of the metric ``name`` is better, else ``"higher"``.

    Examples
    --------
    >>> metric_direction("word error rate (WER)"), metric_direction("top-1 accuracy")
    ('lower', 'higher')
    """
    return "lower" if name and _LOWER.search(name) else "higher"


@dataclass(frozen=True)
class LeaderboardRow:
    """One reported score: which method reached which value, where it was reported."""

    dataset: str
    metric: str
    method: str | None
    value: float
    unit: str | None
    paper_id: str
    result: str
    own: bool | None = None  # the paper's proposed method (True), a baseline (False)


def _target(G: nx.MultiDiGraph, node: str, rtype: str) -> str | None:
    for _, v, key in G.out_edges(node, keys=True):
        if key == rtype:
            return v
    return None


def leaderboards(
    G: nx.MultiDiGraph, min_rows: int = 1
) -> dict[tuple[str, str], tuple[str, list[LeaderboardRow]]]:
    """Return {(dataset, metric): (direction, rows best first)} from the graph's Result nodes.

    Only absolute results count (not deltas such as "+2.1 points"); a result needs a
    dataset and a metric. ``direction`` is ``metric_direction(metric)``.
    """
    boards: dict[tuple[str, str], list[LeaderboardRow]] = defaultdict(list)
    for node, data in G.nodes(data=True):
        if data.get("label") != "Result" or data.get("delta"):
            continue
        dataset = _target(G, node, "ON_DATASET")
        metric_node = _target(G, node, "MEASURED_BY")
        metric = G.nodes[metric_node]["name"] if metric_node else data.get("metric_name")
        if dataset is None or not metric:
            continue
        method = _target(G, node, "FOR_METHOD")
        boards[(G.nodes[dataset]["name"], metric)].append(
            LeaderboardRow(
                dataset=G.nodes[dataset]["name"],
                metric=metric,
                method=G.nodes[method]["name"] if method else None,
                value=float(data["value"]),
                unit=data.get("unit"),
                paper_id=data.get("paper_id", ""),
                result=node,
                own=data.get("own"),
            )
        )
    out = {}
    for (dataset, metric), rows in sorted(boards.items()):
        if len(rows) < min_rows:
            continue
        direction = metric_direction(metric)
        sign = 1 if direction == "lower" else -1
        rows.sort(key=lambda r: (sign * r.value, r.method or "", r.paper_id))
        out[(dataset, metric)] = (direction, rows)
    return out


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

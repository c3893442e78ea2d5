"""Leaderboards per (dataset, metric) from Result nodes, best first."""

from __future__ import annotations

import csv
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import networkx as nx

from kg.names import normalise_name

__all__ = [
    "Board",
    "LeaderboardRow",
    "boards_of",
    "comparable_rows",
    "learn_directions",
    "leaderboards",
    "metric_direction",
    "metric_scales",
    "on_scale",
]

DIRECTION_SHARE = 0.7
"""The share of the papers claiming a change for a metric that must agree on its way
before the metric is ordered by it."""

Votes = dict[str, tuple[int, int]]
"""Papers that raised and that lowered each metric (normalised name) in a claimed change."""


@lru_cache(maxsize=1)
def shipped_directions() -> Votes:
    """The changes papers of the shared corpus claim per metric
    (``kg/analytics/data/metric_directions.tsv``, made by scripts/learn_directions.py)."""
    path = Path(__file__).with_name("data") / "metric_directions.tsv"
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8", newline="") as fh:
        return {
            r["metric"]: (int(r["up"]), int(r["down"])) for r in csv.DictReader(fh, delimiter="\t")
        }


def learn_directions(G: nx.MultiDiGraph) -> Votes:
    """Count, per metric, the papers of ``G`` whose claimed change raised it and those
    whose claim lowered it (Result nodes with ``change``; a baseline's changes do not
    count): "reduces FID by 2.1" is a vote for lower FID."""
    votes: dict[str, tuple[set, set]] = defaultdict(lambda: (set(), set()))
    for node, data in G.nodes(data=True):
        if data.get("label") != "Result" or data.get("change") not in ("up", "down"):
            continue
        if data.get("own") is False:
            continue
        metric_node = _target(G, node, "MEASURED_BY")
        name = G.nodes[metric_node]["name"] if metric_node else data.get("metric_name")
        if name:
            up, down = votes[normalise_name(name)]
            (up if data["change"] == "up" else down).add(data.get("paper_id", node))
    return {m: (len(up), len(down)) for m, (up, down) in votes.items()}


def metric_direction(name: str | None, learned: Votes | None = None) -> str:
    """Return ``"lower"`` when a smaller value of the metric ``name`` is better, else
    ``"higher"``, as the changes papers claim say: this graph's (``learned``) and the
    shared corpus's, for the name, else for its words ("word error rate" by "error");
    a metric nothing decides is higher-is-better.

    Examples
    --------
    >>> metric_direction("word error rate"), metric_direction("top-1 accuracy")
    ('lower', 'higher')
    >>> metric_direction("zorp", {"zorp": (0, 3)})
    'lower'
    """
    directions = _Directions(learned) if learned else _shipped_only()
    return directions.of(name)


class _Directions:
    """The votes per metric name and per word, summed once over the shipped table and
    a graph's own (``learned``), for many :meth:`of` calls."""

    def __init__(self, learned: Votes | None = None) -> None:
        votes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for table in (shipped_directions(), learned or {}):
            for metric, (up, down) in table.items():
                votes[metric][0] += up
                votes[metric][1] += down
        words: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for metric, (up, down) in votes.items():
            for word in set(metric.split()):
                words[word][0] += up
                words[word][1] += down
        self.votes, self.words = dict(votes), dict(words)

    def of(self, name: str | None) -> str:
        if not name:
            return "higher"
        norm = normalise_name(name)
        found = _decided(self.votes.get(norm, (0, 0)), min_papers=1)
        if found:
            return found
        known = [self.words[w] for w in set(norm.split()) if w in self.words]
        decided = [v for v in known if _decided(v, 3)]
        up, down = sum(v[0] for v in decided), sum(v[1] for v in decided)
        return _decided((up, down), min_papers=3) or "higher"


@lru_cache(maxsize=1)
def _shipped_only() -> _Directions:
    return _Directions()


def _decided(votes, min_papers: int) -> str | None:
    up, down = votes
    if up + down < min_papers:
        return None
    if down >= DIRECTION_SHARE * (up + down):
        return "lower"
    if up >= DIRECTION_SHARE * (up + down):
        return "higher"
    return None


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
    condition: str | None = None  # what the number depends on ("1% labeled data")
    evidence: str | None = None  # the sentence that reports it
    note: str | None = None  # how the value was read ("0.875 read as 87.5%")


@dataclass(frozen=True)
class Board:
    """A leaderboard: its direction, its rows best first, and the rows it hid, per reason."""

    direction: str
    rows: list[LeaderboardRow]
    hidden: dict[str, int] = field(default_factory=dict)


SCALE_SHARE = 0.5
"""The share of a metric's rows that must be percentages (or fractions from 0 to 1) before
its other values are read on that scale."""
HIDDEN_SAME = "a better value of the same paper, method and setting is shown"
HIDDEN_NO_METHOD = "no method named"
HIDDEN_IMPOSSIBLE = "a value the metric cannot take"


def _target(G: nx.MultiDiGraph, node: str, rtype: str) -> str | None:
    for _, v, key in G.out_edges(node, keys=True):
        if key == rtype:
            return v
    return None


def _result_rows(G: nx.MultiDiGraph) -> dict[tuple[str, str], list[LeaderboardRow]]:
    """The absolute results of ``G`` with a dataset and a metric, per (dataset, metric)."""
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
                condition=data.get("condition"),
                evidence=data.get("evidence"),
            )
        )
    return boards


def metric_scales(rows: Sequence[LeaderboardRow]) -> dict[str, str]:
    """The scale of each metric (normalised name): ``"%"`` when at least
    :data:`SCALE_SHARE` of its values are percentages, ``"fraction"`` when that share are
    unitless values from 0 to 1; metrics on neither scale are left out.

    >>> row = lambda v, u: LeaderboardRow("D", "acc", "A", v, u, "p", "r")
    >>> metric_scales([row(81.0, "%"), row(0.7, None), row(77.0, "%")])
    {'acc': '%'}
    """
    counts: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        kind = r.unit or ("fraction" if 0 <= r.value <= 1 else "other")
        counts[normalise_name(r.metric)][kind] += 1
    out = {}
    for metric, c in counts.items():
        total = sum(c.values())
        for scale in ("%", "fraction"):
            if c[scale] >= SCALE_SHARE * total:
                out[metric] = scale
                break
    return out


def on_scale(row: LeaderboardRow, scale: str | None) -> LeaderboardRow | None:
    """``row`` read on its metric's ``scale`` (a fraction as a percentage or the other way,
    said in ``note``), or None when the value is one the scale cannot take (over 100%, a
    fraction over 1). Metrics of no scale keep their rows as they are.

    >>> row = LeaderboardRow("D", "acc", "A", 0.875, None, "p", "r")
    >>> on_scale(row, "%").value, on_scale(row, "%").note
    (87.5, '0.875 read as 87.5%')
    >>> on_scale(LeaderboardRow("D", "acc", "A", 120.0, "%", "p", "r"), "%") is None
    True
    """
    if scale == "%":
        if row.unit is None and 0 <= row.value <= 1:
            value = round(row.value * 100, 4)
            return replace(
                row, value=value, unit="%", note=f"{_num(row.value)} read as {_num(value)}%"
            )
        if row.unit in (None, "%") and 0 <= row.value <= 100:
            return replace(row, unit="%")
        return None if row.unit in (None, "%") else row
    if scale == "fraction":
        if row.unit == "%" and 0 <= row.value <= 100:
            value = round(row.value / 100, 6)
            return replace(
                row, value=value, unit=None, note=f"{_num(row.value)}% read as {_num(value)}"
            )
        if row.unit is None and not 0 <= row.value <= 1:
            return None
    return row


def _num(value: float) -> str:
    return f"{value:g}"


def boards_of(G: nx.MultiDiGraph, min_rows: int = 1) -> dict[tuple[str, str], Board]:
    """Return {(dataset, metric): :class:`Board`} from the graph's Result nodes.

    Only absolute results count (not deltas such as "+2.1 points"); a result needs a
    dataset, a metric and a method. ``direction`` is ``metric_direction(metric)``, with the
    changes this graph's papers claim. Each metric's values are read on one scale
    (:func:`metric_scales`, :func:`on_scale`), and values of different units are never
    ranked together: the most common unit's rows keep the (dataset, metric) board, the
    others get boards of their own (``"accuracy [no unit]"``). Each board keeps one row
    per paper, method and condition, its best, and counts the rows it hid, per reason.
    """
    boards = _result_rows(G)
    scales = metric_scales([r for rows in boards.values() for r in rows])
    directions = _Directions(learn_directions(G))
    out = {}
    for (dataset, metric), rows in sorted(boards.items()):
        direction = directions.of(metric)
        hidden: Counter = Counter()
        read = []
        for r in rows:
            scaled = on_scale(r, scales.get(normalise_name(metric)))
            if scaled is None:
                hidden[HIDDEN_IMPOSSIBLE] += 1
            elif r.method is None:
                hidden[HIDDEN_NO_METHOD] += 1
            else:
                read.append(scaled)
        for name, board in _unit_boards(metric, read, direction).items():
            if len(board.rows) >= min_rows:
                out[(dataset, name)] = Board(
                    direction, board.rows, dict(hidden + Counter(board.hidden))
                )
            hidden = Counter()  # said once, on the metric's main board
    return out


def _unit_boards(metric: str, rows: list[LeaderboardRow], direction: str) -> dict[str, Board]:
    """The boards of one (dataset, metric): one per unit, the most common unit's first
    (named as the metric), each with one row per paper, method and condition."""
    sign = 1 if direction == "lower" else -1
    units = Counter(r.unit for r in rows)
    out = {}
    for rank, (unit, _) in enumerate(sorted(units.items(), key=lambda u: (-u[1], u[0] or ""))):
        best: dict[tuple, LeaderboardRow] = {}
        same = 0
        for r in sorted(rows, key=lambda r: (sign * r.value, r.method or "", r.paper_id)):
            if r.unit != unit:
                continue
            if (r.paper_id, r.method, r.condition) in best:
                same += 1
            best.setdefault((r.paper_id, r.method, r.condition), r)
        name = metric if rank == 0 else f"{metric} [{unit or 'no unit'}]"
        out[name] = Board(direction, list(best.values()), {HIDDEN_SAME: same} if same else {})
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

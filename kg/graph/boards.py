"""The leaderboard rules: where each Result of the graph goes on the boards of its data
set and metric (its metric read on one scale, the board's direction as papers move the
metric, one row per paper, method and condition), decided once the graph is whole, so that
the build stores the decision on the node and every store and view reads the same."""

from __future__ import annotations

import csv
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import networkx as nx

from kg.graph.store import GraphSource, graph_source
from kg.names import normalise_name

__all__ = [
    "DIRECTION_SHARE",
    "HIDDEN_CHANGE",
    "HIDDEN_IMPOSSIBLE",
    "HIDDEN_NO_DATASET",
    "HIDDEN_NO_METHOD",
    "HIDDEN_NO_METRIC",
    "HIDDEN_SAME",
    "LeaderboardRow",
    "Placement",
    "SCALE_SHARE",
    "Votes",
    "board_properties",
    "learn_directions",
    "metric_direction",
    "metric_scales",
    "on_scale",
    "placements",
    "shipped_directions",
]

DIRECTION_SHARE = 0.7
"""The share of the papers claiming a change for a metric that must agree on its way
before the metric is ordered by it."""

Votes = dict[str, tuple[int, int]]
"""Papers that raised and that lowered each metric (normalised name) in a claimed change."""


@lru_cache(maxsize=1)
def shipped_directions() -> Votes:
    """The changes papers of the shared corpus claim per metric
    (``kg/graph/data/metric_directions.tsv``, made by scripts/learn_directions.py)."""
    path = Path(__file__).with_name("data") / "metric_directions.tsv"
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8", newline="") as fh:
        return {
            r["metric"]: (int(r["up"]), int(r["down"])) for r in csv.DictReader(fh, delimiter="\t")
        }


def learn_directions(G: nx.MultiDiGraph | GraphSource) -> Votes:
    """Count, per metric, the papers of ``G`` whose claimed change raised it and those
    whose claim lowered it (Result nodes with ``change``; a baseline's changes do not
    count): "reduces FID by 2.1" is a vote for lower FID."""
    return _read_results(graph_source(G), evidence=False).votes


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


@dataclass(frozen=True, slots=True)
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


SCALE_SHARE = 0.5
"""The share of a metric's rows that must be percentages (or fractions from 0 to 1) before
its other values are read on that scale."""
HIDDEN_SAME = "a better value of the same paper, method and setting is shown"
HIDDEN_NO_METHOD = "no method named"
HIDDEN_IMPOSSIBLE = "a value the metric cannot take"


HIDDEN_CHANGE = "a change, not a score"
HIDDEN_NO_DATASET = "no data set named"
HIDDEN_NO_METRIC = "no metric named"
"""Why a Result is on no board at all (:func:`board_properties` says so on the node)."""

_BOARD_EDGES = ("ON_DATASET", "MEASURED_BY", "FOR_METHOD")


@dataclass
class _Results:
    """The Result nodes of a graph as the board rules read them."""

    boards: dict[tuple[str, str, str], list[LeaderboardRow]]  # by (dataset, metric, setting)
    off: dict[str, tuple[str, float, str | None]]  # key -> (why on no board, value, unit)
    votes: Votes


def _ends(source: GraphSource) -> dict[str, dict[str, str | None]]:
    """For each of :data:`_BOARD_EDGES`, the name of the entity each node points at (a
    Result's data set, metric and method), read from the edges and then the entities
    pointed at only."""
    ends: dict[str, dict[str, str | None]] = {rtype: {} for rtype in _BOARD_EDGES}
    for rtype, to in ends.items():
        for u, v, _, _ in source.edges(rtype, evidence_json=True):
            to[u] = sys.intern(v)  # many results point at one entity
    wanted = set().union(*(to.values() for to in ends.values()))
    names = {}
    for label in ("Dataset", "Metric", "Method"):
        names.update((k, d["name"]) for k, d in source.nodes(label) if k in wanted)
    for to in ends.values():
        for u, v in to.items():
            to[u] = names.get(v)
    return ends


def _off_board(data: dict[str, Any], dataset: str | None, metric: str | None) -> str:
    """Why a Result is on no board ("" when it is on one)."""
    if data.get("delta"):
        return HIDDEN_CHANGE
    if dataset is None:
        return HIDDEN_NO_DATASET
    return "" if metric else HIDDEN_NO_METRIC


def _read_results(source: GraphSource, *, evidence: bool = True) -> _Results:
    """Read every Result node of ``source`` once: the absolute results with a data set and
    a metric as rows (with their sentence unless not ``evidence``), why the others are on
    no board, and the changes papers claim per metric (:func:`learn_directions`)."""
    ends = _ends(source)
    out = _Results(defaultdict(list), {}, {})
    votes: dict[str, tuple[set, set]] = defaultdict(lambda: (set(), set()))
    for node, data in source.nodes("Result"):
        metric = ends["MEASURED_BY"].get(node) or data.get("metric_name")
        if metric and data.get("change") in ("up", "down") and data.get("own") is not False:
            up, down = votes[normalise_name(metric)]
            (up if data["change"] == "up" else down).add(data.get("paper_id", node))
        dataset = ends["ON_DATASET"].get(node)
        value, unit = float(data["value"]), data.get("unit")
        off = _off_board(data, dataset, metric)
        if off:
            out.off[node] = (off, value, unit)
            continue
        method = ends["FOR_METHOD"].get(node)
        out.boards[(dataset, metric, data.get("condition") or "")].append(
            LeaderboardRow(
                dataset=dataset,
                metric=metric,
                method=method,
                value=value,
                unit=unit,
                paper_id=data.get("paper_id", ""),
                result=node,
                own=data.get("own"),
                condition=data.get("condition"),
                evidence=data.get("evidence") if evidence else None,
            )
        )
    out.votes = {m: (len(up), len(down)) for m, (up, down) in votes.items()}
    return out


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


@dataclass(frozen=True, slots=True)
class Placement:
    """What the board rules decided for one result: the board it is on (its data set and
    the board's name, ``"accuracy [no unit]"`` for a second unit), the board's direction,
    the row as read on its metric's scale, and why it is hidden ("" when shown)."""

    dataset: str
    board: str
    direction: str
    row: LeaderboardRow
    hidden: str = ""


def placements(G: nx.MultiDiGraph | GraphSource, *, evidence: bool = True) -> list[Placement]:
    """Apply the board rules to the Result nodes of ``G`` (a graph, or a build's tables):
    one :class:`Placement` per absolute result with a data set and a metric, each board's
    shown rows best first, then its hidden ones. The one place the rules are applied:
    :func:`kg.analytics.leaderboards.boards_of` groups these into boards, and
    :func:`board_properties` is what a build stores on the nodes.

    A result needs a method. ``direction`` is ``metric_direction(metric)``, with the
    changes this graph's papers claim. Results of a setting (a result's ``condition``,
    "reconstruction", "Best-of-N") are on a board of their own, ``"FID
    (reconstruction)"``. Each metric's values are read on one scale
    (:func:`metric_scales`, :func:`on_scale`), and values of different units are never
    ranked together: the most common unit's rows keep the (dataset, metric) board, the
    others get boards of their own. Each board keeps one row per paper, method and
    condition, its best. Rows hidden for their value or for naming no method are said on
    the metric's main board.
    """
    return _place(_read_results(graph_source(G), evidence=evidence))


def _place(results: _Results) -> list[Placement]:
    scales = metric_scales([r for rows in results.boards.values() for r in rows])
    directions = _Directions(results.votes)
    out = []
    for (dataset, metric, setting), rows in sorted(results.boards.items()):
        direction = directions.of(metric)
        scale = scales.get(normalise_name(metric))
        metric = f"{metric} ({setting})" if setting else metric  # the board's name
        read = []
        for r in rows:
            scaled = on_scale(r, scale)
            if scaled is None:
                out.append(Placement(dataset, metric, direction, r, HIDDEN_IMPOSSIBLE))
            elif r.method is None:
                out.append(Placement(dataset, metric, direction, scaled, HIDDEN_NO_METHOD))
            else:
                read.append(scaled)
        out += _unit_boards(dataset, metric, read, direction)
    return out


def _unit_boards(
    dataset: str, metric: str, rows: list[LeaderboardRow], direction: str
) -> list[Placement]:
    """The rows of one (dataset, metric) placed on one board per unit, the most common
    unit's first (named as the metric): on each, the best row of each paper, method and
    condition is shown, best first (ties by method, paper, condition and result key, as
    the saved query ``leaderboard`` orders them), the others are hidden after them."""
    sign = 1 if direction == "lower" else -1
    ordered = sorted(rows, key=lambda r: (sign * r.value, r.method or "", r.paper_id,
                                          r.condition or "", r.result))  # fmt: skip
    units = Counter(r.unit for r in rows)
    out = []
    for rank, (unit, _) in enumerate(sorted(units.items(), key=lambda u: (-u[1], u[0] or ""))):
        name = metric if rank == 0 else f"{metric} [{unit or 'no unit'}]"
        seen: set[tuple] = set()
        shown, same = [], []
        for r in ordered:
            if r.unit != unit:
                continue
            key = (r.paper_id, r.method, r.condition)
            if key in seen:
                same.append(Placement(dataset, name, direction, r, HIDDEN_SAME))
            else:
                seen.add(key)
                shown.append(Placement(dataset, name, direction, r))
        out += shown + same
    return out


def board_properties(G: nx.MultiDiGraph | GraphSource) -> dict[str, dict[str, Any]]:
    """Return, for every Result node of ``G`` (a graph, or a build's tables), what the
    board rules decided (:func:`placements`), as the properties a build stores on it
    (:data:`kg.graph.model.BOARD_PROPERTIES`): ``board_metric`` (the board it is on),
    ``board_direction`` (``"higher"`` or ``"lower"`` is better), ``board_value`` and
    ``board_unit`` (its value on the metric's scale), ``board_note`` (how it was read,
    "0.875 read as 87.5%"), ``board_shown`` and ``board_hidden`` (why it is hidden). A
    text that says nothing is None (no board, no unit, no note, not hidden), as in every
    store. A result on no board (a change, or one with no data set or metric) keeps its
    own value and unit and says why in ``board_hidden``.

    >>> board_properties(nx.MultiDiGraph())
    {}
    """
    results = _read_results(graph_source(G), evidence=False)
    out = {key: _properties(None, None, value, unit, None, why)
           for key, (why, value, unit) in results.off.items()}  # fmt: skip
    for p in _place(results):
        out[p.row.result] = _properties(
            p.board, p.direction, p.row.value, p.row.unit, p.row.note, p.hidden
        )
    return out


def _properties(board, direction, value, unit, note, hidden) -> dict[str, Any]:
    return {"board_metric": board, "board_direction": direction, "board_value": value,
            "board_unit": unit or None, "board_note": note or None, "board_shown": not hidden,
            "board_hidden": hidden or None}  # fmt: skip

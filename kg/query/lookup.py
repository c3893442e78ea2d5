"""Which saved-query parameters name an entity the graph does not have, and close names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kg.query.engines import Engine
from kg.query.saved import Param, SavedQuery
from kg.schema import ENTITY_TYPES

__all__ = [
    "UnknownName",
    "close_names",
    "explain_empty",
    "paper_matches",
    "refers_to",
    "resolve_papers",
    "unknown_names",
]

ENTITY_LABELS = ENTITY_TYPES
_REFERS = re.compile(r"\ba (?:(?P<label>Method|Task|Dataset|Metric) )?name, alias or key\b")


@dataclass(frozen=True)
class UnknownName:
    """A parameter value that names nothing in the graph, with the closest names there."""

    param: str
    value: str
    label: str  # Method, Task, Dataset, Metric, Paper, or "entity" for any of the four
    suggestions: tuple[str, ...]

    def __str__(self) -> str:
        what = "entity" if self.label == "entity" else self.label
        text = f"no {what} called {self.value!r} in this graph (--param {self.param})"
        if self.suggestions:
            text += "; close names: " + ", ".join(self.suggestions)
        return text


def refers_to(param: Param) -> str | None:
    """The label a parameter names (``entity`` for any entity, ``Paper``), or None.

    >>> refers_to(Param("dataset", "ImageNet", True, "a Dataset name, alias or key"))
    'Dataset'
    >>> refers_to(Param("limit", 20, False, "rows to return")) is None
    True
    """
    if "paper id" in param.help:
        return "Paper"
    match = _REFERS.search(param.help)
    if match is None:
        return None
    return match["label"] or "entity"


def _labels(label: str) -> str:
    return "|".join(ENTITY_LABELS) if label == "entity" else label


def _classes(label: str) -> str:
    return " ".join(f"kgo:{lab}" for lab in (ENTITY_LABELS if label == "entity" else (label,)))


def _exists_sparql(engine: Engine, label: str, value: str) -> bool:
    if label == "Paper":
        query = (
            "SELECT ?p $v WHERE { ?p a kgo:Paper . "
            "{ ?p dcterms:identifier $v } UNION { ?p kgo:key $v } } LIMIT 1"
        )
    else:  # classes come from the fixed schema above, never from the user
        query = (
            f"SELECT ?e $v WHERE {{ VALUES ?class {{ {_classes(label)} }} "
            "{ ?e kgo:key $v } UNION { ?e skos:altLabel $v } "
            "UNION { BIND(LCASE($v) AS ?f) LATERAL { ?e kgo:foldedName ?f } } "
            "?e a ?class } LIMIT 1"
        )
    return bool(engine.run(query, {"v": value}).rows)


def _names_query(engine: Engine, label: str) -> str:
    if engine.name == "sparql":
        if label == "Paper":
            return (
                "SELECT ?name ?title WHERE { ?p a kgo:Paper ; dcterms:identifier ?name . "
                'OPTIONAL { ?p dcterms:title ?t } BIND(COALESCE(?t, "") AS ?title) }'
            )
        return (
            f"SELECT ?name ?papers WHERE {{ VALUES ?class {{ {_classes(label)} }} "
            "?e a ?class ; skos:prefLabel ?name ; kgo:support ?papers }"
        )
    if label == "Paper":
        return "MATCH (p:Paper) RETURN p.paper_id AS name, coalesce(p.title, '') AS title"
    return f"MATCH (e:{_labels(label)}) RETURN e.name AS name, e.support AS papers"


def _exists(engine: Engine, label: str, value: str) -> bool:
    if engine.name == "sparql":
        return _exists_sparql(engine, label, value)
    if label == "Paper":
        query = "MATCH (p:Paper) WHERE p.paper_id = $v OR p.key = $v RETURN p.key LIMIT 1"
    else:  # labels come from the fixed schema above, never from the user
        query = (
            f"MATCH (e:{_labels(label)}) WHERE e.key = $v OR lower(e.name) = lower($v) "
            "OR $v IN e.aliases RETURN e.key LIMIT 1"
        )
    return bool(engine.run(query, {"v": value}).rows)


def close_names(engine: Engine, label: str, value: str, n: int = 5) -> tuple[str, ...]:
    """Up to ``n`` names of ``label`` nodes close to ``value``: those containing it first
    (most supported first, as ``find-entity`` orders them), then by fuzzy similarity."""
    from rapidfuzz import fuzz, process

    query = _names_query(engine, label)
    if label == "Paper":
        rows = engine.run(query).rows
        names = {name: f"{name} {title}" for name, title in rows}
    else:
        rows = sorted(engine.run(query).rows, key=lambda r: (-(r[1] or 0), r[0]))
        names = {name: name for name, _ in rows}
    needle = value.lower()
    found = [name for name, text in names.items() if needle in text.lower()][:n]
    if len(found) < n and label != "Paper":  # ids are not words: no fuzzy match for them
        scored = process.extract(
            value, names, scorer=fuzz.WRatio, processor=str.lower, limit=n, score_cutoff=60
        )
        found += [name for _, _, name in scored if name not in found][: n - len(found)]
    return tuple(found)


def unknown_names(engine: Engine, query: SavedQuery, params: dict[str, Any]) -> list[UnknownName]:
    """The parameters of ``query`` whose value names no node of the graph on ``engine``."""
    out = []
    for param in query.params:
        label = refers_to(param)
        value = params.get(param.name)
        if label is None or not isinstance(value, str) or not value:
            continue
        if not _exists(engine, label, value):
            out.append(UnknownName(param.name, value, label, close_names(engine, label, value)))
    return out


def paper_matches(engine: Engine, value: str, n: int = 6) -> list[tuple[str, str]]:
    """Papers whose title is ``value``, or whose title or abstract starts with it (any
    case, spaces collapsed): ``(paper id, what it is called)``, at most ``n``. Papers of a
    text input have no id but a hash; this finds them by their first words."""
    value = " ".join(value.split())
    if engine.name == "sparql":
        query = (
            "SELECT ?id ?title ?text $v WHERE { ?p a kgo:Paper ; dcterms:identifier ?id . "
            "OPTIONAL { ?p dcterms:title ?title } OPTIONAL { ?p dcterms:abstract ?text } "
            'BIND(LCASE(COALESCE(?title, "")) AS ?t) BIND(LCASE($v) AS ?w) '
            'FILTER(STRSTARTS(?t, ?w) || STRSTARTS(LCASE(COALESCE(?text, "")), ?w)) } '
            "ORDER BY ?id"
        )
    else:
        query = (
            "MATCH (p:Paper) WHERE lower(coalesce(p.title, '')) STARTS WITH lower($v) "
            "OR lower(coalesce(p.text, '')) STARTS WITH lower($v) "
            "RETURN p.paper_id AS id, p.title AS title, p.text AS text ORDER BY id"
        )
    rows = engine.run(query, {"v": value}).rows[:n]
    out = []
    for paper_id, title, text in rows:
        words = (text or "").split()
        out.append((paper_id, title or " ".join(words[:8]) + (" …" if len(words) > 8 else "")))
    return out


def resolve_papers(
    engine: Engine, query: SavedQuery, params: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """Return ``params`` with each paper parameter that is not a paper id but names one
    paper by its title or first words replaced by that paper's id, and a note for each.
    A value that several papers start with is an error that lists them."""
    from kg.errors import KgError

    params = dict(params)
    notes = []
    for param in query.params:
        value = params.get(param.name)
        if refers_to(param) != "Paper" or not isinstance(value, str) or not value:
            continue
        if _exists(engine, "Paper", value):
            continue
        found = paper_matches(engine, value)
        if len(found) == 1:
            params[param.name] = found[0][0]
            notes.append(f"--param {param.name}: {value!r} is paper {found[0][0]} ({found[0][1]})")
        elif len(found) > 1:
            listed = "; ".join(f"{pid} ({label})" for pid, label in found[:5])
            raise KgError(
                f"--param {param.name} {value!r}: several papers start so: {listed}; give "
                "more of the title or first words, or the paper id"
            )
    return params, notes


def explain_empty(engine: Engine, query: SavedQuery, params: dict[str, Any]) -> str | None:
    """Why a leaderboard is empty: the data set has no results, none of them is on a
    leaderboard (changes, or no metric named), no board's name contains the metric asked
    for (with the boards it has), or the board rules hide every row. None for other
    queries."""
    if query.name != "leaderboard" or not params.get("dataset"):
        return None
    if engine.name == "sparql":
        text = (
            "SELECT ?board (COUNT(?r) AS ?n) (SUM(?on) AS ?shown) "
            "(SUM(IF(BOUND(?s), 0, 1)) AS ?unplaced) $dataset WHERE { "
            "{ SELECT DISTINCT ?d $dataset WHERE { { ?d kgo:key $dataset } "
            "UNION { ?d skos:altLabel $dataset } UNION { BIND(LCASE($dataset) AS ?f) "
            "LATERAL { ?d kgo:foldedName ?f } } LATERAL { ?d a kgo:Dataset } } } "
            "?r kgo:onDataset ?d . OPTIONAL { ?r kgo:boardMetric ?m } "
            'OPTIONAL { ?r kgo:boardShown ?s } BIND(COALESCE(?m, "") AS ?board) '
            "BIND(IF(COALESCE(?s, false), 1, 0) AS ?on) } "
            "GROUP BY ?board $dataset ORDER BY DESC(?n) ?board"
        )
    else:
        text = (
            "MATCH (r:Result)-[:ON_DATASET]->(d:Dataset) WHERE (d.key = $dataset OR "
            "lower(d.name) = lower($dataset) OR $dataset IN d.aliases) "
            "RETURN coalesce(r.board_metric, '') AS board, count(*) AS n, "
            "sum(CASE WHEN r.board_shown THEN 1 ELSE 0 END) AS shown, "
            "sum(CASE WHEN r.board_shown IS NULL THEN 1 ELSE 0 END) AS unplaced "
            "ORDER BY n DESC, board"
        )
    dataset, metric = params["dataset"], str(params.get("metric") or "")
    rows = engine.run(text, {"dataset": dataset}).rows
    if not rows:
        return f"no results are reported on {dataset!r} in this graph"
    total = sum(int(n) for _, n, _, _ in rows)
    if sum(int(unplaced or 0) for *_, unplaced in rows) == total:
        return (
            f"the results on {dataset!r} carry no leaderboard (the board_* properties of "
            "Result nodes): an older kg made this build or loaded this database; build it "
            "again (and load it again into Neo4j)"
        )
    boards = [(board, int(n), int(shown or 0)) for board, n, shown, _ in rows if board]
    if not boards:
        return (
            f"none of the {total} results on {dataset!r} is on a leaderboard: each is a "
            "change (a gain, not a score) or names no metric"
        )
    saved = query.text if engine.name == "sparql" else query.text_for(engine.name)
    if not params.get("show_hidden") and engine.run(saved, {**params, "show_hidden": True}).rows:
        which = f" of {metric!r}" if metric else ""
        return (
            f"the board rules hide every row of the leaderboards{which} on {dataset!r} "
            "(-p show_hidden=true lists them, each with its reason)"
        )
    listed = ", ".join(f"{b} ({s} shown, {n - s} hidden)" for b, n, s in boards[:10])
    return (
        f"no leaderboard on {dataset!r} has {metric!r} in its name or its metric's "
        f"aliases; its leaderboards: {listed}"
    )

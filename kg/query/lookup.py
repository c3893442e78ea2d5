"""Which saved-query parameters name an entity the graph does not have, and close names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kg.query.engines import Engine
from kg.query.saved import Param, SavedQuery

__all__ = ["UnknownName", "refers_to", "unknown_names", "close_names"]

ENTITY_LABELS = ("Method", "Task", "Dataset", "Metric")
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

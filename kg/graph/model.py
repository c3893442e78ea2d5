"""kg's fixed graph model: node labels, relationship types, their ends and properties."""

from __future__ import annotations

__all__ = [
    "ENTITY_LABELS",
    "NODE_LABELS",
    "RELATION_TYPES",
    "EDGE_ENDS",
    "NODE_PROPERTIES",
    "BOARD_PROPERTIES",
    "EDGE_PROPERTIES",
    "edge_properties",
    "check_label",
    "check_edge_type",
    "label_of_key",
]

from kg.errors import SchemaError
from kg.schema import EDGE_ENDS, ENTITY_TYPES, NODE_LABELS, RELATION_TYPES

ENTITY_LABELS = ENTITY_TYPES

_ENTITY_PROPS = {
    "key": "STRING",
    "type": "STRING",
    "name": "STRING",
    "aliases": "STRING[]",
    "support": "INT64",
    "mention_count": "INT64",
    "proposed_count": "INT64",
    "benchmark": "BOOLEAN",
}
NODE_PROPERTIES: dict[str, dict[str, str]] = {
    "Paper": {
        "key": "STRING",
        "paper_id": "STRING",
        "title": "STRING",
        "year": "INT64",
        "date": "STRING",
        "authors": "STRING[]",
        "url": "STRING",
        "code_url": "STRING",
        "upvotes": "INT64",
        "text": "STRING",
        "source": "STRING",
    },
    **{label: dict(_ENTITY_PROPS) for label in ENTITY_LABELS},
    "Result": {
        "key": "STRING",
        "value": "DOUBLE",
        "unit": "STRING",
        "delta": "BOOLEAN",
        "own": "BOOLEAN",
        "change": "STRING",
        "metric_name": "STRING",
        "condition": "STRING",
        "paper_id": "STRING",
        "sentence": "INT64",
        "start": "INT64",
        "end": "INT64",
        "evidence": "STRING",
        "confidence": "DOUBLE",
        "board_metric": "STRING",
        "board_direction": "STRING",
        "board_value": "DOUBLE",
        "board_unit": "STRING",
        "board_note": "STRING",
        "board_shown": "BOOLEAN",
        "board_hidden": "STRING",
    },
}
"""Property names and types per label, spelled the same in every export."""

BOARD_PROPERTIES = tuple(k for k in NODE_PROPERTIES["Result"] if k.startswith("board_"))
"""What the leaderboard rules decided for a Result, stored on it by the build once the graph
is assembled (:func:`kg.graph.boards.board_properties`): the board it is on, the
board's direction, its value and unit on the metric's scale, how it was read, and whether
it is shown or why it is hidden."""

EDGE_PROPERTIES: dict[str, str] = {
    "support": "INT64",
    "confidence": "DOUBLE",
    "papers": "STRING[]",
    "evidence": "STRING",
}
"""Properties every relationship carries (``evidence`` is a JSON list in the stores)."""

_EXTRA_EDGE_PROPERTIES: dict[str, dict[str, str]] = {"MENTIONS": {"mentions": "INT64"}}


def edge_properties(rtype: str) -> dict[str, str]:
    """Return the property names and types of relationships of type ``rtype``."""
    return {**EDGE_PROPERTIES, **_EXTRA_EDGE_PROPERTIES.get(check_edge_type(rtype), {})}


def check_label(label: str) -> str:
    """Return ``label`` if it is a node label of the model, else raise ``SchemaError``."""
    if label not in NODE_LABELS:
        raise SchemaError(f"unknown node label {label!r}; expected one of {', '.join(NODE_LABELS)}")
    return label


def check_edge_type(rtype: str) -> str:
    """Return ``rtype`` if it is a relationship type of the model, else raise ``SchemaError``."""
    if rtype not in EDGE_ENDS:
        raise SchemaError(f"unknown relationship type {rtype!r}")
    return rtype


_KEY_PREFIXES = {label.lower(): label for label in NODE_LABELS}


def label_of_key(key: str) -> str:
    """Return the node label a key names (keys start with the label: ``method:lora``).

    Examples
    --------
    >>> label_of_key("method:low-rank-adaptation"), label_of_key("paper:2401.00001")
    ('Method', 'Paper')
    """
    label = _KEY_PREFIXES.get(key.partition(":")[0])
    if label is None:
        raise SchemaError(f"key {key!r} does not start with a node label")
    return label

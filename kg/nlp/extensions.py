"""The only place that registers kg's Doc extensions; values are plain, msgpack-safe data."""

from __future__ import annotations

from spacy.tokens import Doc, Span

__all__ = ["ENTITY_SPANS", "doc_data", "mention_key", "register_extensions"]

ENTITY_SPANS = "kg_entities"
"""Key in ``doc.spans`` of the scientific entity mentions (label = entity type)."""

_EXTENSIONS = {
    # [{"short": [start_char, end_char], "long": [start_char, end_char]}]
    "kg_abbreviations": list,
    # "start:end" -> {"rule": str, "confidence": float, "benchmark": bool, "group": str | None}
    "kg_mention_info": dict,
    # [[start_char, end_char, rule]] of what the paper itself introduces
    "kg_proposed": list,
    # [{"value", "unit", "delta", "metric", "method", "dataset", "task", "start", "end", ...}]
    "kg_results": list,
    # [{"head": [s, e], "type": str, "tail": [s, e], "rule": str, "confidence": float}]
    "kg_relations": list,
    # float32 array, tokens x tags: the encoder tagger's tag probabilities (kg.nlp.models.tagger);
    # unset (None) when no tagger ran, which is how readers tell
    "kg_tagger": lambda: None,
}


def mention_key(span: Span) -> str:
    """Return the key of a mention in ``doc._.kg_mention_info``: ``"start_char:end_char"``."""
    return f"{span.start_char}:{span.end_char}"


def register_extensions() -> None:
    """Register every ``Doc._.kg_*`` extension once; mutable defaults are made per doc."""
    for name in _EXTENSIONS:
        if not Doc.has_extension(name):
            Doc.set_extension(name, default=None)  # made per doc by ``doc_data``


def doc_data(doc: Doc, name: str):
    """Return the value of extension ``name`` on ``doc``, creating an empty one if unset."""
    value = doc._.get(name)
    if value is None:
        value = _EXTENSIONS[name]()
        doc._.set(name, value)
    return value


register_extensions()

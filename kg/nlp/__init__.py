"""kg's spaCy pipeline: registered components and the functions that run them.

The names below load on first use, so that importing a light module such as
``kg.nlp.extraction`` (the per-paper dataclasses) does not import spaCy.
"""

from __future__ import annotations

from kg.util.lazy import lazy_names

__all__ = [
    "Mention",
    "PaperExtraction",
    "RelationMention",
    "ResultMention",
    "default_base",
    "doc_to_extraction",
    "extract",
    "load_pipeline",
]

_FROM = {
    "Mention": "kg.nlp.extraction",
    "PaperExtraction": "kg.nlp.extraction",
    "RelationMention": "kg.nlp.extraction",
    "ResultMention": "kg.nlp.extraction",
    "default_base": "kg.nlp.pipeline",
    "doc_to_extraction": "kg.nlp.pipeline",
    "extract": "kg.nlp.running.runner",
    "load_pipeline": "kg.nlp.pipeline",
}


__getattr__, __dir__ = lazy_names(__name__, _FROM)

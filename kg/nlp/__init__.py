"""kg's spaCy pipeline: registered components and the functions that run them."""

from kg.nlp import abbreviations, entities, proposals, relations, results  # noqa: F401
from kg.nlp.extraction import Mention, PaperExtraction, RelationMention, ResultMention
from kg.nlp.pipeline import default_base, doc_to_extraction, extract, load_pipeline

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

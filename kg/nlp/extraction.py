"""Plain-data records of what the NLP stage found in one paper (the stage's output)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kg.ingest.record import Record

__all__ = ["Mention", "RelationMention", "ResultMention", "PaperExtraction", "confident"]


@dataclass(frozen=True)
class Mention:
    """One entity mention: its text, type and where it is."""

    text: str
    type: str
    start: int
    end: int
    sentence: int
    rule: str
    confidence: float
    benchmark: bool = False
    proposed: bool = False
    long_form: str | None = None  # the defining long form, when this is (or has) an acronym


@dataclass(frozen=True)
class RelationMention:
    """A typed relation between two mentions (indexes into ``PaperExtraction.mentions``)."""

    head: int
    type: str
    tail: int
    sentence: int
    rule: str
    confidence: float


@dataclass(frozen=True)
class ResultMention:
    """A reported number; method/dataset/task/metric index mentions or are None."""

    value: float
    unit: str | None
    delta: bool
    metric: str | None
    metric_mention: int | None
    method: int | None
    dataset: int | None
    task: int | None
    condition: str | None
    start: int
    end: int
    sentence: int
    rule: str
    confidence: float


@dataclass
class PaperExtraction:
    """Everything the pipeline found in one paper, with the sentences it came from."""

    record: Record
    sentences: list[tuple[int, int]] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    relations: list[RelationMention] = field(default_factory=list)
    results: list[ResultMention] = field(default_factory=list)

    def sentence_text(self, index: int) -> str:
        """Return the text of sentence ``index``."""
        start, end = self.sentences[index]
        return self.record.text[start:end]


def confident(extraction: PaperExtraction, min_confidence: float) -> PaperExtraction:
    """Return ``extraction`` without the relations whose confidence is below
    ``min_confidence`` (a relation's confidence is its calibrated chance of being right)."""
    if min_confidence <= 0:
        return extraction
    kept = [r for r in extraction.relations if r.confidence >= min_confidence]
    return replace(extraction, relations=kept)

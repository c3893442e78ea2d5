"""Plain-data records of what the NLP stage found in one paper (the stage's output)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from kg.ingest.record import Record

__all__ = [
    "Mention",
    "RelationMention",
    "ResultMention",
    "PaperExtraction",
    "confident",
    "extraction_to_dict",
    "extraction_from_dict",
]


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
    own: bool | None = None  # the paper's proposed method's (True), a baseline's (False)
    change: str | None = None  # a delta's direction as the text says: "up" or "down"


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


def extraction_to_dict(extraction: PaperExtraction) -> dict[str, Any]:
    """Return ``extraction`` as plain JSON-ready data (:func:`extraction_from_dict` reads it)."""
    return asdict(extraction)


def extraction_from_dict(data: dict[str, Any]) -> PaperExtraction:
    """Return the :class:`PaperExtraction` that :func:`extraction_to_dict` turned into ``data``.

    Examples
    --------
    >>> ex = PaperExtraction(Record("p1", "A B.", authors=("X",)), sentences=[(0, 4)],
    ...     mentions=[Mention("A", "Method", 0, 1, 0, "r", 0.9)])
    >>> extraction_from_dict(extraction_to_dict(ex)) == ex
    True
    """
    rec = dict(data["record"])
    rec["authors"] = tuple(rec.get("authors") or ())
    rec["categories"] = tuple(rec.get("categories") or ())
    return PaperExtraction(
        record=Record(**rec),
        sentences=[(int(a), int(b)) for a, b in data["sentences"]],
        mentions=[Mention(**m) for m in data["mentions"]],
        relations=[RelationMention(**r) for r in data["relations"]],
        results=[ResultMention(**r) for r in data["results"]],
    )

"""Entity confidences as the chance of being right: the ``kg_confidence`` component.

The entity step's scores (the classifier's margin over "no entity", a rule's trust) rank
mentions but are no probabilities. This component maps each mention's score to the share
of such entities that were right on held-out folds of the training abstracts, by the rule
that found it, its type and whether the paper proposes it (a step function per group,
isotonic regression; ``scripts/calibrate_entities.py`` fits it on the records
``scripts/cross_validate.py --predictions`` writes). A paper's entity is then as likely
right as its most confident mention says (``kg eval`` prints the calibration error).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import registry

from kg.nlp.component import KgComponent
from kg.nlp.extensions import ENTITY_SPANS, doc_data, mention_key
from kg.resources import trained_file

__all__ = ["MIN_ITEMS", "ConfidenceCalibration", "ConfidenceCalibrator", "calibration_group"]

ANY = "*"
"""The group field that matches every rule, type or proposal flag (the fallbacks)."""

MIN_ITEMS = 150
"""The fewest held-out entities a group needs to get a step function of its own."""


LOWEST = 0.01
"""No confidence is quite 0 or 1: a group's few entities do not prove certainty."""


def calibration_group(rule: str, label: str, proposed: bool) -> tuple[str, str, str]:
    """The group a mention is calibrated in: the rule that found it (``kg_entities.chunk``),
    its type and ``"proposed"`` or ``"other"``."""
    return rule.split("+", 1)[0], label, "proposed" if proposed else "other"


@dataclass
class ConfidenceCalibration:
    """Step functions (scores -> share right) per group ``(rule, type, proposed)``; a group
    without one falls back to ``(rule, *, *)``, then ``(*, *, *)``."""

    steps: dict[tuple[str, str, str], tuple[tuple[float, ...], tuple[float, ...]]]

    def __call__(self, rule: str, label: str, proposed: bool, score: float) -> float:
        group = calibration_group(rule, label, proposed)
        for key in (group, (group[0], ANY, ANY), (ANY, ANY, ANY)):
            if key in self.steps:
                xs, ys = self.steps[key]
                return round(float(np.interp(score, xs, ys)), 3)
        return score

    @classmethod
    def fit(
        cls, items: Iterable[tuple[str, str, bool, float, bool]], min_items: int = MIN_ITEMS
    ) -> ConfidenceCalibration:
        """Fit on ``(rule, type, proposed, score, right)`` of held-out entities."""
        from sklearn.isotonic import IsotonicRegression

        by_group: dict[tuple[str, str, str], list[tuple[float, bool]]] = {}
        for rule, label, proposed, score, right in items:
            group = calibration_group(rule, label, proposed)
            for key in (group, (group[0], ANY, ANY), (ANY, ANY, ANY)):
                by_group.setdefault(key, []).append((score, right))
        steps = {}
        for key, pairs in sorted(by_group.items()):
            if len(pairs) < min_items and key != (ANY, ANY, ANY):
                continue
            x = np.array([s for s, _ in pairs], dtype=float)
            y = np.array([float(r) for _, r in pairs])
            iso = IsotonicRegression(y_min=LOWEST, y_max=1 - LOWEST, out_of_bounds="clip")
            iso.fit(x, y)
            xs = tuple(round(float(v), 4) for v in iso.X_thresholds_)
            ys = tuple(round(float(v), 4) for v in iso.y_thresholds_)
            steps[key] = (xs, ys)
        return cls(steps)

    def to_disk(self, path: str | Path) -> None:
        """Write the steps as TSV: rule, type, proposed, score, right."""
        with open(path, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
            writer.writerow(["rule", "type", "proposed", "score", "right"])
            for (rule, label, proposed), (xs, ys) in sorted(self.steps.items()):
                writer.writerows([rule, label, proposed, x, y] for x, y in zip(xs, ys, strict=True))

    @classmethod
    def from_disk(cls, path: str | Path) -> ConfidenceCalibration:
        return _read(Path(path))


@lru_cache(maxsize=4)
def _read(path: Path) -> ConfidenceCalibration:
    points: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            key = (row["rule"], row["type"], row["proposed"])
            points.setdefault(key, []).append((float(row["score"]), float(row["right"])))
    return ConfidenceCalibration(
        {k: (tuple(x for x, _ in v), tuple(y for _, y in v)) for k, v in points.items()}
    )


class ConfidenceCalibrator(KgComponent):
    """Replace each entity mention's confidence (``doc._.kg_mention_info``) by its
    calibrated chance of being right; reads ``doc._.kg_proposed``."""

    def __init__(self, nlp: Language, name: str, calibration: ConfidenceCalibration | None):
        self.name = name
        self.calibration = calibration

    def process(self, doc: Doc) -> None:
        if self.calibration is None:
            return
        info = doc_data(doc, "kg_mention_info")
        proposed = {(s, e) for s, e, _ in doc_data(doc, "kg_proposed")}
        for span in doc.spans.get(ENTITY_SPANS, []):
            meta = info.get(mention_key(span))
            if meta is None or "confidence" not in meta:
                continue
            meta["confidence"] = self.calibration(
                meta.get("rule", ""),
                span.label_,
                (span.start_char, span.end_char) in proposed,
                float(meta["confidence"]),
            )


@Language.factory(
    "kg_confidence",
    assigns=["doc._.kg_mention_info"],
    requires=["doc._.kg_mention_info", "doc._.kg_proposed"],
    default_config={"calibration": {"@misc": "kg.entity_calibration.v1", "path": ""}},
)
def make_confidence_calibrator(
    nlp: Language, name: str, calibration: ConfidenceCalibration | None
) -> ConfidenceCalibrator:
    """Build the component that turns entity scores into calibrated confidences."""
    return ConfidenceCalibrator(nlp, name, calibration)


@registry.misc("kg.entity_calibration.v1")
def load_entity_calibration(path: str = "") -> ConfidenceCalibration | None:
    """Read the entity confidence calibration (default: the shipped
    entity_calibration.tsv if there is one; ``"none"``: scores stay as they are)."""
    file = trained_file(path, "entity_calibration.tsv", "entity calibration")
    return ConfidenceCalibration.from_disk(file) if file else None

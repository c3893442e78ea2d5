"""How well confidences state the chance of being right: the calibration table."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["CALIBRATION_BINS", "calibration", "entity_confidence"]

CALIBRATION_BINS = 10
"""Equal-width confidence bins of the calibration table."""


def calibration(pairs: Iterable[tuple[float, bool]], bins: int = CALIBRATION_BINS) -> dict:
    """Return how well confidences state the chance of being right: per equal-width bin
    the items, their mean confidence and the share right, and the expected calibration
    error (ECE: the items' mean gap between a bin's confidence and its share right).

    >>> calibration([(0.9, True), (0.9, False), (0.2, False)], bins=2)["ece"]
    0.3333
    """
    held: list[list[float]] = [[0, 0.0, 0] for _ in range(bins)]  # items, sum conf, right
    for conf, right in pairs:
        b = held[min(bins - 1, max(0, int(conf * bins)))]
        b[0] += 1
        b[1] += conf
        b[2] += bool(right)
    total = sum(b[0] for b in held)
    rows = [
        {
            "low": round(k / bins, 4),
            "high": round((k + 1) / bins, 4),
            "items": int(n),
            "confidence": round(c / n, 4),
            "right": round(r / n, 4),
        }
        for k, (n, c, r) in enumerate(held)
        if n
    ]
    ece = sum(abs(c - r) for n, c, r in held if n) / total if total else 0.0
    return {"ece": round(ece, 4), "items": int(total), "bins": rows}


def entity_confidence(entity: dict) -> float:
    """A paper's entity's confidence: that of its most confident mention."""
    return max((float(m.get("confidence", 1.0)) for m in entity.get("mentions", [])),
               default=float(entity.get("confidence", 1.0)))  # fmt: skip

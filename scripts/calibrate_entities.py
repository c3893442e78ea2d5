"""Fit the entity confidence calibration on held-out folds (kg/nlp/data/entity_calibration.tsv).

Usage: python scripts/calibrate_entities.py --predictions FILE [--gold FILE ...] [--out FILE]

FILE holds the held-out extraction records of a cross-validation run made without a
calibration:

    python scripts/cross_validate.py --assignments 1 --seeds 3 \\
        --set components.kg_confidence.calibration.path=none --predictions FILE

Each paper's entity is scored right or wrong by `kg eval`'s paper-level match (typed) and
its most confident mention gives the rule, type, proposal flag and score it is calibrated
by (kg.nlp.entities.calibration). The calibration error is measured by cross-validation too: each
fold's entities are calibrated by a fit on the other folds. The table written is fitted on
all folds; the scores and the calibration table go to the docs (docs/quality.md).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kg.eval.calibration import calibration
from kg.eval.scoring import match_entities, paper_match_key
from kg.nlp.entities.calibration import MIN_ITEMS, ConfidenceCalibration
from kg.resources import nlp_data_dir
from kg.train.entities import TRAINING, read_gold

Item = tuple[str, str, bool, float, bool]


def entity_items(gold: list[dict], preds: list[dict]) -> list[tuple[int, list[dict], bool]]:
    """``(fold, mentions, right)`` per predicted paper entity."""
    by_key = {paper_match_key(g["text_start"]): g for g in gold}
    out = []
    for p in preds:
        g = by_key.get(paper_match_key(p["text"]))
        if g is None:
            continue
        typed = match_entities(p["entities"], g["entities"], typed=True)
        for i, e in enumerate(p["entities"]):
            mentions = [
                {**m, "type": e["type"], "proposed": bool(e.get("proposed"))}
                for m in e.get("mentions", [])
            ]
            if mentions:
                out.append((p.get("fold", 0), mentions, i in typed))
    return out


def fit_items(entities: list[tuple[int, list[dict], bool]]) -> list[Item]:
    """The most confident mention of each entity, as a calibration item."""
    out = []
    for _, mentions, right in entities:
        m = max(mentions, key=lambda m: m["confidence"])
        out.append((m["rule"], m["type"], m["proposed"], float(m["confidence"]), right))
    return out


def calibrated(model: ConfidenceCalibration, mentions: list[dict]) -> float:
    """An entity's calibrated confidence: that of its most confident mention."""
    return max(model(m["rule"], m["type"], m["proposed"], float(m["confidence"])) for m in mentions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--predictions", type=Path, required=True)
    parser.add_argument("--gold", type=Path, action="append")
    parser.add_argument("--out", type=Path, default=nlp_data_dir() / "entity_calibration.tsv")
    parser.add_argument("--report", type=Path, help="write the calibration tables as JSON")
    parser.add_argument(
        "--min-items", type=int, default=MIN_ITEMS, help="fewest entities per step function"
    )
    args = parser.parse_args()
    gold = read_gold(args.gold or TRAINING)
    with args.predictions.open(encoding="utf-8") as fh:
        preds = [json.loads(line) for line in fh if line.strip()]
    entities = entity_items(gold, preds)
    raw = calibration((max(m["confidence"] for m in ms), right) for _, ms, right in entities)
    held_out = []
    for fold in sorted({f for f, _, _ in entities}):
        model = ConfidenceCalibration.fit(
            fit_items([e for e in entities if e[0] != fold]), args.min_items
        )
        held_out += [(calibrated(model, ms), right) for f, ms, right in entities if f == fold]
    after = calibration(held_out)
    print(f"{len(entities)} held-out entities of {len(preds)} papers; calibration error "
          f"(ECE, 10 bins): scores {raw['ece']:.4f}, calibrated on the other folds "
          f"{after['ece']:.4f}")  # fmt: skip
    for row in after["bins"]:
        print(f"  {row['low']:.1f}-{row['high']:.1f}: {row['items']:5d} entities, "
              f"confidence {row['confidence']:.3f}, right {row['right']:.3f}")  # fmt: skip
    model = ConfidenceCalibration.fit(fit_items(entities), args.min_items)
    model.to_disk(args.out)
    print(f"{len(model.steps)} groups -> {args.out}")
    if args.report:
        args.report.write_text(json.dumps({"scores": raw, "calibrated": after}, indent=2) + "\n")


if __name__ == "__main__":
    main()

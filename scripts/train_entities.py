"""Train the entity candidate classifier (kg/nlp/data/entity_classifier.msgpack).

Usage: python scripts/train_entities.py [--gold FILE ...] [--abstracts FILE]

Each candidate span the rules propose (abbreviations, gazetteer, name-like tokens, noun
phrases) is labelled with the type of the gold entity whose normalised name or alias it
equals, else "O"; an averaged perceptron learns to type or reject candidates. The
training papers are gold/train.jsonl and gold/silver/train.jsonl (1,340 abstracts);
dev.jsonl and silver/test.jsonl stay for measuring.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from kg.nlp.models.perceptron import AveragedPerceptron
from kg.nlp.pipeline import load_pipeline, pipeline_config
from kg.train.entities import (
    CLASSES,
    TRAINING,
    add_pipeline_inputs,
    add_training_inputs,
    examples,
    load_abstracts,
    projection_report,
    read_gold,
    shipped_file,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_training_inputs(parser)
    add_pipeline_inputs(parser)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=6, help="models averaged")
    parser.add_argument("--jobs", type=int, default=2, help="models trained at once")
    parser.add_argument("--out", type=Path, help="default: the file the pipeline loads "
                        "(kg/nlp/data/entity_classifier.msgpack for fast)")  # fmt: skip
    parser.add_argument("--limit", type=int, default=0, help="first N gold papers (smoke runs)")
    parser.add_argument(
        "--report", type=Path, help="write the gold entities no candidate matched here (JSON)"
    )
    args = parser.parse_args()
    out = args.out or shipped_file(args.pipeline, "kg_entities", "entity_classifier.msgpack")
    gold = read_gold(args.gold or TRAINING)
    if args.limit:
        gold = gold[: args.limit]
    texts = load_abstracts(args.abstracts, {g["id"] for g in gold})
    nlp = load_pipeline(
        config=pipeline_config(args.pipeline),
        overrides={
            **dict(args.settings),
            "components.kg_entities.classifier.path": "none",
            "components.kg_relations.classifier.path": "none",  # entities are what it learns
        },
    )
    unprojected: list[dict] = []
    data = examples(nlp, gold, texts, unprojected)
    labels = Counter(label for _, label in data)
    print(f"{len(data)} candidates from {len(texts)} abstracts: {labels}")
    report = projection_report(gold, unprojected)
    print(f"{report['unprojected']} of {report['entities']} gold entities match no candidate "
          f"({report['not_in_text']} of them not in the text as written)")  # fmt: skip
    if args.report:
        args.report.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    model = AveragedPerceptron.ensemble(
        CLASSES, data, seeds=args.seeds, epochs=args.epochs, jobs=args.jobs
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    model.to_disk(out)
    print(f"wrote {out} ({len(model.weights)} features)")


if __name__ == "__main__":
    main()

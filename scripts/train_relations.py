"""Train the relation classifier (kg/nlp/data/relation_classifier.msgpack).

Usage: python scripts/train_relations.py [--gold FILE ...] [--abstracts FILE] [--folds 4]
       [--pipeline fast|accurate] [--set KEY=VALUE ...]

Every ordered pair of a paper's entities that some relation type can join is an example
(kg/nlp/relations/pairs.py), labelled with the gold relation between the two gold entities
the pair's names match (as `kg eval` matches them), else "O". So that the classifier learns
from entities as the pipeline finds them on papers it has not seen, the training papers
are split into folds and each fold's entities come from an entity classifier trained on
the other folds (cross-fitting). The same folds give the cross-validated scores printed at
the end: each fold's pairs scored by a relation classifier trained on the other folds,
counted against all gold relations of the fold's papers (those whose entities were missed
included), at several decision biases. The shipped classifier carries the best of those
biases and a confidence calibration (Platt scaling) fitted on the held-out folds.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from kg.nlp.models.perceptron import AveragedPerceptron
from kg.nlp.pipeline import pipeline_config
from kg.train.entities import (
    TRAINING,
    add_pipeline_inputs,
    add_training_inputs,
    load_records,
    read_gold,
    shipped_file,
)
from kg.train.relations import (
    BIASES,
    RELATION_CLASSES,
    cross_fitted_examples,
    cross_validated_scores,
    platt_calibration,
    precision_floor,
    reliability,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_training_inputs(parser)
    add_pipeline_inputs(parser)
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--entity-seeds", type=int, default=2)
    parser.add_argument("--entity-epochs", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=3, help="models averaged")
    parser.add_argument("--out", type=Path, help="default: the file the pipeline loads "
                        "(kg/nlp/data/relation_classifier.msgpack for fast)")  # fmt: skip
    parser.add_argument("--limit", type=int, default=0, help="first N gold papers (smoke runs)")
    parser.add_argument("--examples", type=Path, help="reuse (or write) the pair examples here")
    parser.add_argument("--save", type=Path, help="write the cross-validated scores as JSON")
    args = parser.parse_args()  # fmt: skip
    out = args.out or shipped_file(args.pipeline, "kg_relations", "relation_classifier.msgpack")
    gold = read_gold(args.gold or TRAINING)
    if args.limit:
        gold = gold[: args.limit]
    if args.examples and args.examples.exists():
        per_paper = [[(f, y) for f, y in xs] for xs in json.loads(args.examples.read_text())]
    else:
        records = load_records(args.abstracts, {g["id"] for g in gold})
        texts = {key: rec["abstract"] for key, rec in records.items()}
        with tempfile.TemporaryDirectory() as work:
            per_paper = cross_fitted_examples(
                gold, texts, folds=args.folds, seeds=args.entity_seeds,
                epochs=args.entity_epochs, work=Path(work),
                config=pipeline_config(args.pipeline), settings=dict(args.settings),
            )  # fmt: skip
        if args.examples:
            args.examples.write_text(json.dumps(per_paper))
    data = [x for xs in per_paper for x in xs]
    positives = sum(label != "O" for _, label in data)
    print(f"{len(data)} entity pairs from {len(gold)} abstracts, {positives} with a relation")
    scores, margins = cross_validated_scores(per_paper, gold, folds=args.folds,
                                             seeds=args.seeds, epochs=args.epochs)  # fmt: skip
    for bias, s in scores.items():
        print(f"bias {bias:+.1f}: relations P {s['precision']:.3f} R {s['recall']:.3f} "
              f"F1 {s['f1']:.3f} ({s['pred']} predicted)")  # fmt: skip
    if args.save:
        args.save.write_text(json.dumps({str(b): s for b, s in scores.items()}, indent=2) + "\n")
    near = [(m, r) for m, r in margins if m >= BIASES[0]]  # the pairs a bias could keep
    calibration = platt_calibration(near)
    print(f"calibration (held-out folds): a={calibration[0]}, b={calibration[1]}")
    print("\n".join(reliability(near, calibration)))
    floor, precision, kept = precision_floor(near, calibration)
    print(f"floor: confidence >= {floor} keeps {kept} held-out pairs, {precision:.3f} right")
    model = AveragedPerceptron.ensemble(RELATION_CLASSES, data, seeds=args.seeds,
                                        epochs=args.epochs, jobs=2)  # fmt: skip
    best = max(scores, key=lambda b: (scores[b]["f1"], b))
    print(f"decision bias (best cross-validated F1): {best}")
    model.meta = {"calibration": list(calibration), "bias": best, "floor": floor}
    out.parent.mkdir(parents=True, exist_ok=True)
    model.to_disk(out)
    print(f"wrote {out} ({len(model.weights)} features)")


if __name__ == "__main__":
    main()

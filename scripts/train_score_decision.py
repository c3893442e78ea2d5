"""Train the decision that a number is a score, a change or no result
(kg/nlp/results/score_decision.py).

Every number of the training abstracts that :func:`kg.nlp.results.component.find_numbers` finds is
an example, labelled by the paper's annotated result rows: ``score`` when a row that is no
delta has its value, ``delta`` when only a delta row has it, ``none`` otherwise. An
averaged perceptron ensemble over the words around each number is trained on all of
them and written with the class bias the pipeline applies (``--none-bias``, in ``meta``).
The pipeline drops a number the model calls ``none`` and takes its delta flag from the
model (on held-out rows it is right more often than the rules' words).

Cross-validation (paper i in fold i % ``--folds``, as scripts/cross_validate.py splits)
prints each class's precision and recall on the held-out papers. With ``--predictions``
(held-out extraction records from ``cross_validate.py --predictions``, same folds) it
prints, for each ``none`` bias of a grid, the paper-level result F1 and value-only F1 of
those predictions when each fold's model drops the rows it calls ``none``: the table the
shipped bias is chosen from (docs/quality.md).

    python scripts/train_score_decision.py --out kg/nlp/data/score_classifier.msgpack
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from kg.nlp.results.score_decision import (
    SCORE_CLASSES,
)
from kg.nlp.text import clean_text
from kg.train.entities import (
    TRAINING,
    add_training_inputs,
    load_records,
    read_gold,
)
from kg.train.score_decision import (
    NONE_BIAS,
    delta_agreement,
    fold_models,
    held_out_report,
    paper_examples,
    predictions_table,
    train,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_training_inputs(parser)
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=3, help="perceptrons averaged")
    parser.add_argument("--none-bias", type=float, default=NONE_BIAS)
    parser.add_argument("--limit", type=int, default=0, help="first N gold papers (smoke runs)")
    parser.add_argument(
        "--predictions", type=Path, help="held-out extraction records (cross_validate.py)"
    )
    parser.add_argument("--save", type=Path, help="write the cross-validation as JSON")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    gold = read_gold(args.gold or TRAINING)
    if args.limit:
        gold = gold[: args.limit]
    records = load_records(args.abstracts, {g["id"] for g in gold})
    texts = {k: clean_text(r["abstract"]) for k, r in records.items()}
    per_paper = [paper_examples(texts.get(g["id"], ""), g["results"]) for g in gold]
    counts = Counter(label for xs in per_paper for _, label in xs)
    print(f"{len(gold)} abstracts, {sum(counts.values())} numbers: " +
          ", ".join(f"{counts[c]} {c}" for c in SCORE_CLASSES))  # fmt: skip
    bias = {"none": args.none_bias}
    models = fold_models(per_paper, args.folds, args.seeds, args.epochs)
    report = {"held_out": held_out_report(per_paper, models, bias)}
    for c, s in report["held_out"].items():
        print(f"held out {c}: precision {s['precision']:.3f} recall {s['recall']:.3f} "
              f"({s['pred']} decided, {s['gold']} labelled)")  # fmt: skip
    if args.predictions:
        report["predictions"] = predictions_table(gold, args.predictions, models, args.folds)
        for row in report["predictions"]:
            print("  ".join(f"{k} {v}" for k, v in row.items()))
        best = max(report["predictions"][1:], key=lambda r: r["results_f1"] + r["value_only_f1"])
        print(f"best none bias (result F1 + value-only F1): {best['none_bias']}")
        agree = delta_agreement(gold, args.predictions, models, args.folds, args.none_bias)
        report["delta_flag"] = agree
        print(f"delta flag right on {agree['rows']} held-out rows with a gold value: model "
              f"{agree['model']}, rules {agree['rules']}")  # fmt: skip
    model = train([x for xs in per_paper for x in xs], args.seeds, args.epochs)
    model.meta = {"bias": bias}
    model.to_disk(args.out)
    print(f"wrote {args.out}")
    if args.save:
        args.save.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

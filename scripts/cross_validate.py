"""Cross-validate the entity classifier on the training papers, scored at paper level.

Usage: python scripts/cross_validate.py [--folds 4] [--assignments 3] [--set KEY=VALUE ...]
                                        [--relation-examples FILE] [--save FILE]

The annotated abstracts are split into folds. For each fold the classifier is trained on
the others exactly as train_entities.py trains the shipped one, the held-out abstracts
are built with it (`kg build`), and all held-out builds are scored together by `kg eval`'s
paper-level match. The annotators' record of phrases (scripts/learn_phrases.py) is learned
from the training folds too. This is repeated for several fold assignments and the scores averaged:
the number to compare two versions of the rules or settings by, since the 20 dev abstracts
alone move by about 0.02 F1 between equally good classifiers. `--set` changes a pipeline
setting for the run, in spaCy's dotted form (`components.kg_entities.recall_bias=12`).

The relation classifier is the shipped one unless `--relation-examples` names the entity
pairs train_relations.py cross-fitted (its `--examples` file, the same folds: paper i in
fold i % folds): then each fold gets a relation classifier trained on the other folds'
pairs, at the shipped one's decision bias and calibration. The shipped classifier has seen
every training paper, so only the second gives held-out relation scores. The decision that
a number is a score (train_score_decision.py) is trained on the other folds too, unless
the config turns it off (``components.kg_results.score_classifier.path=none``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

from thinc.api import Config, ConfigValidationError

from kg.eval import evaluate
from kg.nlp.entities.vocabulary import write_phrase_stats
from kg.nlp.models.perceptron import AveragedPerceptron
from kg.nlp.pipeline import load_pipeline
from kg.nlp.relations.component import load_relation_classifier
from kg.nlp.text import clean_text
from kg.orchestrate import ExportOptions, ExtractOptions, build
from kg.train.entities import (
    CLASSES,
    TRAINING,
    add_pipeline_inputs,
    add_training_inputs,
    examples,
    load_records,
    read_gold,
    run_config,
)
from kg.train.phrases import paper_phrases, phrase_rows
from kg.train.relations import RELATION_CLASSES, Example
from kg.train.score_decision import NONE_BIAS, paper_examples
from kg.train.score_decision import train as train_score_decision

MEASURES = (("entities", "f1"), ("entities", "precision"), ("entities", "recall"),
            ("relations", "f1"), ("results", "f1"))  # fmt: skip


def fold_assignments(n: int, count: int) -> list[list[int]]:
    """Return ``count`` orderings of ``n`` papers; paper i goes to fold ``order[i] % k``.
    The first keeps the file order, the others are seeded shuffles (seeds 1, 2, ...)."""
    return [list(range(n))] + [random.Random(seed).sample(range(n), n) for seed in range(1, count)]


def cross_validate(
    gold: list[dict],
    records: dict[str, dict],
    *,
    folds: int,
    assignments: int,
    seeds: int,
    epochs: int,
    config: Config,
    work: Path,
    predictions: Path | None = None,
    relation_pairs: list[list[Example]] | None = None,
) -> list[dict]:
    """Return the ``kg eval`` scores of each fold assignment's held-out builds, built with
    ``config`` and the fold's classifier; ``predictions`` gets every held-out extraction
    record (JSONL, with ``assignment`` and ``fold`` added), to calibrate on. With
    ``relation_pairs`` (each paper's cross-fitted entity pairs), each fold's relation
    classifier is trained on the other folds' pairs."""
    # the candidates are featurised with the run's settings, without a classifier
    config.to_disk(work / "features.cfg")
    nlp = load_pipeline(
        config=work / "features.cfg",
        overrides={"components.kg_entities.classifier.path": "none"},
    )
    texts = {key: rec["abstract"] for key, rec in records.items()}
    per_paper = [examples(nlp, [g], texts) for g in gold]
    numbers = [paper_examples(clean_text(texts.get(g["id"], "")), g["results"]) for g in gold]
    score_setting = config["components"]["kg_results"].get("score_classifier", {})
    phrases = paper_phrases(nlp, gold, texts)
    stats = config["components"]["kg_entities"].get("phrase_stats", {})
    shipped = None  # the shipped relation classifier: its decision bias and calibration
    if relation_pairs is not None:
        relations = config["components"]["kg_relations"]["classifier"]
        shipped = load_relation_classifier(**{k: v for k, v in relations.items() if k[0] != "@"})
    out = []
    for k, order in enumerate(fold_assignments(len(gold), assignments)):
        preds: list[dict] = []
        for fold in range(folds):
            part = [order[i] % folds == fold for i in range(len(gold))]
            train = [x for xs, held in zip(per_paper, part, strict=True) if not held for x in xs]
            held_out = [g for g, held in zip(gold, part, strict=True) if held]
            # new files per fold: kg caches a pipeline by its config file, not the files it names
            run = work / f"assignment{k}-fold{fold}"
            run.mkdir()
            model = AveragedPerceptron.ensemble(CLASSES, train, seeds=seeds, epochs=epochs, jobs=2)
            model.to_disk(run / "classifier.json")
            fold_config = config.copy()
            fold_config["components"]["kg_entities"]["classifier"]["path"] = str(
                run / "classifier.json"
            )
            if stats.get("path") != "none":  # the annotators' record of the training folds only
                rows = phrase_rows([f for f, held in zip(phrases, part, strict=True) if not held])
                write_phrase_stats(rows, run / "phrase_stats.tsv")
                fold_config["components"]["kg_entities"]["phrase_stats"]["path"] = str(
                    run / "phrase_stats.tsv"
                )
            if relation_pairs is not None and shipped is not None:  # none: rules only
                pairs = [x for xs, held in zip(relation_pairs, part, strict=True) if not held
                         for x in xs]  # fmt: skip
                relation_model = AveragedPerceptron.ensemble(
                    RELATION_CLASSES, pairs, seeds=3, epochs=10, jobs=2
                )  # train_relations.py's defaults
                relation_model.meta = shipped.meta  # its decision bias and calibration
                relation_model.to_disk(run / "relations.json")
                fold_config["components"]["kg_relations"]["classifier"]["path"] = str(
                    run / "relations.json"
                )
            if score_setting.get("path") != "none":  # the score decision of the other folds
                held = [x for xs, h in zip(numbers, part, strict=True) if not h for x in xs]
                score_model = train_score_decision(held, seeds=3, epochs=10)
                score_model.meta = {"bias": {"none": NONE_BIAS}}
                score_model.to_disk(run / "score.msgpack")
                fold_config["components"]["kg_results"]["score_classifier"]["path"] = str(
                    run / "score.msgpack"
                )
            fold_config.to_disk(run / "pipeline.cfg")
            with (run / "held_out.jsonl").open("w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(records[g["id"]]) + "\n" for g in held_out)
            build(
                [run / "held_out.jsonl"],
                run / "build",
                extract=ExtractOptions(config=run / "pipeline.cfg"),
                export=ExportOptions(outputs=("jsonl",)),
            )
            with (run / "build" / "extractions.jsonl").open(encoding="utf-8") as fh:
                held_preds = [json.loads(line) for line in fh]
            preds += held_preds
            if predictions is not None:
                with predictions.open("a", encoding="utf-8") as fh:
                    fh.writelines(json.dumps({**p, "assignment": k, "fold": fold}) + "\n"
                                  for p in held_preds)  # fmt: skip
            print(f"assignment {k + 1}/{assignments}, fold {fold + 1}/{folds}: trained on "
                  f"{len(gold) - len(held_out)} papers, built {len(held_out)}",
                  file=sys.stderr, flush=True)  # fmt: skip
        out.append(evaluate(gold, preds))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_training_inputs(parser)
    add_pipeline_inputs(parser)
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--assignments", type=int, default=3, help="fold assignments averaged")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=6, help="perceptrons averaged per model")
    parser.add_argument("--limit", type=int, default=0, help="first N gold papers (smoke runs)")
    parser.add_argument("--save", type=Path, help="write the scores as JSON")
    parser.add_argument(
        "--predictions", type=Path, help="write every held-out extraction record (JSONL)"
    )
    parser.add_argument("--relation-examples", type=Path, metavar="FILE",
                        help="train_relations.py's --examples file: train each fold's relation "
                        "classifier on the other folds' pairs (needs --assignments 1)")  # fmt: skip
    args = parser.parse_args()
    gold = read_gold(args.gold or TRAINING)
    if args.limit:
        gold = gold[: args.limit]
    relation_pairs = None
    if args.relation_examples:
        if args.assignments != 1:
            raise SystemExit("--relation-examples holds train_relations.py's folds (paper i in "
                             "fold i % folds): use it with --assignments 1")  # fmt: skip
        if not args.relation_examples.is_file():
            raise SystemExit(f"{args.relation_examples} not found: write it with "
                             "train_relations.py --examples FILE")  # fmt: skip
        relation_pairs = json.loads(args.relation_examples.read_text())[: len(gold)]
        if len(relation_pairs) != len(gold):
            raise SystemExit(f"{args.relation_examples}: pairs of {len(relation_pairs)} "
                             f"papers for {len(gold)} gold papers; make it from the same "
                             "--gold files")  # fmt: skip
    records = load_records(args.abstracts, {g["id"] for g in gold})
    missing = [g["id"] for g in gold if g["id"] not in records]
    if missing:
        raise SystemExit(f"{args.abstracts}: no abstract for gold ids {', '.join(missing[:5])}")
    try:  # a wrong --set fails here, before any training
        config = run_config(args.pipeline, dict(args.settings))
    except ConfigValidationError as err:
        wrong = [f"--set {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors or []]
        raise SystemExit("; ".join(wrong) or str(err)) from None
    if args.predictions is not None:
        args.predictions.write_text("", encoding="utf-8")
    with tempfile.TemporaryDirectory() as work:
        runs = cross_validate(
            gold, records, folds=args.folds, assignments=args.assignments, seeds=args.seeds,
            epochs=args.epochs, config=config, work=Path(work), predictions=args.predictions,
            relation_pairs=relation_pairs,
        )  # fmt: skip
    mean = {f"{p}_{m}": round(sum(r[p][m] for r in runs) / len(runs), 4) for p, m in MEASURES}
    for k, run in enumerate(runs):
        print(f"assignment {k + 1}: " + "  ".join(f"{p} {m} {run[p][m]:.4f}" for p, m in MEASURES))
    print("mean:         " + "  ".join(f"{k} {v:.4f}" for k, v in mean.items()))
    if args.save:
        args.save.write_text(json.dumps({"mean": mean, "runs": runs}, indent=2) + "\n")


if __name__ == "__main__":
    main()

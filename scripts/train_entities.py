"""Train the entity candidate classifier (kg/nlp/data/entity_classifier.json).

Usage: python scripts/train_entities.py [--gold ../shared/gold/train.jsonl]
                                        [--abstracts ../shared/corpora/ml_abstracts.jsonl.gz]

Each candidate span the rules propose (abbreviations, gazetteer, name-like tokens, noun
phrases) is labelled with the type of the gold entity whose normalised name or alias it
equals, else "O"; an averaged perceptron learns to type or reject candidates. Only
gold/train.jsonl is used (dev.jsonl stays for measuring).
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from pathlib import Path

from kg.nlp.perceptron import AveragedPerceptron
from kg.nlp.pipeline import load_pipeline
from kg.nlp.text import clean_text
from kg.resolve.keys import normalise_name

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CLASSES = ["O", "Method", "Task", "Dataset", "Metric"]


def load_records(path: Path, ids: set[str]) -> dict[str, dict]:
    """Return the corpus records (arXiv metadata) whose ``id`` is in ``ids``."""
    out = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec["id"] in ids:
                out[rec["id"]] = rec
    return out


def load_abstracts(path: Path, ids: set[str]) -> dict[str, str]:
    """Return the abstract text of each corpus record whose ``id`` is in ``ids``."""
    return {key: rec["abstract"] for key, rec in load_records(path, ids).items()}


def examples(nlp, gold: list[dict], texts: dict[str, str]) -> list[tuple[list[str], str]]:
    recognizer = nlp.get_pipe("kg_entities")
    data = []
    for g in gold:
        text = texts.get(g["id"])
        if text is None:
            continue
        labels = {}
        for ent in g["entities"]:
            for form in [ent["name"], *ent.get("aliases", [])]:
                labels.setdefault(normalise_name(form), ent["type"])
        doc = nlp(clean_text(text))
        for span, _, feats in recognizer.featurised_spans(doc):
            data.append((feats, labels.get(normalise_name(span.text), "O")))
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, default=SHARED / "gold/train.jsonl")
    parser.add_argument("--abstracts", type=Path, default=SHARED / "corpora/ml_abstracts.jsonl.gz")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=15, help="models averaged")
    parser.add_argument("--out", type=Path, default=ROOT / "kg/nlp/data/entity_classifier.json")
    parser.add_argument("--limit", type=int, default=0, help="first N gold papers (smoke runs)")
    args = parser.parse_args()
    gold = [json.loads(line) for line in args.gold.open(encoding="utf-8")]
    if args.limit:
        gold = gold[: args.limit]
    texts = load_abstracts(args.abstracts, {g["id"] for g in gold})
    nlp = load_pipeline(overrides={"components.kg_entities.classifier.path": "none"})
    data = examples(nlp, gold, texts)
    labels = Counter(label for _, label in data)
    print(f"{len(data)} candidates from {len(texts)} abstracts: {labels}")
    model = AveragedPerceptron.ensemble(CLASSES, data, seeds=args.seeds, epochs=args.epochs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.to_disk(args.out)
    print(f"wrote {args.out} ({len(model.weights)} features)")


if __name__ == "__main__":
    main()

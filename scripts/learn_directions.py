"""Learn which way each metric is better from how abstracts speak of changing it
(kg/graph/data/metric_directions.tsv).

Usage: python scripts/learn_directions.py [--abstracts FILE] [--gold FILE ...] [--out FILE]

Papers say what they improved: "lower FID", "reduces the word error rate", "higher
accuracy", "increases the success rate". Over every abstract of the shared corpus
(../shared/corpora/ml_abstracts.jsonl.gz, 71,908), each metric name that follows a
word saying a number went up or down (kg.nlp.results.component: ``UP_WORDS``, ``DOWN_WORDS``;
"improves" only says better) counts the paper once for that way. The metric names are
those the annotators marked as metrics in the training abstracts (gold/train.jsonl,
gold/silver/train.jsonl) and those of the gazetteer (kg/nlp/data/vocab.tsv, Papers with
Code). kg's leaderboards order a metric by the way most papers move it
(kg.analytics.metric_direction). Nothing in the table is written by hand: it is derived
by this script from the corpus (see ../shared/corpora/README.md for its licence).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import re
from collections import defaultdict
from pathlib import Path

from kg.nlp.results.component import DOWN_WORDS, UP_WORDS
from kg.resolve.keys import normalise_name

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
GOLD = [SHARED / "gold/train.jsonl", SHARED / "gold/silver/train.jsonl"]
MAX_WORDS = 5


def metric_names(gold: list[Path], vocab: Path) -> set[str]:
    """Normalised metric names: the annotators' (names and aliases) and the gazetteer's."""
    names = set()
    for path in gold:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                for ent in json.loads(line)["entities"]:
                    if ent["type"] == "Metric":
                        names.update(
                            normalise_name(f) for f in [ent["name"], *ent.get("aliases", [])]
                        )
    with open(vocab, encoding="utf-8", newline="") as fh:
        names.update(
            normalise_name(r["term"])
            for r in csv.DictReader(fh, delimiter="\t")
            if r["type"] == "Metric"
        )
    return {n for n in names if n}


_CHANGE = re.compile(
    rf"\b(?:(?P<up>{UP_WORDS})|(?P<down>{DOWN_WORDS}))\s+(?:the\s+|in\s+|of\s+|its\s+|their\s+)*"
    rf"(?P<rest>(?:[\w.-]+\s+){{0,{MAX_WORDS - 1}}}[\w.-]+)",
    re.I,
)


def paper_votes(text: str, names: set[str]) -> set[tuple[str, str]]:
    """The (metric, "up"|"down") pairs one abstract states."""
    out = set()
    for m in _CHANGE.finditer(text):
        words = m.group("rest").split()
        for k in range(len(words), 0, -1):  # the longest metric name that starts there
            name = normalise_name(" ".join(words[:k]))
            if name in names:
                out.add((name, "up" if m.group("up") else "down"))
                break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abstracts", type=Path, default=SHARED / "corpora/ml_abstracts.jsonl.gz")
    parser.add_argument("--gold", type=Path, action="append")
    parser.add_argument("--vocab", type=Path, default=ROOT / "kg/nlp/data/vocab.tsv")
    parser.add_argument("--out", type=Path, default=ROOT / "kg/graph/data/metric_directions.tsv")
    parser.add_argument("--min-papers", type=int, default=3, help="fewest papers per metric")
    args = parser.parse_args()
    names = metric_names(args.gold or GOLD, args.vocab)
    votes: dict[str, dict[str, int]] = defaultdict(lambda: {"up": 0, "down": 0})
    opener = gzip.open if args.abstracts.suffix == ".gz" else open
    papers = 0
    with opener(args.abstracts, "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            papers += 1
            for name, way in paper_votes(record.get("abstract") or record.get("text") or "", names):
                votes[name][way] += 1
    rows = sorted(
        (m, v["up"], v["down"]) for m, v in votes.items() if v["up"] + v["down"] >= args.min_papers
    )
    with open(args.out, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(["metric", "up", "down"])
        writer.writerows(rows)
    print(f"{len(rows)} of {len(names)} metric names moved in >= {args.min_papers} of "
          f"{papers} abstracts -> {args.out}")  # fmt: skip


if __name__ == "__main__":
    main()

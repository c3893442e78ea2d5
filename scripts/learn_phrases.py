"""Learn how often annotators make each phrase an entity (kg/nlp/data/phrase_stats.tsv).

Usage: python scripts/learn_phrases.py [--gold FILE ...] [--abstracts FILE] [--out FILE]

For every candidate span the entity rules propose in the annotated training abstracts
(gold/train.jsonl and gold/silver/train.jsonl, 1,340 abstracts; dev and silver/test stay
for measuring), the phrase's normalised form counts once per abstract it appears in, and
once per abstract whose annotation makes it an entity, by type. The entity recognizer
reads the table as evidence across papers: a phrase the annotators almost never take
("state-of-the-art", "LLM-based") is no entity, whatever rule found it; one they take
with one type nearly always gets that type. Patterns count too: every phrase ending in
one hyphenated word (``*-based``), and each phrase's mentions beside a reported number
(``score #n``: a measure taken only where a number is reported keeps a record of its
own there). Phrases seen in fewer than MIN_SEEN
abstracts are left out. The file is derived from the annotations (see
../shared/gold/README.md for their licence); nothing in it is written by hand.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kg.nlp.entities.vocabulary import write_phrase_stats
from kg.nlp.pipeline import load_pipeline
from kg.train.entities import ROOT, TRAINING, add_training_inputs, load_abstracts, read_gold
from kg.train.phrases import MIN_SEEN, paper_phrases, phrase_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_training_inputs(parser)
    parser.add_argument("--out", type=Path, default=ROOT / "kg/nlp/data/phrase_stats.tsv")
    parser.add_argument("--min-seen", type=int, default=MIN_SEEN)
    args = parser.parse_args()
    gold = read_gold(args.gold or TRAINING)
    texts = load_abstracts(args.abstracts, {g["id"] for g in gold})
    nlp = load_pipeline()
    with nlp.select_pipes(disable=["kg_proposals", "kg_results", "kg_relations"]):
        rows = phrase_rows(paper_phrases(nlp, gold, texts), args.min_seen)
    write_phrase_stats(rows, args.out)
    gated = sum(1 for n, by in rows.values() if sum(by.values()) == 0)
    print(f"{len(rows)} phrases seen in >= {args.min_seen} of {len(texts)} abstracts "
          f"({gated} never annotated) -> {args.out}")  # fmt: skip


if __name__ == "__main__":
    main()

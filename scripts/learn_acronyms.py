"""Learn what acronyms stand for from the definitions in the shared corpus
(kg/resolve/data/acronyms.tsv).

Usage: python scripts/learn_acronyms.py [--abstracts FILE] [--out FILE]

Every "long form (SHORT)" of the 71,908 abstracts of ../shared/corpora/ml_abstracts.jsonl.gz
is found by kg's abbreviation detector (Schwartz & Hearst, kg.nlp.entities.abbreviations); a
compound acronym whose parts come in another order ("ROC-AUC" for "area under the ROC
curve") is matched part by part. A definition counts when the acronym's capitals
start the long form's words in order (kg.resolve.matching.spells_acronym). Per acronym the
table keeps the long form more than half of its definitions give (at least two), after the
acronyms inside long forms are spelled out (kg.resolve.acronyms.majority_long_forms). The
resolver joins two acronyms of one type that stand for the same long form. Nothing in the
table is written by hand (see ../shared/corpora/README.md for the corpus's licence).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
from collections import Counter, defaultdict
from pathlib import Path

from kg.nlp.entities.abbreviations import find_abbreviations, find_long_form, paren_short_forms
from kg.resolve.acronyms import long_form_key, majority_long_forms
from kg.resolve.matching import is_acronym, spells_acronym

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def spelled(short: str, long: str) -> bool:
    """Whether ``long`` spells ``short``: its capitals in order, or, for a compound acronym,
    each part's ("AUC-ROC": area under the ROC curve)."""
    parts = short.split("-")
    return spells_acronym(short, long) or (
        len(parts) == 2 and all(spells_acronym(part, long) for part in parts)
    )


def definitions(text: str) -> list[tuple[str, str]]:
    """The (acronym, long form key) definitions of one abstract."""
    out, found = [], set()
    for (s0, s1), (l0, l1) in find_abbreviations(text):
        short, long = text[s0:s1], text[l0:l1]
        if is_acronym(short) and spelled(short, long):
            out.append((short, long_form_key(long)))
            found.add(short)
    for short, _, start in paren_short_forms(text):  # "ROC-AUC": area under the ROC curve
        parts = short.split("-")
        if short in found or len(parts) != 2 or not is_acronym(short):
            continue
        n = sum(ch.isalnum() for ch in short)  # the words the whole acronym may span
        starts = [find_long_form(p, text[:start], min(n + 5, n * 2)) for p in parts]
        if None not in starts:  # the long form spans both parts' words
            long = text[min(starts) : start].strip()
            if spelled(short, long):
                out.append((short, long_form_key(long)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abstracts", type=Path, default=SHARED / "corpora/ml_abstracts.jsonl.gz")
    parser.add_argument("--out", type=Path, default=ROOT / "kg/resolve/data/acronyms.tsv")
    args = parser.parse_args()
    counts: dict[str, Counter] = defaultdict(Counter)
    opener = gzip.open if args.abstracts.suffix == ".gz" else open
    papers = 0
    with opener(args.abstracts, "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            papers += 1
            for short, long in set(definitions(record.get("abstract") or record.get("text") or "")):
                counts[short][long] += 1  # one vote per paper
    table = majority_long_forms(counts)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_NONE,
                            escapechar="\\")  # fmt: skip
        writer.writerow(["acronym", "long_form", "definitions", "all_definitions"])
        writer.writerows((short, long, n, total) for short, (long, n, total) in table.items())
    print(f"{len(table)} of {len(counts)} acronyms defined in {papers} abstracts -> {args.out}")


if __name__ == "__main__":
    main()

"""Make the labelled name pairs `kg eval --pairs` scores a build's merges by.

Usage: python benchmarks/merge_pairs.py [--gold FILE ...] [--judged FILE] [--out FILE]

From the annotated training abstracts (gold/train.jsonl, gold/silver/train.jsonl):
- same thing: an entity's name and each of its aliases ("Low-Rank Adaptation", "LoRA");
- not the same: two entities of one type that one abstract keeps apart although their
  names are close (RapidFuzz ratio >= 80, or the same letters and other digits:
  "GPT-4" and "GPT-4o").
The judged merges of a build (``--judged``, TSV: type, a, b, same, source; judged by
hand under ../shared/ANNOTATION_GUIDELINES.md) are added as they are. Names whose
normalised forms are equal are left out: no merge is needed for them.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
from itertools import combinations
from pathlib import Path

from rapidfuzz import fuzz

from kg.resolve.keys import normalise_name

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared"
TRAINING = [SHARED / "gold/train.jsonl", SHARED / "gold/silver/train.jsonl"]
FIELDS = ["type", "a", "b", "same", "source", "a_type"]


def annotation_pairs(paths: list[Path]) -> dict[tuple[str, str, str], tuple[str, str]]:
    """Return {(type, norm a, norm b): (same, source)} from the annotations, one per pair
    of normalised names (a pair seen both ways is kept as "same" only if never apart)."""
    out: dict[tuple[str, str, str], list] = {}
    names: dict[tuple[str, str, str], tuple[str, str]] = {}

    def add(type_: str, a: str, b: str, same: bool) -> None:
        na, nb = normalise_name(a), normalise_name(b)
        if na == nb or not na or not nb:
            return
        key = (type_, *sorted((na, nb)))
        names.setdefault(key, (a, b))
        out.setdefault(key, []).append(same)

    for path in paths:
        for line in path.open(encoding="utf-8"):
            rec = json.loads(line)
            ents = rec.get("entities", [])
            for e in ents:
                for alias in e.get("aliases", []):
                    add(e["type"], e["name"], alias, True)
            for e, f in combinations(ents, 2):
                if e["type"] != f["type"]:
                    continue
                na, nb = normalise_name(e["name"]), normalise_name(f["name"])
                letters = re.sub(r"[\d\s.]", "", na) == re.sub(r"[\d\s.]", "", nb)
                if fuzz.ratio(na, nb) >= 80 or (letters and na != nb):
                    add(e["type"], e["name"], f["name"], False)
    return {
        key: (*names[key], "yes" if all(labels) else "no")
        for key, labels in out.items()
        if all(labels) or not any(labels)  # annotations that disagree say nothing
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, action="append")
    parser.add_argument("--judged", type=Path, default=HERE / "head" / "judged_merges.tsv")
    parser.add_argument("--out", type=Path, default=HERE / "head" / "merge_pairs.tsv")
    args = parser.parse_args()
    pairs = annotation_pairs(args.gold or TRAINING)
    with open(args.out, "w", encoding="utf-8", newline="") as fh:
        fh.write("# made by benchmarks/merge_pairs.py: annotation pairs, then judged merges\n")
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(FIELDS)
        for (type_, _, _), (a, b, same) in sorted(pairs.items()):
            w.writerow([type_, a, b, same, "annotations", ""])
        if args.judged.exists():
            with open(args.judged, encoding="utf-8") as src:
                rows = csv.DictReader((x for x in src if not x.startswith("#")), delimiter="\t")
                for row in rows:
                    w.writerow([row.get(f) or "" for f in FIELDS])
    same = sum(1 for *_, s in pairs.values() if s == "yes")
    print(f"{same} same-thing and {len(pairs) - same} apart pairs from the annotations "
          f"-> {args.out}")  # fmt: skip


if __name__ == "__main__":
    main()

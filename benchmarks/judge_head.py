"""Score the head of a build (what a researcher sees first) against judgements by hand.

Usage: python benchmarks/judge_head.py BUILD [--judgements FILE] [--top 60]
                                       [--unjudged FILE]

The head is the top ``--top`` entities of each type by the saved query ``top-entities``
(what `kg query top-entities` shows) and the 30 labelled nodes of the first `kg viz`
view (the best-supported entities of all types). Each is looked up in the judgements
(TSV: type, name, verdict ``right``/``wrong``, same_as, why), by type and normalised
name. Prints, per type and overall, the share right in the top 10 and the top
``--top``, the judged entities that name one thing twice (same ``same_as``), and the
entities no judgement covers (``--unjudged FILE`` writes them as TSV rows to fill in);
an unjudged entity counts as not right. Reads the build; writes nothing else.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

from kg.query import LadybugEngine, get_query
from kg.resolve.keys import normalise_name
from kg.schema import ENTITY_TYPES
from kg.viz import LABELLED

TYPES = ENTITY_TYPES
HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "head" / "judgements.tsv"
FIELDS = ["type", "name", "verdict", "same_as", "why"]


class Judgements(dict):
    """Judgements by (type, exact name); a name judged only in another spelling takes
    that judgement, unless it was about the spelling (``why`` starts "display name")."""

    def __init__(self) -> None:
        super().__init__()
        self.by_norm: dict[tuple[str, str], list[dict[str, str]]] = {}

    def get(self, key, default=None):
        type_, name = key
        if (type_, name) in self:
            return self[(type_, name)]
        rows = self.by_norm.get((type_, normalise_name(name)), [])
        if not rows or any(r["why"].startswith("display name") for r in rows):
            return default  # a spelling judged on its spelling says nothing of another
        return rows[0]


def read_judgements(path: Path) -> Judgements:
    """Return the judgements of a TSV (type, name, verdict, same_as, why)."""
    out = Judgements()
    with open(path, encoding="utf-8") as fh:
        for row in csv.DictReader((line for line in fh if not line.startswith("#")),
                                  delimiter="\t"):  # fmt: skip
            if row["verdict"] not in ("right", "wrong"):
                raise SystemExit(f"{path}: verdict must be right or wrong: {row}")
            out[(row["type"], row["name"])] = row
            out.by_norm.setdefault((row["type"], normalise_name(row["name"])), []).append(row)
    return out


def head(build: Path, top: int) -> dict[str, list[dict]]:
    """Return the top ``top`` entities of each type (name, papers) as the saved query
    orders them."""
    engine = LadybugEngine(build)
    query = get_query("top-entities")
    out = {}
    for t in TYPES:
        result = engine.run(query.text_for("ladybug"), query.bind({"type": t, "limit": top}))
        out[t] = [dict(zip(result.columns, row, strict=True)) for row in result.rows]
    return out


def score(lists: dict[str, list[dict]], judged: dict) -> dict:
    """Return the shares right, duplicates and unjudged entities of ``lists``."""
    out: dict = {"types": {}, "duplicates": [], "unjudged": []}
    right_10 = right_all = n_10 = n_all = 0
    for t, rows in lists.items():
        verdicts = []
        same: Counter = Counter()
        for row in rows:
            j = judged.get((t, row["name"]))
            if j is None:
                out["unjudged"].append((t, row["name"], row["papers"]))
                verdicts.append(False)
                continue
            verdicts.append(j["verdict"] == "right")
            if j["verdict"] == "right":
                same[normalise_name(j["same_as"] or j["name"])] += 1
        out["duplicates"] += [(t, name) for name, n in same.items() if n > 1]
        out["types"][t] = {
            "top10": sum(verdicts[:10]) / max(len(verdicts[:10]), 1),
            "top": sum(verdicts) / max(len(verdicts), 1),
            "n": len(verdicts),
        }
        right_10 += sum(verdicts[:10])
        n_10 += len(verdicts[:10])
        right_all += sum(verdicts)
        n_all += len(verdicts)
    out["top10"] = right_10 / max(n_10, 1)
    out["top"] = right_all / max(n_all, 1)
    first = sorted(((row["papers"], row["name"], t) for t, rows in lists.items() for row in rows),
                   key=lambda x: (-x[0], x[1]))[:LABELLED]  # fmt: skip
    out["view"] = [(t, name, judged.get((t, name), {}).get("verdict"))
                   for _, name, t in first]  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--judgements", type=Path, default=DEFAULT)
    parser.add_argument("--top", type=int, default=60)
    parser.add_argument("--unjudged", type=Path, help="write the unjudged entities here (TSV)")
    parser.add_argument("--show", action="store_true", help="print every entity and verdict")
    args = parser.parse_args()
    judged = read_judgements(args.judgements) if args.judgements.exists() else Judgements()
    lists = head(args.build, args.top)
    result = score(lists, judged)
    if args.show:
        for t, rows in lists.items():
            for rank, row in enumerate(rows, 1):
                j = judged.get((t, row["name"]), {})
                print(f"{t}\t{rank}\t{row['papers']}\t{row['name']}\t{j.get('verdict', '?')}\t"
                      f"{j.get('why', '')}")  # fmt: skip
    print(f"{'':8} {'top-10':>7} {'top-' + str(args.top):>7}")
    for t, s in result["types"].items():
        print(f"{t:8} {s['top10']:7.2f} {s['top']:7.2f}")
    print(f"{'all':8} {result['top10']:7.2f} {result['top']:7.2f}")
    view_right = sum(v == "right" for _, _, v in result["view"])
    print(f"first view: {view_right} of {len(result['view'])} labels right")
    for t, name in result["duplicates"]:
        print(f"duplicate: {t} {name!r} twice in the top {args.top}")
    if result["unjudged"]:
        print(f"{len(result['unjudged'])} entities have no judgement", file=sys.stderr)
        if args.unjudged:
            with open(args.unjudged, "w", encoding="utf-8", newline="") as fh:
                w = csv.writer(fh, delimiter="\t", lineterminator="\n")
                w.writerow(FIELDS + ["papers"])
                for t, name, papers in result["unjudged"]:
                    w.writerow([t, name, "", "", "", papers])


if __name__ == "__main__":
    main()

"""Score the merges of a build against judgements by hand, drawn at random per rule.

Usage:
    python benchmarks/judge_merges.py BUILD [--per-rule 12] [--to-judge FILE]
    python benchmarks/judge_merges.py BUILD --to-judge FILE --fold VERDICTS.tsv
    python benchmarks/judge_merges.py BUILD --as-pairs >> benchmarks/head/judged_merges.tsv

Draws up to ``--per-rule`` merges of each resolution rule (acronym, separators, head
word, fuzzy, type vote) of a build (the same ones for the same build: ordered by a hash
of the two keys), and scores them against ``benchmarks/merges/judgements.tsv``: per
rule, the share judged right (the two names are one thing in the papers behind them),
and the mean weighted by how many merges each rule makes in the build. A merge nobody
judged is reported as unjudged and written to ``--to-judge`` with its evidence (each
name's sentences in up to three of its papers) for a judge, never guessed.
``--as-pairs`` prints the judged ones as labelled name pairs (type, a, b, same, source,
a_type: the rows of ``benchmarks/head/judged_merges.tsv``, which
``benchmarks/merge_pairs.py`` reads).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

import duckdb

from kg.resolve.keys import key_type

ROOT = Path(__file__).resolve().parent
JUDGEMENTS = ROOT / "merges" / "judgements.tsv"
FIELDS = ["rule", "source", "target", "a", "b", "verdict", "why"]
PAPERS_PER_NAME = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--per-rule", type=int, default=12)
    parser.add_argument("--judgements", type=Path, default=JUDGEMENTS)
    parser.add_argument("--to-judge", type=Path, help="write the unjudged merges here (JSONL)")
    parser.add_argument(
        "--fold", type=Path, help="judges' verdicts on --to-judge: append them and stop"
    )
    parser.add_argument("--show", action="store_true", help="print every merge and verdict")
    parser.add_argument(
        "--as-pairs", action="store_true", help="print the judged merges as labelled pairs"
    )
    args = parser.parse_args()
    if args.fold:
        fold(args.fold, args.judgements)
        return
    drawn, sizes = draw(args.build, args.per_rule)
    verdicts = read_judgements(args.judgements)
    unjudged = [m for m in drawn if (m["rule"], m["source"], m["target"]) not in verdicts]
    if args.as_pairs:
        write_pairs(drawn, verdicts)
        return
    report(drawn, sizes, verdicts, args.show)
    if args.to_judge and unjudged:
        write_to_judge(args.build, unjudged, args.to_judge)
        print(f"wrote {len(unjudged)} unjudged merges to {args.to_judge}")


def draw(build: Path, per_rule: int) -> tuple[list[dict], dict[str, int]]:
    """The merges drawn per rule, with the names each key is used by most, and how many
    merges each rule made."""
    tables = build / "tables"
    con = duckdb.connect()
    merges = con.execute(
        f"SELECT source, target, rule, reason FROM read_parquet('{tables / 'merges.parquet'}')"
    ).fetchall()
    names = dict(con.execute(
        "SELECT raw_key, arg_max(name, n) FROM (SELECT raw_key, name, count(*) AS n FROM "
        f"read_parquet('{tables / 'locals'}/*.parquet') GROUP BY ALL) GROUP BY raw_key"
    ).fetchall())  # fmt: skip
    by_rule: dict[str, list] = defaultdict(list)
    for source, target, rule, reason in merges:
        by_rule[rule].append((source, target, reason))
    drawn = []
    for rule, rows in sorted(by_rule.items()):
        rows.sort(key=lambda r: hashlib.sha1(f"{r[0]}|{r[1]}".encode()).hexdigest())
        for source, target, reason in rows[:per_rule]:
            a, b = names.get(source, source), names.get(target, target)
            drawn.append({"rule": rule, "source": source, "target": target, "reason": reason,
                          "a": a, "b": b})  # fmt: skip
    return drawn, {rule: len(rows) for rule, rows in by_rule.items()}


def read_judgements(path: Path) -> dict[tuple[str, str, str], dict]:
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8", newline="") as fh:
        rows = csv.DictReader((line for line in fh if not line.startswith("#")), delimiter="\t")
        return {(r["rule"], r["source"], r["target"]): r for r in rows}


def report(drawn: list[dict], sizes: dict[str, int], verdicts: dict, show: bool) -> None:
    right: dict[str, int] = defaultdict(int)
    judged: dict[str, int] = defaultdict(int)
    for m in drawn:
        v = verdicts.get((m["rule"], m["source"], m["target"]))
        if show:
            print("\t".join([m["rule"], m["a"], m["b"], v["verdict"] if v else "?",
                             v["why"] if v else ""]))  # fmt: skip
        if v is not None:
            judged[m["rule"]] += 1
            right[m["rule"]] += v["verdict"] == "right"
    unjudged = len(drawn) - sum(judged.values())
    print(f"drew {len(drawn)} merges of {len(sizes)} rules; {unjudged} unjudged")
    weighted = total = 0.0
    for rule in sorted(sizes):
        if judged[rule]:
            share = right[rule] / judged[rule]
            weighted += share * sizes[rule]
            total += sizes[rule]
            print(f"{rule}: {right[rule]} of {judged[rule]} judged right ({share:.2f}); "
                  f"the build makes {sizes[rule]}")  # fmt: skip
        else:
            print(f"{rule}: none judged; the build makes {sizes[rule]}")
    if total:
        print(f"weighted by the merges each rule makes: {weighted / total:.3f}")


def write_pairs(drawn: list[dict], verdicts: dict) -> None:
    """The judged merges as labelled name pairs, without a header."""
    out = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
    for m in drawn:
        v = verdicts.get((m["rule"], m["source"], m["target"]))
        if v is None:
            continue
        a_type = key_type(m["source"]) if key_type(m["source"]) != key_type(m["target"]) else ""
        same = "yes" if v["verdict"] == "right" else "no"
        out.writerow([key_type(m["target"]), m["a"], m["b"], same, f"judged merge: {m['rule']}",
                      a_type])  # fmt: skip


def write_to_judge(build: Path, merges: list[dict], out: Path) -> None:
    """Each merge with each name's sentences in up to three of its papers."""
    tables = build / "tables"
    con = duckdb.connect()
    keys = sorted({k for m in merges for k in (m["source"], m["target"])})
    papers: dict[str, list[str]] = defaultdict(list)
    for key, paper in con.execute(
        f"SELECT raw_key, paper FROM read_parquet('{tables / 'locals'}/*.parquet') "
        "WHERE list_contains(?, raw_key) ORDER BY raw_key, paper",
        [keys],
    ).fetchall():
        if len(papers[key]) < PAPERS_PER_NAME:
            papers[key].append(paper)
    wanted = {p for ps in papers.values() for p in ps}
    records = _records(build / "extractions.jsonl", wanted)
    with open(out, "w", encoding="utf-8") as fh:
        for m in merges:
            evidence = {
                side: [_sentences(records.get(p), m[side]) for p in papers[m[key]]]
                for side, key in (("a", "source"), ("b", "target"))
            }
            fh.write(json.dumps({**m, "evidence": evidence}, ensure_ascii=False) + "\n")


def _records(path: Path, wanted: set[str]) -> dict[str, dict]:
    out = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record["id"] in wanted:
                out[record["id"]] = record
    return out


def _sentences(record: dict | None, name: str) -> dict:
    """The paper's title and the sentences that mention ``name`` (or its entity)."""
    if record is None:
        return {}
    low = name.lower()
    chosen = set()
    for ent in record["entities"]:
        forms = {ent["name"].lower(), *(a.lower() for a in ent.get("aliases", []))}
        if low in forms:
            chosen |= {m["sentence"] for m in ent["mentions"]}
    sents = record.get("sentences") or []
    text = record["text"]
    said = [text[start:end] for i, (start, end) in enumerate(sents) if i in chosen]
    return {"paper": record["id"], "title": record.get("title"), "sentences": said[:3]}


def fold(verdicts: Path, judgements: Path) -> None:
    """Append a judge's TSV (header ``FIELDS``) to the judgements, unjudged rows refused."""
    with open(verdicts, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    bad = [r for r in rows if r.get("verdict") not in ("right", "wrong") or not r.get("why")]
    if bad:
        sys.exit(f"{verdicts}: {len(bad)} rows without a verdict (right/wrong) and a reason")
    new = not judgements.is_file()
    judgements.parent.mkdir(parents=True, exist_ok=True)
    with open(judgements, "a", encoding="utf-8", newline="") as fh:
        if new:
            fh.write(
                "# merges of a build, drawn per rule by benchmarks/judge_merges.py and judged "
                "from each name's sentences (say here which build)\n"
            )
        out = csv.DictWriter(fh, FIELDS, delimiter="\t", lineterminator="\n",
                             extrasaction="ignore")  # fmt: skip
        if new:
            out.writeheader()
        out.writerows(rows)
    print(f"added {len(rows)} verdicts to {judgements}")


if __name__ == "__main__":
    main()

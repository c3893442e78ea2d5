"""Sample a build's merges to judge by hand (the judged rows go into head/judged_merges.tsv).

Usage: python benchmarks/sample_merges.py BUILD [--per-rule 20] > to-judge.tsv

Takes up to ``--per-rule`` merges of each rule (acronym, separators, head word, fuzzy,
type vote), the same ones for the same build (ordered by a hash of the keys), and prints
each as type, a, b (the merged key's and the kept key's most used names), an empty
``same`` to fill in with yes or no, the rule as the source, and a's type where it is
another (a type vote).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import sys
from pathlib import Path

import duckdb

from kg.resolve.keys import key_type


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--per-rule", type=int, default=20)
    args = parser.parse_args()
    tables = args.build / "tables"
    con = duckdb.connect()
    merges = con.execute(
        f"SELECT source, target, rule FROM read_parquet('{tables / 'merges.parquet'}')"
    ).fetchall()
    names = dict(con.execute(
        "SELECT raw_key, arg_max(name, n) FROM (SELECT raw_key, name, count(*) AS n FROM "
        f"read_parquet('{tables / 'locals'}/*.parquet') GROUP BY ALL) GROUP BY raw_key"
    ).fetchall())  # fmt: skip
    by_rule: dict[str, list] = {}
    for source, target, rule in merges:
        by_rule.setdefault(rule, []).append((source, target))
    out = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
    out.writerow(["type", "a", "b", "same", "source", "a_type"])
    for rule, pairs in sorted(by_rule.items()):
        pairs.sort(key=lambda p: hashlib.sha1("|".join(p).encode()).hexdigest())
        for source, target in pairs[: args.per_rule]:
            a, b = names.get(source, source), names.get(target, target)
            a_type = key_type(source) if key_type(source) != key_type(target) else ""
            out.writerow([key_type(target), a, b, "", f"judged merge: {rule}", a_type])


if __name__ == "__main__":
    main()

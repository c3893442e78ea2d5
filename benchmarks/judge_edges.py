"""Score the edges of a build that a researcher clicks through against judgements by hand.

Usage: python benchmarks/judge_edges.py BUILD [--judgements FILE] [--floor F]
                                        [--top 20] [--random 10] [--to-judge FILE] [--show]

For each relation type between entities the sample is the ``--top`` best-supported edges
that a saved query shows by default (confidence at or above ``--floor``, default: the
saved queries' own default of ``$min_confidence``) and ``--random`` edges of one paper
drawn from those shown: the ones whose (type, head, tail) names hash lowest, so any two
builds draw the same edge when both have it. Each edge is looked up in the judgements
(TSV: type, head, tail, evidence, verdict ``right``/``wrong``, why) by type, normalised
names and a digest of the evidence a judge read (:func:`evidence_digest`): a verdict on
other evidence is not taken for this one. An unjudged edge is reported and counted as not
right (``--to-judge FILE`` writes those, with the evidence a judge reads, as JSON lines).
Every sampled edge's evidence is checked to name both ends: each of its first
``--evidence`` items (one per paper) holds the words of both mentions where its offsets
say. Prints how many edges each type shows and hides by
default. Reads the build; writes only ``--to-judge`` (and, with
``--refresh-calibration TABLE``, that table: see :func:`refresh_calibration`).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from pathlib import Path

from kg.graph.assemble import SHOWN_EVIDENCE
from kg.graph.store import TABLES, GraphTables
from kg.query import get_query
from kg.query.explain import marked_evidence
from kg.resolve.keys import normalise_name
from kg.schema import ENTITY_TYPES, RELATION_TYPES

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "edges" / "judgements.tsv"
FIELDS = ["type", "head", "tail", "evidence", "verdict", "why"]
EVIDENCE = SHOWN_EVIDENCE  # what a reader is shown first, and what confidence is of
SUPPORT_BANDS = ((1, 1), (2, 2), (3, 5), (6, 10**9))


def default_floor() -> float:
    """The confidence floor the saved queries apply unless told otherwise."""
    query = get_query("method-tasks")
    return float(query.bind({"method": ""})["min_confidence"])


def read_judgements(path: Path) -> dict[tuple[str, str, str, str], dict[str, str]]:
    """Return the judgements of a TSV by (type, normalised head, normalised tail,
    evidence digest)."""
    out = {}
    with open(path, encoding="utf-8") as fh:
        lines = (line for line in fh if not line.startswith("#"))
        for row in csv.DictReader(lines, delimiter="\t"):
            if row["verdict"] not in ("right", "wrong"):
                raise SystemExit(f"{path}: verdict must be right or wrong: {row}")
            out[(*key_of(row["type"], row["head"], row["tail"]), row["evidence"])] = row
    return out


def key_of(rtype: str, head: str, tail: str) -> tuple[str, str, str]:
    return rtype, normalise_name(head), normalise_name(tail)


def evidence_digest(items: list[dict]) -> str:
    """A digest of the evidence a judge reads of an edge (the marked texts shown)."""
    text = "\n".join(f"{e['paper']}\t{e['text']}" for e in items)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def draw_rank(rtype: str, head: str, tail: str) -> str:
    """The rank of an edge in the random draw: a hash of its type and names."""
    return hashlib.sha1("|".join(key_of(rtype, head, tail)).encode()).hexdigest()


def read_edges(build: Path, floor: float, evidence: int):
    """Return the edges between entities per type (name ends, support, confidence, the
    first ``evidence`` items of distinct papers) and per type the counts shown and hidden."""
    tables = GraphTables(build / TABLES)
    names = {}
    for label in ENTITY_TYPES:
        names.update({key: data["name"] for key, data in tables.nodes(label)})
    texts = {data["paper_id"]: data["text"] for _, data in tables.nodes("Paper")}
    edges: dict[str, list[dict]] = {t: [] for t in RELATION_TYPES}
    counts = {t: [0, 0] for t in RELATION_TYPES}
    for rtype in RELATION_TYPES:
        for u, v, _, data in tables.edges(rtype):
            if u not in names or v not in names:
                continue  # a result's metric (Result -> Metric), not a relation
            shown = data["confidence"] >= floor
            counts[rtype][0 if shown else 1] += 1
            if not shown:
                continue
            items, confidences, papers = [], [], set()
            for ev in data["evidence"]:  # most confident first: a paper's first is its best
                if ev["paper"] not in papers and len(items) < evidence:
                    papers.add(ev["paper"])
                    items.append(evidence_item(ev, texts.get(ev["paper"], "")))
                    confidences.append(ev.get("confidence", 0.0))
            edges[rtype].append({
                "type": rtype, "head": names[u], "tail": names[v], "support": data["support"],
                "confidence": data["confidence"], "confidences": confidences, "evidence": items,
            })  # fmt: skip
    return edges, counts


def evidence_item(ev: dict, paper_text: str) -> dict:
    """What a judge reads of one evidence item: its stored text with both mentions marked
    (``[[head]]``, ``{{tail}}``), the words at its offsets, and whether the text names both."""
    item = marked_evidence(ev, paper_text)
    words = {side: paper_text[slice(*ev[f"{side}_span"])] if ev.get(f"{side}_span") else ""
             for side in ("head", "tail")}  # fmt: skip
    return {"paper": ev["paper"], "text": item["text"], "head_words": words["head"],
            "tail_words": words["tail"], "names_both": item["names_both"]}  # fmt: skip


def sample(edges: dict[str, list[dict]], top: int, random: int) -> list[dict]:
    """The ``top`` best-supported and ``random`` drawn single-paper edges of each type."""
    out = []
    for rtype, rows in edges.items():
        best = sorted(rows, key=lambda r: (-r["support"], -r["confidence"], r["head"], r["tail"]))
        out += [dict(r, kind="top", rank=i) for i, r in enumerate(best[:top], 1)]
        single = [r for r in rows if r["support"] == 1]
        single.sort(key=lambda r: draw_rank(rtype, r["head"], r["tail"]))
        out += [dict(r, kind="random", rank=i) for i, r in enumerate(single[:random], 1)]
    return out


def calibration_draw(edges: dict[str, list[dict]], per_band: int) -> list[dict]:
    """Edges at any confidence to judge for the edge calibration
    (scripts/calibrate_edges.py): per type and band of support (1, 2, 3-5, 6 or more
    papers) the ``per_band`` whose names hash lowest."""
    out = []
    for rtype, rows in edges.items():
        for low, high in SUPPORT_BANDS:
            band = [r for r in rows if low <= r["support"] <= high]
            band.sort(key=lambda r: draw_rank(rtype, r["head"], r["tail"]))
            out += [dict(r, kind=f"support{low}", rank=i) for i, r in
                    enumerate(band[:per_band], 1)]  # fmt: skip
    return out


def refresh_calibration(table: Path, edges: dict[str, list[dict]]) -> list[dict]:
    """Rewrite the judged edges of ``table`` for a new build of their slice and return the
    edges whose evidence changed (their verdict was on other evidence), to judge again."""
    lines = table.read_text(encoding="utf-8").splitlines()
    comments = [line for line in lines if line.startswith("#")]
    rows = list(csv.DictReader([ln for ln in lines if not ln.startswith("#")], delimiter="\t"))
    fields = list(rows[0]) if rows else []
    by_key = {key_of(r["type"], r["head"], r["tail"]): r for rs in edges.values() for r in rs}
    kept, redo, gone = [], [], 0
    for row in rows:
        edge = by_key.get(key_of(row["type"], row["head"], row["tail"]))
        if edge is None:
            gone += 1
        elif evidence_digest(edge["evidence"]) != row["evidence"]:
            redo.append(dict(edge, kind="redo", rank=0))
        else:
            confidences = ",".join(f"{c:.3f}" for c in edge["confidences"])
            kept.append(dict(row, support=str(edge["support"]), confidences=confidences))
    with open(table, "w", encoding="utf-8", newline="") as fh:
        fh.write("".join(line + "\n" for line in comments))
        out = csv.DictWriter(fh, fields, delimiter="\t", lineterminator="\n")
        out.writeheader()
        out.writerows(kept)
    print(f"{table}: kept {len(kept)}, dropped {gone} whose edge is gone, "
          f"{len(redo)} whose evidence changed to judge again")  # fmt: skip
    return redo


def score(items: list[dict], judged: dict) -> tuple[dict, list[dict]]:
    """Per (kind, type): [right, sampled]; and the items no judgement covers."""
    shares: dict[tuple[str, str], list[int]] = {}
    unjudged = []
    for item in items:
        digest = evidence_digest(item["evidence"])
        j = judged.get((*key_of(item["type"], item["head"], item["tail"]), digest))
        item["verdict"] = j["verdict"] if j else None
        item["why"] = j["why"] if j else ""
        cell = shares.setdefault((item["kind"], item["type"]), [0, 0])
        cell[0] += item["verdict"] == "right"
        cell[1] += 1
        if j is None:
            unjudged.append(item)
    return shares, unjudged


def report(shares: dict, items: list[dict], counts: dict, floor: float) -> None:
    print(f"edges shown by default: confidence >= {floor}")
    print(f"{'relation':14} {'top':>9} {'random':>9} {'shown':>8} {'hidden':>8}")
    totals = {"top": [0, 0], "random": [0, 0]}
    for rtype in RELATION_TYPES:
        cells = []
        for kind in ("top", "random"):
            right, n = shares.get((kind, rtype), (0, 0))
            totals[kind][0] += right
            totals[kind][1] += n
            cells.append(f"{right}/{n}")
        shown, hidden = counts[rtype]
        print(f"{rtype:14} {cells[0]:>9} {cells[1]:>9} {shown:8,} {hidden:8,}")
    for kind, (right, n) in totals.items():
        print(f"{kind}: {right} of {n} right ({right / max(n, 1):.2f})")
    named = sum(all(e["names_both"] for e in i["evidence"]) for i in items)
    print(f"evidence names both ends: {named} of {len(items)} sampled edges")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--judgements", type=Path, default=DEFAULT)
    parser.add_argument("--floor", type=float, help="confidence floor (default: the queries')")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--random", type=int, default=10)
    parser.add_argument("--evidence", type=int, default=EVIDENCE, help="items read per edge")
    parser.add_argument("--to-judge", type=Path, help="write the unjudged edges here (JSONL)")
    parser.add_argument("--show", action="store_true", help="print every edge and verdict")
    parser.add_argument(
        "--calibration-draw",
        type=Path,
        metavar="FILE",
        help="write instead a draw of edges at any confidence, by support, "
        "to judge for scripts/calibrate_edges.py (JSONL) and stop",
    )
    parser.add_argument("--per-band", type=int, default=6, help="edges per type and band")
    parser.add_argument(
        "--refresh-calibration",
        type=Path,
        metavar="TABLE",
        help="bring the judged edges of TABLE (benchmarks/edges/calibration.tsv) up to "
        "this build of their slice: rows whose edge is gone are dropped, rows whose "
        "evidence changed go to --to-judge to be judged again (then scripts/"
        "calibrate_edges.py --add), the others take the build's support and confidences",
    )
    args = parser.parse_args()
    if args.refresh_calibration:
        edges, _ = read_edges(args.build, 0.0, args.evidence)
        redo = refresh_calibration(args.refresh_calibration, edges)
        if args.to_judge:
            write_to_judge(args.to_judge, redo)
        return
    if args.calibration_draw:
        edges, _ = read_edges(args.build, 0.0, args.evidence)
        write_to_judge(args.calibration_draw, calibration_draw(edges, args.per_band))
        return
    floor = default_floor() if args.floor is None else args.floor
    judged = read_judgements(args.judgements) if args.judgements.exists() else {}
    edges, counts = read_edges(args.build, floor, args.evidence)
    items = sample(edges, args.top, args.random)
    shares, unjudged = score(items, judged)
    if args.show:
        for i in items:
            print(f"{i['type']}\t{i['kind']}\t{i['rank']}\t{i['support']}\t{i['head']}\t"
                  f"{i['tail']}\t{i['verdict'] or '?'}\t{i['why']}")  # fmt: skip
    report(shares, items, counts, floor)
    if unjudged:
        print(f"{len(unjudged)} sampled edges have no judgement", file=sys.stderr)
        if args.to_judge:
            write_to_judge(args.to_judge, unjudged)


def write_to_judge(path: Path, items: list[dict]) -> None:
    """Write edges as a judge reads them (JSONL), with the digest of their evidence and
    the confidence of each paper shown."""
    with open(path, "w", encoding="utf-8") as fh:
        for item in items:
            fields = ("type", "kind", "rank", "head", "tail", "support", "confidences",
                      "evidence")  # fmt: skip
            row = {k: item[k] for k in fields}
            row["digest"] = evidence_digest(item["evidence"])
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()

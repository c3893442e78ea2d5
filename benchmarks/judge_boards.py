"""Score the leaderboards of a build that a researcher reads against judgements by hand.

Usage: python benchmarks/judge_boards.py BUILD [--judgements FILE ...] [--boards 10]
                                         [--rows 5] [--to-judge FILE] [--show]
       python benchmarks/judge_boards.py BUILD --to-judge FILE --fold VERDICTS.tsv ...

The sample is the ``--boards`` largest leaderboards (dataset, metric) of the build, most
rows first, and the best ``--rows`` rows of each, as :func:`kg.analytics.leaderboards`
orders them (what ``kg analyze`` shows). For each row a judge reads the evidence the
build stores for it: the sentence of its number and the sentences of its method, data
set and metric mentions, with the mentions marked where the stored offsets point
(method ``[[ ]]``, data set ``{{ }}``, metric ``<< >>``, value ``** **``). A build that
stored no offsets of a row's method, data set or metric (before issue 60) has the
entity's mention nearest to the number marked, and the item says so (``marked_by``).

Each row is looked up in the judgements (TSV, one or more ``--judgements`` files; lines
starting with ``#`` are comments) by its board, its row (normalised method, value, unit,
paper, own or baseline) and a digest of the evidence a judge read
(:func:`evidence_digest`), so a verdict on other evidence is never taken for this one.
Columns: ``dataset metric method value unit paper reported_as digest verdict own_verdict
why``; ``verdict`` is ``right`` when the value is that method's score on that data set in
that metric (the board's, variant included) as the evidence states it, else ``wrong``;
``own_verdict`` is ``right`` when ``reported_as`` (own, baseline, or empty for no method)
is what the evidence says of the method, ``na`` for a row with no method (not counted).
An unjudged row is reported as unjudged and counted neither way (``--to-judge FILE``
writes those, with the evidence, as JSON lines).
Prints rows right, first rows right and own vs baseline right, of the judged. Reads the
build; writes only ``--to-judge``. ``--fold`` appends judges' verdicts on the rows of a
``--to-judge`` file to the judgements (:func:`fold_verdicts`).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from kg.analytics.leaderboards import LeaderboardRow, leaderboards
from kg.exporters.jsonio import read_build_graph
from kg.names import normalise_name

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "boards" / "judgements.tsv"
FIELDS = ["dataset", "metric", "method", "value", "unit", "paper", "reported_as", "digest",
          "verdict", "own_verdict", "why"]  # fmt: skip
MARKS = {"method": ("[[", "]]"), "dataset": ("{{", "}}"), "metric": ("<<", ">>"),
         "value": ("**", "**")}  # fmt: skip
OWN_VERDICTS = ("right", "wrong", "na")  # na: no method, so no own or baseline to judge
GAP = " … "  # between sentences of one item that are not next to each other


def reported_as(own: bool | None) -> str:
    """How a row is flagged: ``own`` (the paper's proposal), ``baseline``, or ``""``."""
    return "" if own is None else "own" if own else "baseline"


def value_text(value: float) -> str:
    """A value as the key writes it (4 decimals at most, no trailing zeros)."""
    return f"{round(float(value), 4):.4f}".rstrip("0").rstrip(".")


def row_key(dataset: str, metric: str, method: str, value: Any, unit: str, paper: str,
            flag: str) -> tuple[str, ...]:  # fmt: skip
    """The key of a judged row, without its evidence digest."""
    return (normalise_name(dataset), normalise_name(metric), normalise_name(method or ""),
            value_text(float(value)), unit or "", paper, flag)  # fmt: skip


def read_judgements(paths: list[Path]) -> dict[tuple[str, ...], dict[str, str]]:
    """Return the judgements of the TSV files by row key plus evidence digest."""
    out: dict[tuple[str, ...], dict[str, str]] = {}
    for path in paths:
        with open(path, encoding="utf-8", newline="") as fh:
            lines = (line for line in fh if not line.startswith("#"))
            for n, row in enumerate(csv.DictReader(lines, delimiter="\t"), 2):
                if row.get("verdict") not in ("right", "wrong"):
                    raise SystemExit(f"{path}:{n}: verdict must be right or wrong: {row}")
                if row.get("own_verdict") not in OWN_VERDICTS:
                    raise SystemExit(f"{path}:{n}: own_verdict must be right, wrong or na: {row}")
                key = row_key(row["dataset"], row["metric"], row["method"], row["value"],
                              row["unit"], row["paper"], row["reported_as"])  # fmt: skip
                out[(*key, row["digest"])] = row
    return out


def evidence_digest(items: list[dict]) -> str:
    """A digest of the evidence a judge reads of a row (its marked texts)."""
    text = "\n".join(f"{e['paper']}\t{e['text']}" for e in items)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def read_records(build: Path, papers: set[str]) -> dict[str, dict]:
    """The ``extractions.jsonl`` records of ``papers`` (none when the build has no file)."""
    path = build / "extractions.jsonl"
    out: dict[str, dict] = {}
    if not path.is_file():
        return out
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            head = line[:200]  # the id is the first field: skip other papers unparsed
            if not any(f'"{p}"' in head for p in papers):
                continue
            record = json.loads(line)
            if record["id"] in papers:
                out[record["id"]] = record
    return out


def nearest_mention(record: dict, entity_id: str | None, sentence: int, at: int):
    """The mention of ``entity_id`` in ``record`` nearest to char ``at`` (its own
    sentence first), as ``(start, end, sentence)``, or None."""
    for ent in record.get("entities", []):
        if ent["id"] == entity_id and ent.get("mentions"):
            m = min(ent["mentions"],
                    key=lambda m: (m["sentence"] != sentence, abs(m["start"] - at)))  # fmt: skip
            return m["start"], m["end"], m["sentence"]
    return None


def sentence_of(record: dict, char: int) -> int | None:
    for i, (start, end) in enumerate(record.get("sentences", [])):
        if start <= char < end:
            return i
    return None


def row_marks(record: dict, result: dict) -> tuple[dict[str, tuple[int, int, int]], str]:
    """Where each part of a result is in the paper: ``{part: (start, end, sentence)}``,
    and how the method, data set and metric were found (stored offsets or nearest)."""
    ev = result["evidence"]
    marks = {"value": (ev["start"], ev["end"], ev["sentence"])}
    stored = any(ev.get(f"{part}_span") for part in ("method", "dataset", "metric"))
    for part in ("method", "dataset", "metric"):
        span = ev.get(f"{part}_span")
        if span:
            sent = sentence_of(record, span[0])
            marks[part] = (span[0], span[1], ev["sentence"] if sent is None else sent)
        elif not stored and result.get(f"{part}_id"):
            found = nearest_mention(record, result[f"{part}_id"], ev["sentence"], ev["start"])
            if found:
                marks[part] = found
    return marks, "stored offsets" if stored else "nearest mention of the entity"


def marked_item(record: dict, result: dict) -> dict:
    """The evidence item of one result: its sentences with the parts marked."""
    text = record["text"]
    marks, how = row_marks(record, result)
    sents = sorted({s for _, _, s in marks.values()})
    inserts = []
    for part, (start, end, _) in marks.items():
        left, right = MARKS[part]
        inserts += [(end, 0, right), (start, 1, left)]
    pieces, last = [], None
    for s in sents:
        a, b = record["sentences"][s]
        chunk = text[a:b]
        for pos, _, mark in sorted((i for i in inserts if a <= i[0] <= b), reverse=True):
            chunk = chunk[: pos - a] + mark + chunk[pos - a :]
        pieces.append((GAP if last is not None and s != last + 1 else " ") + chunk)
        last = s
    words = {part: text[start:end] for part, (start, end, _) in marks.items()}
    return {"paper": record["id"], "sentences": sents, "text": "".join(pieces).strip(),
            "words": words, "marked_by": how}  # fmt: skip


def graph_item(G, row: LeaderboardRow) -> dict:
    """The evidence item of a row from its Result node alone (no extractions.jsonl)."""
    data = G.nodes[row.result]
    paper = G.nodes.get(f"paper:{row.paper_id}", {}).get("text", "")
    sentence = data.get("evidence", "")
    at = sentence.find(paper[data["start"] : data["end"]]) if paper else -1
    if at >= 0:
        n = data["end"] - data["start"]
        sentence = f"{sentence[:at]}**{sentence[at : at + n]}**{sentence[at + n :]}"
    return {"paper": row.paper_id, "sentences": [data.get("sentence")], "text": sentence,
            "words": {"value": paper[data["start"] : data["end"]]},
            "marked_by": "the value only (no extractions.jsonl)"}  # fmt: skip


def sample(build: Path, n_boards: int, n_rows: int) -> list[dict]:
    """The best ``n_rows`` rows of the ``n_boards`` largest boards, with their evidence."""
    G = read_build_graph(build)
    boards = leaderboards(G)
    largest = sorted(boards.items(), key=lambda kv: (-len(kv[1][1]), kv[0]))[:n_boards]
    rows = [(b, d, len(rs), i, r) for b, (d, rs) in largest for i, r in enumerate(rs[:n_rows], 1)]
    records = read_records(build, {r.paper_id for *_, r in rows})
    items = []
    for (dataset, metric), direction, size, rank, r in rows:
        record = records.get(r.paper_id)
        result = next((x for x in (record or {}).get("results", []) if x["id"] == r.result), None)
        evidence = [marked_item(record, result) if result else graph_item(G, r)]
        items.append({
            "board": {"dataset": dataset, "metric": metric, "direction": direction,
                      "rows": size},
            "rank": rank,
            "row": {"method": r.method or "", "value": r.value, "unit": r.unit or "",
                    "reported_as": reported_as(r.own), "paper": r.paper_id,
                    "condition": r.condition, "result": r.result},
            "evidence": evidence, "digest": evidence_digest(evidence),
        })  # fmt: skip
    return items


def item_key(item: dict) -> tuple[str, ...]:
    b, r = item["board"], item["row"]
    key = row_key(b["dataset"], b["metric"], r["method"], r["value"], r["unit"], r["paper"],
                  r["reported_as"])  # fmt: skip
    return (*key, item["digest"])


def to_judge(item: dict) -> dict:
    """What a judge reads of a row, with the TSV key columns to write the verdict under."""
    b, r = item["board"], item["row"]
    key = {"dataset": b["dataset"], "metric": b["metric"], "method": r["method"],
           "value": value_text(r["value"]), "unit": r["unit"], "paper": r["paper"],
           "reported_as": r["reported_as"], "digest": item["digest"]}  # fmt: skip
    fields = ("board", "rank", "row", "evidence")
    return {**{k: item[k] for k in fields}, "key": key}


def score(items: list[dict], judged: dict) -> tuple[dict[str, list[int]], list[dict]]:
    """Counts ``[right, judged]`` of rows, first rows and own flags; the unjudged items."""
    counts = {"rows": [0, 0], "first rows": [0, 0], "own vs baseline": [0, 0]}
    unjudged = []
    for item in items:
        j = judged.get(item_key(item))
        item["verdict"] = j["verdict"] if j else None
        item["own_verdict"] = j["own_verdict"] if j else None
        item["why"] = j["why"] if j else ""
        if j is None:
            unjudged.append(item)
            continue
        for name, verdict, counted in (("rows", j["verdict"], True),
                                       ("first rows", j["verdict"], item["rank"] == 1),
                                       ("own vs baseline", j["own_verdict"],
                                        j["own_verdict"] != "na")):  # fmt: skip
            if counted:
                counts[name][0] += verdict == "right"
                counts[name][1] += 1
    return counts, unjudged


def report(counts: dict[str, list[int]], items: list[dict], unjudged: list[dict]) -> None:
    boards = {(i["board"]["dataset"], i["board"]["metric"]) for i in items}
    print(f"sampled {len(items)} rows of {len(boards)} boards; {len(unjudged)} unjudged")
    for name, (right, n) in counts.items():
        share = f"{right / n:.2f}" if n else "-"
        print(f"{name}: {right} of {n} judged right ({share})")


def fold_verdicts(to_judge: Path, verdicts: list[Path]) -> list[dict[str, str]]:
    """The verdicts of judges (TSV with ``paper``, ``digest``, ``verdict``, ``own`` or
    ``own_verdict`` and ``why``) on the rows of a ``--to-judge`` file, as lines of the
    judgements file: each takes its key columns from the row it was given, found by paper
    and evidence digest; a verdict on no row of the file is an error."""
    with open(to_judge, encoding="utf-8") as fh:
        rows = {(r["key"]["paper"], r["key"]["digest"]): r["key"] for r in map(json.loads, fh)}
    out = []
    for path in verdicts:
        with open(path, encoding="utf-8", newline="") as fh:
            for n, v in enumerate(csv.DictReader(fh, delimiter="\t"), 2):
                key = rows.get((v["paper"], v["digest"]))
                own = v.get("own_verdict") or v.get("own")
                if key is None or v["verdict"] not in ("right", "wrong") or own not in OWN_VERDICTS:
                    raise SystemExit(f"{path}:{n}: no row of {to_judge} or no verdict: {v}")
                out.append({**key, "verdict": v["verdict"], "own_verdict": own,
                            "why": " ".join(v.get("why", "").split())})  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--judgements", type=Path, action="append",
                        help=f"TSV of verdicts (repeatable; default: {DEFAULT})")  # fmt: skip
    parser.add_argument("--boards", type=int, default=10, help="largest boards sampled")
    parser.add_argument("--rows", type=int, default=5, help="best rows read per board")
    parser.add_argument("--to-judge", type=Path, help="write the unjudged rows here (JSONL)")
    parser.add_argument("--show", action="store_true", help="print every row and verdict")
    parser.add_argument("--fold", type=Path, nargs="+", metavar="TSV",
                        help="judges' verdicts on the rows of --to-judge: append them to the "
                        "first --judgements file and stop")  # fmt: skip
    args = parser.parse_args()
    if args.fold:
        if not args.to_judge:
            raise SystemExit("--fold needs --to-judge: the rows the verdicts are on")
        target = (args.judgements or [DEFAULT])[0]
        lines = fold_verdicts(args.to_judge, args.fold)
        with open(target, "a", encoding="utf-8", newline="") as fh:
            csv.DictWriter(fh, FIELDS, delimiter="\t", lineterminator="\n").writerows(lines)
        print(f"added {len(lines)} verdicts to {target}")
        return
    paths = args.judgements or [DEFAULT]
    judged = read_judgements([p for p in paths if p.exists()])
    items = sample(args.build, args.boards, args.rows)
    counts, unjudged = score(items, judged)
    if args.show:
        for i in items:
            b, r = i["board"], i["row"]
            print(f"{b['dataset']}\t{b['metric']}\t{i['rank']}\t{r['method']}\t{r['value']}"
                  f"{r['unit']}\t{r['reported_as']}\t{r['paper']}\t{i['verdict'] or '?'}\t"
                  f"{i['own_verdict'] or '?'}\t{i['why']}")  # fmt: skip
    report(counts, items, unjudged)
    if unjudged and args.to_judge:
        with open(args.to_judge, "w", encoding="utf-8") as fh:
            for item in unjudged:
                fh.write(json.dumps(to_judge(item), ensure_ascii=False) + "\n")
        print(f"wrote {len(unjudged)} unjudged rows to {args.to_judge}", file=sys.stderr)


if __name__ == "__main__":
    main()

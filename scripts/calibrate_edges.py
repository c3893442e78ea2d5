"""Fit the chance that an edge is right from its papers' confidences, type and support.

A paper's confidence is calibrated on held-out folds of the training abstracts, paper by
paper; whether an edge of a whole build is right (most of the papers a reader is shown
state it) also depends on its type and on how many papers read it. The edges of a build
judged by hand (``benchmarks/edges/calibration.tsv``: each edge's type, support, the
confidences of the papers a judge read and the verdict) fit
:class:`~kg.graph.assemble.EdgeCalibration`, a logistic regression on the logit of
:func:`~kg.graph.assemble.majority_right` of those confidences, the log of the support
and an intercept per type (ridge-penalised towards the common one). Which of those terms
it keeps is decided by held-out log-likelihood (5 folds); ``cap`` is the largest support
judged.

Usage:
    python scripts/calibrate_edges.py [--table benchmarks/edges/calibration.tsv]
                                      [--out kg/graph/data/edge_calibration.json]
    python scripts/calibrate_edges.py --add DRAW.jsonl VERDICTS.tsv   # add judged edges

``DRAW.jsonl`` is what ``benchmarks/judge_edges.py BUILD --calibration-draw`` wrote, and
``VERDICTS.tsv`` a judge's verdicts on it (type, head, tail, verdict, why).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.graph.assemble import EdgeCalibration, majority_right  # noqa: E402
from kg.schema import RELATION_TYPES  # noqa: E402

TABLE = ROOT / "benchmarks" / "edges" / "calibration.tsv"
OUT = ROOT / "kg" / "graph" / "data" / "edge_calibration.json"
FIELDS = ["type", "head", "tail", "support", "confidences", "evidence", "verdict", "why"]
MODELS = {  # the terms a model adds to an intercept
    "none": (),
    "confidence": ("confidence",),
    "confidence+support": ("confidence", "support"),
    "confidence+type": ("confidence", "type"),
    "confidence+support+type": ("confidence", "support", "type"),
}
RIDGE = 1.0  # penalty on the per-type intercepts (towards the common one)
FOLDS = 5


@dataclass(frozen=True)
class Judged:
    type: str
    support: int
    confidences: list[float]
    right: bool

    @property
    def shown(self) -> float:
        """The chance most of the shown papers are right, by their own confidences."""
        return min(max(majority_right(self.confidences), 1e-4), 1 - 1e-4)


def read_table(path: Path) -> list[Judged]:
    """The judged edges of ``path``."""
    with open(path, encoding="utf-8") as fh:
        rows = csv.DictReader((line for line in fh if not line.startswith("#")), delimiter="\t")
        return [Judged(r["type"], int(r["support"]), [float(c) for c in
                       r["confidences"].split(",")], r["verdict"] == "right")
                for r in rows]  # fmt: skip


def design(rows: list[Judged], terms: tuple[str, ...], cap: int) -> np.ndarray:
    """One row of regressors per edge: 1, then the terms asked for."""
    cols = [np.ones(len(rows))]
    if "confidence" in terms:
        cols.append(np.array([math.log(r.shown / (1 - r.shown)) for r in rows]))
    if "support" in terms:
        cols.append(np.array([math.log(min(r.support, cap)) for r in rows]))
    if "type" in terms:
        cols += [np.array([float(r.type == t) for r in rows]) for t in RELATION_TYPES]
    return np.stack(cols, axis=1)


def logistic(x: np.ndarray, y: np.ndarray, penalty: np.ndarray, steps: int = 50) -> np.ndarray:
    """Ridge-penalised logistic regression by Newton's method."""
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) + penalty * w
        hess = (x.T * np.maximum(p * (1 - p), 1e-9)) @ x + np.diag(penalty + 1e-6)
        w -= np.linalg.solve(hess, grad)
    return w


def fit(rows: list[Judged], terms: tuple[str, ...]) -> EdgeCalibration:
    cap = max((r.support for r in rows), default=1)
    x = design(rows, terms, cap)
    penalty = np.zeros(x.shape[1])
    if "type" in terms:
        penalty[-len(RELATION_TYPES) :] = RIDGE
    w = logistic(x, np.array([float(r.right) for r in rows]), penalty)
    k = 1
    slope = support = 0.0
    if "confidence" in terms:
        slope, k = float(w[k]), k + 1
    if "support" in terms:
        support, k = float(w[k]), k + 1
    per_type = w[k:] if "type" in terms else np.zeros(len(RELATION_TYPES))
    intercept = tuple(
        (t, round(float(w[0] + d), 4)) for t, d in zip(RELATION_TYPES, per_type, strict=True)
    )
    return EdgeCalibration(intercept, round(slope, 4), round(support, 4), cap)


def probabilities(rows: list[Judged], calibration: EdgeCalibration) -> list[float]:
    return [calibration(r.type, r.shown, r.support) for r in rows]


def log_likelihood(rows: list[Judged], probs: list[float]) -> float:
    return sum(math.log(min(max(p if r.right else 1 - p, 1e-6), 1.0))
               for r, p in zip(rows, probs, strict=True))  # fmt: skip


def calibration_error(rows: list[Judged], probs: list[float], bins: int = 10) -> float:
    """Expected calibration error of the edges' confidences against their verdicts."""
    slots: dict[int, list[float]] = {}
    for r, p in zip(rows, probs, strict=True):
        slot = slots.setdefault(min(int(p * bins), bins - 1), [0.0, 0.0])
        slot[0] += p
        slot[1] += r.right
    return sum(abs(p - right) for p, right in slots.values()) / max(len(rows), 1)


def held_out(rows: list[Judged], terms: tuple[str, ...] | None) -> list[float]:
    """Each edge's probability under the model fitted on the other folds (``None``: the
    papers' own confidences, uncalibrated)."""
    probs = [0.0] * len(rows)
    for k in range(FOLDS):
        rest = [r for i, r in enumerate(rows) if i % FOLDS != k]
        calibration = EdgeCalibration() if terms is None else fit(rest, terms)
        for i in range(k, len(rows), FOLDS):
            probs[i] = calibration(rows[i].type, rows[i].shown, rows[i].support)
    return probs


def add_judged(draw: Path, verdicts: Path, table: Path) -> int:
    """Append the judged edges of a calibration draw to ``table``; return how many.
    Nothing is written unless every verdict is of the edge on the draw's same line."""
    with open(verdicts, encoding="utf-8") as fh:
        judged = list(csv.DictReader(fh, delimiter="\t"))
    edges = [json.loads(line) for line in draw.read_text(encoding="utf-8").splitlines()]
    if len(judged) != len(edges):
        raise SystemExit(f"{verdicts}: {len(judged)} verdicts for {len(edges)} edges in {draw}")
    for line, (edge, verdict) in enumerate(zip(edges, judged, strict=True), 2):
        ends = [edge[k] for k in ("type", "head", "tail")]
        if [verdict.get(k) for k in ("type", "head", "tail")] != ends:
            raise SystemExit(f"{verdicts}:{line}: not a verdict on {' '.join(ends)}")
        if verdict["verdict"] not in ("right", "wrong"):
            raise SystemExit(f"{verdicts}:{line}: verdict must be right or wrong")
    new = not table.exists()
    with open(table, "a", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, FIELDS, delimiter="\t", lineterminator="\n")
        if new:
            writer.writeheader()
        for edge, verdict in zip(edges, judged, strict=True):
            writer.writerow({
                "type": edge["type"], "head": edge["head"], "tail": edge["tail"],
                "support": edge["support"],
                "confidences": ",".join(f"{c:.3f}" for c in edge["confidences"]),
                "evidence": edge["digest"], "verdict": verdict["verdict"],
                "why": (verdict["why"] or "").replace("\t", " "),
            })  # fmt: skip
    return len(edges)


def choose(rows: list[Judged]) -> tuple[str, dict[str, tuple[float, float]]]:
    """The model of best held-out log-likelihood (the simplest of equal ones), and each
    model's held-out log-likelihood and calibration error."""
    scores = {"uncalibrated": held_out(rows, None)} | {
        name: held_out(rows, terms) for name, terms in MODELS.items()}  # fmt: skip
    table = {name: (log_likelihood(rows, p), calibration_error(rows, p))
             for name, p in scores.items()}  # fmt: skip
    best = max(MODELS, key=lambda name: (round(table[name][0], 3), -len(MODELS[name])))
    return best, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=Path, default=TABLE)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--add", nargs=2, type=Path, metavar=("DRAW", "VERDICTS"))
    args = parser.parse_args()
    if args.add:
        print(f"added {add_judged(*args.add, args.table)} judged edges to {args.table}")
        return
    rows = read_table(args.table)
    print(f"{len(rows)} judged edges, {sum(r.right for r in rows)} right")
    best, table = choose(rows)
    for name, (ll, ece) in table.items():
        mark = "  <- chosen" if name == best else ""
        print(f"  {name:24} held-out log-likelihood {ll:8.1f}, calibration error {ece:.3f}{mark}")
    calibration = fit(rows, MODELS[best])
    data = {"model": best, "intercept": dict(calibration.intercept), "slope": calibration.slope,
            "support_weight": calibration.support_weight, "cap": calibration.cap,
            "edges": len(rows), "held_out_calibration_error": round(table[best][1], 4),
            "source": "benchmarks/edges/calibration.tsv"}  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

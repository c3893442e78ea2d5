"""Paper-level graph match: entities (typed, untyped, per type), relations, results."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import KgError
from kg.eval.calibration import calibration, entity_confidence
from kg.ingest.record import normalise_space
from kg.names import normalise_name

__all__ = [
    "Score",
    "evaluate",
    "evaluate_files",
    "format_table",
    "gold_type",
    "gold_value",
    "paper_match_key",
]


@dataclass
class Score:
    """Counts for one line of the table; P, R and F1 are derived."""

    tp_pred: int = 0  # matched system items
    n_pred: int = 0
    tp_gold: int = 0  # matched gold items
    n_gold: int = 0

    @property
    def precision(self) -> float:
        return self.tp_pred / self.n_pred if self.n_pred else 0.0

    @property
    def recall(self) -> float:
        return self.tp_gold / self.n_gold if self.n_gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def add(self, tp_pred: int, n_pred: int, tp_gold: int, n_gold: int) -> None:
        self.tp_pred += tp_pred
        self.n_pred += n_pred
        self.tp_gold += tp_gold
        self.n_gold += n_gold

    def as_dict(self) -> dict[str, float | int]:
        return {
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "pred": self.n_pred,
            "gold": self.n_gold,
            "matched_pred": self.tp_pred,
            "matched_gold": self.tp_gold,
        }


def paper_match_key(text: str) -> str:
    """Return the key that pairs a system record with a gold record (first 60 chars)."""
    return normalise_space(text)[:60]


def gold_type(t: str) -> str:
    """An entity type as scoring compares it: a Benchmark counts as a Dataset."""
    return "Dataset" if t in {"Dataset", "Benchmark"} else t


def _forms(ent: dict[str, Any], with_mentions: bool) -> set[str]:
    names = [ent["name"], *ent.get("aliases", [])]
    if with_mentions:
        names += [m["text"] for m in ent.get("mentions", [])]
    return {normalise_name(n) for n in names if n}


def match_entities(pred: list[dict], gold: list[dict], typed: bool = True) -> dict[int, int]:
    """Return a one-to-one map pred index -> gold index, exact-name pairs first."""
    pred_forms = [_forms(e, True) for e in pred]
    pred_names = [normalise_name(e["name"]) for e in pred]
    gold_forms = [_forms(e, False) for e in gold]
    gold_names = [normalise_name(e["name"]) for e in gold]
    pairs: dict[int, int] = {}
    used: set[int] = set()

    def compatible(i: int, j: int) -> bool:
        return not typed or gold_type(pred[i]["type"]) == gold_type(gold[j]["type"])

    for exact in (True, False):
        for i in range(len(pred)):
            if i in pairs:
                continue
            for j in range(len(gold)):
                if j in used or not compatible(i, j):
                    continue
                hit = (
                    pred_names[i] == gold_names[j] if exact else bool(pred_forms[i] & gold_forms[j])
                )
                if hit:
                    pairs[i] = j
                    used.add(j)
                    break
    return pairs


def _relations(
    pred_ents, pred_rels, gold_ents, gold_rels, ent_map, scores, explain, hits=None
) -> None:
    id_to_index = {e["id"]: i for i, e in enumerate(pred_ents)}
    gold_index = {e["name"]: j for j, e in enumerate(gold_ents)}
    used: set[int] = set()
    matched_pred = 0
    for rel in pred_rels:
        h, t = id_to_index.get(rel["head"]), id_to_index.get(rel["tail"])
        gh, gt = ent_map.get(h), ent_map.get(t)
        hit = None
        for k, g in enumerate(gold_rels):
            if k in used or g["type"] != rel["type"]:
                continue
            gh2, gt2 = gold_index.get(g["head"]), gold_index.get(g["tail"])
            if (
                (gh, gt) == (gh2, gt2)
                and gh is not None
                or (rel["type"] == "COMPARED_WITH" and (gt, gh) == (gh2, gt2) and gh is not None)
            ):
                hit = k
                break
        scores.setdefault(rel["type"], Score()).add(hit is not None, 1, 0, 0)
        if hits is not None:
            hits.append((float(rel.get("confidence", 1.0)), hit is not None))
        if hit is not None:
            used.add(hit)
            matched_pred += 1
        elif explain is not None:
            explain.append(
                {
                    "kind": "relation_fp",
                    "item": [
                        pred_ents[h]["name"] if h is not None else rel["head"],
                        rel["type"],
                        pred_ents[t]["name"] if t is not None else rel["tail"],
                    ],
                }
            )
    for k, g in enumerate(gold_rels):
        scores.setdefault(g["type"], Score()).add(0, 0, k in used, 1)
        if k not in used and explain is not None:
            explain.append({"kind": "relation_fn", "item": [g["head"], g["type"], g["tail"]]})


def gold_value(v: Any) -> float | None:
    """A result's value as scoring compares it: a finite number rounded to 4 places, or None.

    >>> gold_value("81.25001"), gold_value("n/a"), gold_value(float("inf"))
    (81.25, None, None)
    """
    try:
        value = float(v)
    except (TypeError, ValueError, OverflowError):  # OverflowError: a 400-digit integer
        return None
    return round(value, 4) if math.isfinite(value) else None


def _results(
    pred: list[dict], gold: list[dict], with_metric: bool, pairs: list | None = None
) -> tuple[int, int]:
    used: set[int] = set()
    matched = 0
    for row in pred:
        for k, g in enumerate(gold):
            if k in used or gold_value(row.get("value")) != gold_value(g.get("value")):
                continue
            if with_metric and normalise_name(row.get("metric") or "") != normalise_name(
                g.get("metric") or ""
            ):
                continue
            used.add(k)
            matched += 1
            if pairs is not None:
                pairs.append((row, g))
            break
    return matched, len(used)


def _own_flags(pairs: list[tuple[dict, dict]], gold_ents: list[dict], counts: dict) -> None:
    """Count the result rows (matched by value) whose own/baseline flag is right: a gold
    row is the paper's own when its method is an entity the paper proposes."""
    proposed = {}
    for e in gold_ents:
        for form in [e["name"], *e.get("aliases", [])]:
            proposed.setdefault(normalise_name(form), bool(e.get("proposed")))
    for row, g in pairs:
        if not g.get("method") or row.get("own") is None:
            continue
        gold_own = proposed.get(normalise_name(g["method"]), False)
        counts["rows"] += 1
        counts["right"] += row["own"] == gold_own
        counts["own_gold"] += gold_own


CONFIDENCE_THRESHOLDS = (0.3, 0.5, 0.7, 0.9)
"""Relation confidences at which ``kg eval`` also scores relations (precision-recall)."""


def _summed(scores: Iterable[Score]) -> Score:
    total = Score()
    for s in scores:
        total.add(s.tp_pred, s.n_pred, s.tp_gold, s.n_gold)
    return total


@dataclass
class _Tally:
    """What :func:`evaluate` counts over the papers, and the notes ``explain`` keeps."""

    explain: bool = False
    papers: int = 0
    ent_typed: Score = field(default_factory=Score)
    ent_untyped: Score = field(default_factory=Score)
    per_type: dict[str, Score] = field(default_factory=dict)
    rel_scores: dict[str, Score] = field(default_factory=dict)
    res: Score = field(default_factory=Score)
    res_value: Score = field(default_factory=Score)
    at_confidence: dict[float, Score] = field(
        default_factory=lambda: {t: Score() for t in CONFIDENCE_THRESHOLDS}
    )
    own_counts: dict[str, int] = field(
        default_factory=lambda: {"rows": 0, "right": 0, "own_gold": 0}
    )
    entity_hits: list[tuple[float, bool]] = field(default_factory=list)
    relation_hits: list[tuple[float, bool]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    notes: list[dict] = field(default_factory=list)

    def paper(self, p: dict, g: dict) -> None:
        """Count one paper's prediction ``p`` against its gold ``g``."""
        self.papers += 1
        first_note = len(self.notes)
        typed = self._entities(p["entities"], g["entities"])
        notes = self.notes if self.explain else None
        _relations(p["entities"], p["relations"], g["entities"], g["relations"], typed,
                   self.rel_scores, notes, self.relation_hits)  # fmt: skip
        self._at_confidence(p, g, typed)
        paper = _paper_label(p, g)
        for note in self.notes[first_note:]:
            note["paper"] = paper
        self._results(p["results"], g["results"], g["entities"])

    def _entities(self, p_ents: list[dict], g_ents: list[dict]) -> dict[int, int]:
        typed = match_entities(p_ents, g_ents, typed=True)
        untyped = match_entities(p_ents, g_ents, typed=False)
        self.ent_typed.add(len(typed), len(p_ents), len(typed), len(g_ents))
        self.ent_untyped.add(len(untyped), len(p_ents), len(untyped), len(g_ents))
        matched_gold = set(typed.values())
        for i, e in enumerate(p_ents):
            self.per_type.setdefault(gold_type(e["type"]), Score()).add(i in typed, 1, 0, 0)
            self.entity_hits.append((entity_confidence(e), i in typed))
            if self.explain and i not in typed:
                self.notes.append({"kind": "entity_fp", "item": [e["type"], e["name"]]})
        for j, e in enumerate(g_ents):
            self.per_type.setdefault(gold_type(e["type"]), Score()).add(0, 0, j in matched_gold, 1)
            if self.explain and j not in matched_gold:
                self.notes.append({"kind": "entity_fn", "item": [e["type"], e["name"]]})
        return typed

    def _at_confidence(self, p: dict, g: dict, typed: dict[int, int]) -> None:
        for t, score in self.at_confidence.items():
            kept = [r for r in p["relations"] if r.get("confidence", 1.0) >= t]
            per_rel: dict[str, Score] = {}
            _relations(p["entities"], kept, g["entities"], g["relations"], typed, per_rel, None)
            for s in per_rel.values():
                score.add(s.tp_pred, s.n_pred, s.tp_gold, s.n_gold)

    def _results(self, p_res: list[dict], g_res: list[dict], g_ents: list[dict]) -> None:
        m_pred, m_gold = _results(p_res, g_res, True)
        self.res.add(m_pred, len(p_res), m_gold, len(g_res))
        pairs: list[tuple[dict, dict]] = []
        m_pred, m_gold = _results(p_res, g_res, False, pairs)
        self.res_value.add(m_pred, len(p_res), m_gold, len(g_res))
        _own_flags(pairs, g_ents, self.own_counts)

    def as_dict(self) -> dict:
        own = self.own_counts
        out = {
            "papers": self.papers,
            "papers_without_prediction": self.missing,
            "entities": self.ent_typed.as_dict(),
            "entities_untyped": self.ent_untyped.as_dict(),
            "entities_per_type": {k: v.as_dict() for k, v in sorted(self.per_type.items())},
            "relations": _summed(self.rel_scores.values()).as_dict(),
            "relations_per_type": {k: v.as_dict() for k, v in sorted(self.rel_scores.items())},
            "relations_at_confidence": {str(t): v.as_dict() for t, v in self.at_confidence.items()},
            "results": self.res.as_dict(),
            "results_value_only": self.res_value.as_dict(),
            "calibration": {
                "entities": calibration(self.entity_hits),
                "relations": calibration(self.relation_hits),
            },
            "results_own": {
                **own,
                "accuracy": round(own["right"] / own["rows"], 4) if own["rows"] else 0.0,
            },
        }
        if self.explain:
            out["explain"] = self.notes
        return out


def evaluate(gold: Iterable[dict], pred: Iterable[dict], *, explain: bool = False) -> dict:
    """Return the scores of ``pred`` records against ``gold`` records (micro-averaged)."""
    by_key = {paper_match_key(p["text"]): p for p in pred}
    tally = _Tally(explain=explain)
    for g in gold:
        p = by_key.get(paper_match_key(g["text_start"]))
        if p is None:
            tally.missing.append(g["text_start"][:60])
            p = {"entities": [], "relations": [], "results": []}
        tally.paper(p, g)
    return tally.as_dict()


def _paper_label(pred: dict, gold: dict) -> str:
    """Which paper a note is about: its id and the first words of its title or text."""
    paper_id = pred.get("id") or gold.get("id") or ""
    words = (pred.get("title") or gold.get("title") or gold["text_start"]).split()
    head = " ".join(words[:6]) + (" ..." if len(words) > 6 else "")
    return f"{paper_id} ({head})" if paper_id else head


_NEEDS = {
    "gold": {"text_start": str, "entities": list, "relations": list},
    "prediction": {"text": str, "entities": list, "relations": list},
}


def _read_jsonl(path: Path, kind: str, left_out: list[str]) -> list[dict]:
    """The records of a gold or prediction JSONL file (a UTF-8 BOM is allowed); a line
    that is not one (not UTF-8, malformed JSON, a missing or mistyped key, a confidence
    that is no number from 0 to 1, a number too large) is left out and said in
    ``left_out`` as ``file:line: reason``."""
    out = []
    papers: dict[str, int] = {}  # gold: each paper's line, so a repeat is counted once
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            why = _bad_line(raw, kind, number == 1)
            if isinstance(why, dict) and kind == "gold":
                key = paper_match_key(why["text_start"])
                if key in papers:
                    why = f"the paper of line {papers[key]} again ({key[:40]!r}): counted once"
                papers.setdefault(key, number)
            if isinstance(why, str):
                left_out.append(f"{path}:{number}: {why}; line left out")
            elif why is not None:
                out.append(why)
    return out


def _bad_line(raw: bytes, kind: str, first: bool) -> dict | str | None:
    """The record on a line, or why it is none (None for a blank line)."""
    try:
        line = raw.decode("utf-8-sig" if first else "utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at {exc.start + 1})"
    if not line.strip():
        return None
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as exc:
        return f"malformed JSON ({exc})"
    if not isinstance(record, dict):
        return f"not a {kind} record (not a JSON object but {type(record).__name__})"
    bad = [f"{key!r} missing or not a {t.__name__}"
           for key, t in _NEEDS[kind].items() if not isinstance(record.get(key), t)]  # fmt: skip
    if bad:
        return f"not a {kind} record ({'; '.join(bad)})"
    return _bad_number(record) or record


def _bad_number(record: dict) -> str | None:
    """What is wrong with a record's numbers: a confidence that is no number from 0 to 1,
    or a number too large to compare (None when nothing)."""
    items = [*record["entities"], *record["relations"], *(record.get("results") or [])]
    items += [m for e in record["entities"] if isinstance(e, dict)
              for m in e.get("mentions") or [] if isinstance(m, dict)]  # fmt: skip
    for item in items:
        if not isinstance(item, dict):
            continue
        conf = item.get("confidence", 0.5)
        ok = isinstance(conf, int | float) and not isinstance(conf, bool) and 0 <= conf <= 1
        if not ok:  # NaN fails the comparison too
            return f"confidence {conf!r} is no number from 0 to 1"
        value = item.get("value")
        if isinstance(value, int) and not isinstance(value, bool) and gold_value(value) is None:
            return f"value {str(value)[:20]}… has {len(str(value))} digits: too large a number"
    return None


def evaluate_files(gold: str | Path, pred: str | Path, *, explain: bool = False) -> dict:
    """Score an ``extractions.jsonl`` file (or a build directory) against a gold JSONL file."""
    pred = Path(pred)
    if pred.is_dir():
        pred = pred / "extractions.jsonl"
    for path in (Path(gold), pred):
        if not path.exists():
            raise FileNotFoundError(f"{path} not found")
    left_out: list[str] = []
    gold_records = _read_jsonl(Path(gold), "gold", left_out)
    pred_records = _read_jsonl(pred, "prediction", left_out)
    try:
        scores = evaluate(gold_records, pred_records, explain=explain)
    except (KeyError, TypeError, AttributeError) as exc:
        raise KgError(
            f"cannot score {pred} against {gold}: a record's entities, relations or results "
            f"are not in the expected shape ({type(exc).__name__}: {exc}); see "
            "../shared/gold/README.md for the format"
        ) from exc
    scores["left_out"] = left_out
    manifest = pred.parent / "kg-build.json"
    if manifest.exists():
        settings = json.loads(manifest.read_text(encoding="utf-8")).get("pipeline") or {}
        scores["pipeline"] = settings
    return scores


def format_table(scores: dict) -> str:
    """Return the scores as a plain-text table."""
    lines = [f"{'':28} {'P':>6} {'R':>6} {'F1':>6} {'pred':>6} {'gold':>6}"]

    def row(name: str, s: dict) -> None:
        lines.append(
            f"{name:28} {s['precision']:6.3f} {s['recall']:6.3f} {s['f1']:6.3f} "
            f"{s['pred']:6d} {s['gold']:6d}"
        )

    row("entities (typed)", scores["entities"])
    row("entities (untyped)", scores["entities_untyped"])
    for k, s in scores["entities_per_type"].items():
        row(f"  {k}", s)
    row("relations", scores["relations"])
    for k, s in scores["relations_per_type"].items():
        row(f"  {k}", s)
    for t, s in scores.get("relations_at_confidence", {}).items():
        row(f"  confidence >= {t}", s)
    row("results", scores["results"])
    row("results (value only)", scores["results_value_only"])
    own = scores.get("results_own")
    if own and own["rows"]:
        lines.append(
            f"results own or baseline: {own['accuracy']:.3f} right on {own['rows']} rows "
            f"found with a method ({own['own_gold']} of them the paper's own)"
        )
    cal = scores.get("calibration")
    if cal:
        lines.append(
            "calibration error (ECE, 10 bins): "
            + ", ".join(f"{k} {v['ece']:.3f} on {v['items']}" for k, v in cal.items())
        )
    lines.append(
        f"papers scored: {scores['papers']}, without a prediction: "
        f"{len(scores['papers_without_prediction'])}"
    )
    for line in scores.get("left_out", []):
        lines.append(f"left out: {line}")
    if scores.get("pipeline"):
        settings = ", ".join(f"{k} {_setting(v)}" for k, v in scores["pipeline"].items())
        lines.append(f"pipeline: {settings}")
    return "\n".join(lines)


def _setting(value: Any) -> str:
    """A manifest setting in a few words: a file by its path, a base by name and version."""
    if isinstance(value, dict):
        return " ".join(str(value[k]) for k in ("name", "path", "version") if value.get(k))
    return str(value)

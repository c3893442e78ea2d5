"""Why an entity of a build is what it is: its names, support and the merges behind it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import KgError
from kg.resolve.merges import Merge, read_merges

__all__ = ["Explanation", "RelationEvidence", "explain", "marked_evidence", "relations_of"]


@dataclass
class Explanation:
    """One canonical entity and the merges that made it (rule, score, papers behind each)."""

    entity: dict[str, Any]
    merges: list[Merge] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.entity,
            "merges": [{**asdict(m), "papers": list(m.papers)} for m in self.merges],
        }


def explain(build: str | Path, what: str, *, limit: int = 10) -> list[Explanation]:
    """Return the entities of the build in ``build`` that ``what`` names: the one whose key
    it is, else those with it as name or alias (case-insensitive), best-supported first.

    Reads ``tables/entities.parquet`` and ``tables/merges.parquet``; writes nothing.
    """
    from kg.graph.store import ENTITIES, TABLES
    from kg.resolve.merges import merges_path
    from kg.util.tables import duckdb_connection

    path = Path(build) / TABLES / ENTITIES
    if not path.is_file():
        raise KgError(
            f"{build} has no {TABLES}/{ENTITIES}: give the folder of a kg build "
            "(kg build ... -o FOLDER)"
        )
    source = "read_parquet(?)"
    with duckdb_connection() as con:
        cur = con.execute(
            f"SELECT * FROM {source} WHERE key = ? OR lower(name) = lower(?) OR "
            "list_contains(list_transform(aliases, lambda a: lower(a)), lower(?)) "
            "ORDER BY key <> ?, support DESC, key LIMIT ?",
            [str(path), what, what, what, what, limit],
        )
        columns = [d[0] for d in cur.description]
        rows = [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]
    if rows and rows[0]["key"] == what:
        rows = rows[:1]
    behind: dict[str, list[Merge]] = {}
    for m in read_merges(merges_path(path), keys=[r["key"] for r in rows]):
        behind.setdefault(m.key, []).append(m)
    return [Explanation(r, behind.get(r["key"], [])) for r in rows]


@dataclass
class RelationEvidence:
    """A relation of an entity, as the default view shows it: its other end, support,
    confidence and the first evidence of each of its best papers, both mentions marked."""

    type: str
    head: str
    tail: str
    support: int
    confidence: float
    evidence: list[dict[str, Any]]


def relations_of(
    build: str | Path, keys: list[str], *, floor: float, limit: int = 10, per_edge: int = 1
) -> dict[str, tuple[list[RelationEvidence], int]]:
    """Return for each entity of ``keys`` its best-supported relations with confidence at
    least ``floor`` (``limit`` of them, ``per_edge`` evidence items each, one per paper)
    and how many lie below the floor. Reads the build's tables once, decoding only the
    evidence of the relations kept; writes nothing."""
    import json

    from kg.graph.store import TABLES, GraphTables
    from kg.schema import ENTITY_TYPES, RELATION_TYPES

    tables = GraphTables(Path(build) / TABLES)
    best: dict[str, list] = {k: [] for k in keys}
    hidden = dict.fromkeys(keys, 0)
    for rtype in RELATION_TYPES:
        for u, v, _, data in tables.edges(rtype, evidence_json=True):
            for key in {u, v} & best.keys():
                if u.startswith("result:"):
                    continue
                if data["confidence"] < floor:
                    hidden[key] += 1
                    continue
                kept = best[key]
                kept.append((u, v, rtype, data))
                if len(kept) > 4 * limit:  # held to a few times limit, whatever the hub
                    kept[:] = sorted(kept, key=_rank)[:limit]
    found = {k: sorted(kept, key=_rank)[:limit] for k, kept in best.items()}
    ends = {k for rels in found.values() for u, v, _, _ in rels for k in (u, v)}
    for rels in found.values():
        for _, _, _, data in rels:
            if isinstance(data["evidence"], str):
                data["evidence"] = json.loads(data["evidence"])
    papers = {ev["paper"] for rels in found.values() for *_, d in rels for ev in d["evidence"]}
    names = {k: d["name"] for t in ENTITY_TYPES for k, d in tables.nodes(t) if k in ends}
    texts = {d["paper_id"]: d["text"] for _, d in tables.nodes("Paper") if d["paper_id"] in papers}
    return {k: ([_relation(e, names, texts, per_edge) for e in rels], hidden[k])
            for k, rels in found.items()}  # fmt: skip


def _rank(edge: tuple) -> tuple:
    u, v, rtype, data = edge
    return (-data["support"], -data["confidence"], rtype, u, v)


def _relation(edge: tuple, names: dict, texts: dict, per_edge: int) -> RelationEvidence:
    u, v, rtype, data = edge
    items, seen = [], set()
    for ev in data["evidence"]:
        if ev["paper"] not in seen and len(items) < per_edge:
            seen.add(ev["paper"])
            items.append(marked_evidence(ev, texts.get(ev["paper"], "")))
    return RelationEvidence(rtype, names.get(u, u), names.get(v, v), data["support"],
                            data["confidence"], items)  # fmt: skip


def marked_evidence(ev: dict[str, Any], paper_text: str) -> dict[str, Any]:
    """Return an evidence item's paper, sentences and text with the head mention in
    ``[[ ]]`` and the tail mention in ``{{ }}``, and whether the text names both
    (``names_both``: the words at each mention's offsets in the paper are in the text,
    where ``head_at`` and ``tail_at`` say)."""
    text = ev.get("text", "")
    marks, named = [], 0
    for side, (left, right) in (("head", ("[[", "]]")), ("tail", ("{{", "}}"))):
        words = paper_text[slice(*ev[f"{side}_span"])] if ev.get(f"{side}_span") else ""
        at = ev.get(f"{side}_at")
        if at is None and words and words in text:  # evidence written before offsets in it
            at = [text.index(words), text.index(words) + len(words)]
        if words and at is not None and text[at[0] : at[1]] == words:
            named += 1
            marks += [(at[1], right), (at[0], left)]
    for pos, mark in sorted(marks, reverse=True):
        text = text[:pos] + mark + text[pos:]
    return {"paper": ev["paper"], "sentences": ev.get("sentences", [ev.get("sentence")]),
            "text": text, "confidence": ev.get("confidence"),
            "names_both": named == 2}  # fmt: skip

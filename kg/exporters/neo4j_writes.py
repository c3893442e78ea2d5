"""The batched writes of ``kg load neo4j``: nodes and relationships created where new and
merged where known, entity counts recomputed, each ``UNWIND`` batch a managed transaction."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kg.errors import ExportError
from kg.graph.assemble import best_evidence, edge_confidence
from kg.graph.model import (
    BOARD_PROPERTIES,
    EDGE_ENDS,
    NODE_PROPERTIES,
    label_of_key,
)
from kg.graph.store import GraphSource, json_text
from kg.schema import RELATION_TYPES
from kg.util.tables import batched


@dataclass
class LoadSummary:
    """What a load wrote: created nodes per label, relationships per type, and more."""

    nodes_created: Counter = field(default_factory=Counter)
    relationships_created: Counter = field(default_factory=Counter)
    properties_set: int = 0
    rows: Counter = field(default_factory=Counter)
    papers_new: int = 0
    papers_reloaded: int = 0
    stale_removed: Counter = field(default_factory=Counter)

    @property
    def created(self) -> int:
        """Nodes plus relationships created."""
        return sum(self.nodes_created.values()) + sum(self.relationships_created.values())


def node_props(data: dict[str, Any], label: str) -> dict[str, Any]:
    """The properties of a node as a load sets them: those it has, and, for a result the
    build placed on a leaderboard, its empty ``board_*`` texts as null, so that a reload
    (``SET n += props``) removes the ones the result no longer has."""
    props = {k: data[k] for k in NODE_PROPERTIES[label] if data.get(k) is not None}
    if label == "Result" and data.get("board_shown") is not None:
        props.update((k, None) for k in BOARD_PROPERTIES if data.get(k) is None)
    return props


def entity_props(data: dict[str, Any], label: str) -> dict[str, Any]:
    """The properties of an entity node as a load sets them."""
    return {
        "name": data["name"],
        "type": label,
        "aliases": list(data.get("aliases") or []),
        "benchmark": bool(data.get("benchmark")),
        "support": int(data.get("support") or 0),
        "mention_count": int(data.get("mention_count") or 0),
        "proposed_count": int(data.get("proposed_count") or 0),
    }


def add_counters(summary: LoadSummary, counters, label: str, *, node: bool) -> None:
    if node:
        summary.nodes_created[label] += counters.nodes_created
    else:
        summary.relationships_created[label] += counters.relationships_created
    summary.properties_set += counters.properties_set


def run_write(driver, database, query: str, rows: list[dict[str, Any]]):
    """Run ``query`` with ``$rows`` in a managed write transaction; return its counters."""

    def work(tx):
        return tx.run(query, rows=rows).consume().counters

    with driver.session(database=database) as session:
        return session.execute_write(work)


def merged_edge(old: dict[str, Any] | None, new: dict[str, Any], rtype: str = "") -> dict[str, Any]:
    """Combine an edge already in the database with the same edge from this load (a
    relation of ``rtype`` between entities takes the confidence of the evidence kept)."""
    if old is None:
        return new
    papers = list(old["papers"] or [])
    papers += [p for p in new["papers"] if p not in papers]
    fresh = set(new["papers"])
    kept = [e for e in json.loads(old["evidence"] or "[]") if e.get("paper") not in fresh]
    evidence = best_evidence(rtype, kept + json.loads(new["evidence"]))
    if rtype in RELATION_TYPES:  # the build's own (settled) confidence unless papers join
        confidence = edge_confidence(evidence, len(papers), rtype) if kept else new["confidence"]
    else:
        confidence = max(old["confidence"] or 0.0, new["confidence"])
    return {
        **new,
        "papers": papers,
        "support": len(papers),
        "confidence": confidence,
        "evidence": json_text(evidence),
    }


def edge_batches(
    source: GraphSource, size: int
) -> Iterator[tuple[str, str, str, list[dict[str, Any]]]]:
    """Yield ``(type, from label, to label, rows)`` batches of the edges of ``source``."""
    for rtype, ends in EDGE_ENDS.items():
        pending: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for u, v, _, data in source.edges(rtype, evidence_json=True):
            a, b = label_of_key(u), label_of_key(v)
            if (a, b) not in ends:
                raise ExportError(f"edge {rtype} from {a} to {b} is not in the schema")
            props = {
                "support": data["support"],
                "confidence": data["confidence"],
                "papers": list(data["papers"]),
                "evidence": data["evidence"],
            }
            if "mentions" in data:
                props["mentions"] = data["mentions"]
            rows = pending[(a, b)]
            rows.append({"u": u, "v": v, "props": props})
            if len(rows) >= size:
                yield rtype, a, b, rows
                pending[(a, b)] = []
        for (a, b), rows in pending.items():
            if rows:
                yield rtype, a, b, rows


def load_shared_edges(driver, database, rtype, a, b, rows) -> Any:
    """Merge relations shared by papers: union of papers, per-paper evidence replaced."""
    read = (
        f"UNWIND $rows AS row MATCH (a:{a} {{key: row.u}})-[r:{rtype}]->(b:{b} {{key: row.v}}) "
        "RETURN row.u AS u, row.v AS v, r.papers AS papers, r.evidence AS evidence, "
        "r.confidence AS confidence"
    )
    write = (
        f"UNWIND $rows AS row MATCH (a:{a} {{key: row.u}}) MATCH (b:{b} {{key: row.v}}) "
        f"MERGE (a)-[r:{rtype}]->(b) SET r += row.props"
    )

    def work(tx):
        existing = {
            (rec["u"], rec["v"]): rec.data()
            for rec in tx.run(read, rows=[{"u": r["u"], "v": r["v"]} for r in rows])
        }
        changed = []
        for row in rows:
            old = existing.get((row["u"], row["v"]))
            merged = merged_edge(old, row["props"], rtype)
            if old is None or any(merged[k] != old.get(k) for k in
                                  ("papers", "evidence", "confidence")):  # fmt: skip
                changed.append({"u": row["u"], "v": row["v"], "props": merged})
        return tx.run(write, rows=changed).consume().counters if changed else None

    with driver.session(database=database) as session:
        return session.execute_write(work)


def recount_entities(driver, database, label: str, keys: Iterable[str], size: int) -> None:
    query = (
        f"UNWIND $rows AS k MATCH (n:{label} {{key: k}}) "
        "WITH n, [(:Paper)-[m:MENTIONS]->(n) | coalesce(m.mentions, 1)] AS counts "
        "SET n.support = size(counts), "
        "n.mention_count = reduce(total = 0, c IN counts | total + c), "
        "n.proposed_count = COUNT { (:Paper)-[:PROPOSES]->(n) }"
    )
    for batch in batched(keys, size):
        run_write(driver, database, query, batch)


def delete_entities(driver, database, keys: Iterable[str], summary: LoadSummary) -> None:
    """DETACH DELETE the entities with these keys (those a curation took out)."""
    from kg.resolve.keys import key_type

    by_label: dict[str, list[str]] = defaultdict(list)
    for key in keys:
        by_label[key_type(key)].append(key)
    for label, batch in sorted(by_label.items()):
        records, _, _ = driver.execute_query(
            f"UNWIND $keys AS k MATCH (n:{label} {{key: k}}) DETACH DELETE n RETURN count(*) AS n",
            keys=batch,
            database_=database,
        )
        if records and records[0]["n"]:
            summary.stale_removed[label] += records[0]["n"]


def recount_batch(driver, database, label, keys):
    recount_entities(driver, database, label, keys, len(keys))
    return []


def split_rows(rows: list[dict[str, Any]], is_old: Callable[[dict[str, Any]], bool]):
    """Return ``(new, old)``: the rows for which ``is_old`` is false, and the others."""
    new: list[dict[str, Any]] = []
    old: list[dict[str, Any]] = []
    for row in rows:
        (old if is_old(row) else new).append(row)
    return new, old


def create_nodes(driver, database, label, rows):
    """CREATE nodes that cannot be in the database yet (the key constraint still holds)."""
    query = f"UNWIND $rows AS row CREATE (n:{label}) SET n = row.props, n.key = row.key"
    return (label, run_write(driver, database, query, rows))


def node_batch(driver, database, label, batch, known: set[str]):
    """Papers new to the database, and their results, are CREATEd; those of a paper
    loaded before are MERGEd."""

    def paper_of(row) -> str:
        return row["key"] if label == "Paper" else f"paper:{row['props']['paper_id']}"

    new, old = split_rows(batch, lambda r: paper_of(r) in known)
    out = []
    if new:
        out.append(create_nodes(driver, database, label, new))
    if old:
        query = f"UNWIND $rows AS row MERGE (n:{label} {{key: row.key}}) SET n += row.props"
        out.append((label, run_write(driver, database, query, old)))
    return out


def entity_batch(driver, database, label, batch, existing: set[str]):
    """An entity new to the database is CREATEd with this build's names and counts; one
    already there takes this build's name (the form most papers use, or a curated one)
    and gains the aliases it lacks (its counts are recounted at the end)."""
    records, _, _ = driver.execute_query(
        f"UNWIND $keys AS k MATCH (n:{label} {{key: k}}) RETURN n.key AS key",
        keys=[r["key"] for r in batch],
        database_=database,
    )
    found = {r["key"] for r in records}
    existing.update(found)  # set.update is atomic under the GIL
    new, old = split_rows(batch, lambda r: r["key"] in found)
    out = []
    if new:
        out.append(create_nodes(driver, database, label, new))
    if old:
        query = (
            f"UNWIND $rows AS row MATCH (n:{label} {{key: row.key}}) "
            "SET n.aliases = n.aliases + [a IN row.props.aliases WHERE NOT a IN n.aliases], "
            "n.benchmark = n.benchmark OR row.props.benchmark, n.name = row.props.name"
        )
        out.append((label, run_write(driver, database, query, old)))
    return out


def edge_ends(a: str, b: str) -> str:
    return f"UNWIND $rows AS row MATCH (a:{a} {{key: row.u}}) MATCH (b:{b} {{key: row.v}}) "


def create_edges(driver, database, rtype, a, b, rows):
    """CREATE relationships that cannot be in the database yet (no check for one)."""
    query = edge_ends(a, b) + f"CREATE (a)-[r:{rtype}]->(b) SET r = row.props"
    return run_write(driver, database, query, rows)


def per_paper_edges(driver, database, rtype, a, b, batch, known: set[str]):
    """A paper new to the database has none of its edges there yet: CREATE them; a paper
    loaded before MERGEs its edges."""
    new, old = split_rows(batch, lambda r: f"paper:{r['props']['papers'][0]}" in known)
    out = []
    if new:
        out.append((rtype, create_edges(driver, database, rtype, a, b, new)))
    if old:
        query = edge_ends(a, b) + f"MERGE (a)-[r:{rtype}]->(b) SET r += row.props"
        out.append((rtype, run_write(driver, database, query, old)))
    return out


def shared_edges(driver, database, rtype, a, b, batch, existing: dict[str, set[str]]):
    """A relation with an end that is new to the database cannot be there yet: CREATE it;
    one between two entities loaded before is merged with what the database holds."""
    new, old = split_rows(batch, lambda r: r["u"] in existing[a] and r["v"] in existing[b])
    out = []
    if new:
        out.append((rtype, create_edges(driver, database, rtype, a, b, new)))
    if old:
        out.append((rtype, load_shared_edges(driver, database, rtype, a, b, old)))
    return out

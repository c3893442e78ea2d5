"""Load a kg graph into Neo4j: idempotent and incremental, in parameterised ``UNWIND`` batches.

Papers and results belong to one paper and are replaced when that paper is loaded
again; entities and the relations between them are shared by papers, so a load
merges into them: aliases and supporting papers are unions, evidence from a paper
replaces that paper's earlier evidence, and entity counts are recounted from the
graph. Loading the same build twice therefore creates nothing the second time.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import networkx as nx

from kg.errors import ExportError
from kg.exporters.neo4j_settings import (
    DEFAULT_BATCH,
    DEFAULT_PARALLEL,
    DEFAULT_URI,  # noqa: F401  (kg.exporters.neo4j.DEFAULT_URI stays importable)
    Neo4jSettings,
)
from kg.exporters.neo4j_writes import (
    LoadSummary,
    add_counters,
    delete_entities,
    edge_batches,
    entity_batch,
    entity_props,
    node_batch,
    node_props,
    per_paper_edges,
    recount_batch,
    run_write,
    shared_edges,
)
from kg.graph.model import (
    EDGE_ENDS,
    ENTITY_LABELS,
    NODE_LABELS,
    NODE_PROPERTIES,
    check_label,
)
from kg.graph.store import GraphSource, graph_source, json_text
from kg.resources import schemas_dir
from kg.util.tables import batched

__all__ = [
    "Neo4jSettings",
    "LoadSummary",
    "connect",
    "schema_statements",
    "apply_schema",
    "load_neo4j",
    "refresh_properties",
    "database_counts",
]

_PER_PAPER_SOURCES = ("Paper", "Result")
_COUNT_KEYS = ("nodes_created", "relationships_created", "properties_set")


def connect(settings: Neo4jSettings):
    """Return a verified ``neo4j.Driver`` for ``settings``; raise ``ExportError`` if unreachable."""
    import neo4j
    from neo4j.exceptions import AuthError, ServiceUnavailable

    if settings.password is None:
        raise ExportError(
            "no Neo4j password: set NEO4J_PASSWORD (and NEO4J_URI, NEO4J_USERNAME) "
            "or pass --password"
        )
    driver = neo4j.GraphDatabase.driver(
        settings.uri,
        auth=(settings.username, settings.password),
        notifications_min_severity="OFF",
    )
    try:
        driver.verify_connectivity()
    except AuthError as exc:
        driver.close()
        raise ExportError(
            f"Neo4j at {settings.uri} refused user {settings.username!r}: {exc}"
        ) from exc
    except (ServiceUnavailable, OSError, ValueError) as exc:
        driver.close()
        raise ExportError(
            f"cannot reach Neo4j at {settings.uri} ({exc}); is the server running? "
            "(scripts/neo4j-local start runs one locally)"
        ) from exc
    return driver


def schema_statements() -> list[str]:
    """Return the constraint and index statements of ``schemas/neo4j.cypher``."""
    text = (schemas_dir() / "neo4j.cypher").read_text(encoding="utf-8")
    text = re.sub(r"//[^\n]*", "", text)
    return [s.strip() for s in text.split(";") if s.strip()]


def apply_schema(driver, database: str | None = None, *, indexes: bool = True) -> None:
    """Create kg's constraints and, unless ``indexes`` is false, its other indexes
    (idempotent); wait until they are online."""
    for stmt in schema_statements():
        if indexes or stmt.upper().startswith("CREATE CONSTRAINT"):
            driver.execute_query(stmt, database_=database)
    driver.execute_query("CALL db.awaitIndexes(300)", database_=database)


def _fresh_edges(
    source: GraphSource, reloaded: set[str], ids: set[str]
) -> tuple[set[tuple[str, str, str]], dict[tuple[str, str, str], set[str]]]:
    """The ``(u, type, v)`` edges this build has from or supported by the reloaded papers,
    and the papers of those that are shared relations."""
    fresh: set[tuple[str, str, str]] = set()
    papers: dict[tuple[str, str, str], set[str]] = {}
    for u, v, rtype, data in source.edges(evidence_json=True):
        if u in reloaded:
            fresh.add((u, rtype, v))
        elif ids.intersection(data["papers"]):
            fresh.add((u, rtype, v))
            papers[(u, rtype, v)] = set(data["papers"])
    return fresh, papers


def _drop_stale_links(driver, database, paper_ids, fresh, summary, touched) -> None:
    """Delete the reloaded papers' MENTIONS and PROPOSES links this build does not have."""
    for rtype in ("MENTIONS", "PROPOSES"):
        for label in ENTITY_LABELS:
            records, _, _ = driver.execute_query(
                f"UNWIND $ids AS id MATCH (p:Paper {{paper_id: id}})-[r:{rtype}]->(e:{label}) "
                "RETURN p.key AS p, e.key AS e",
                ids=paper_ids,
                database_=database,
            )
            stale = [r.data() for r in records if (r["p"], rtype, r["e"]) not in fresh]
            if stale:
                run_write(
                    driver,
                    database,
                    f"UNWIND $rows AS row MATCH (p:Paper {{key: row.p}})-[r:{rtype}]->"
                    f"(e:{label} {{key: row.e}}) DELETE r",
                    stale,
                )
                touched[label].update(r["e"] for r in stale)
                summary.stale_removed[rtype] += len(stale)


def _drop_stale_results(driver, database, source, paper_ids, summary) -> None:
    """Delete the reloaded papers' results this build does not have."""
    ids = set(paper_ids)
    results = {k for k, d in source.nodes("Result") if d["paper_id"] in ids}
    records, _, _ = driver.execute_query(
        "UNWIND $ids AS id MATCH (p:Paper {paper_id: id})-[:REPORTS]->(r:Result) "
        "RETURN r.key AS key",
        ids=paper_ids,
        database_=database,
    )
    stale = [r["key"] for r in records if r["key"] not in results]
    if stale:
        run_write(
            driver, database, "UNWIND $rows AS k MATCH (r:Result {key: k}) DETACH DELETE r", stale
        )
        summary.stale_removed["Result"] += len(stale)


def _without_stale_support(rec, ids: set[str], kept: set[str]):
    """``None`` when the relationship ``rec`` keeps all its papers, ``{}`` when it has none
    left, else its properties without the stale papers and their evidence."""
    stale = {p for p in rec["papers"] if p in ids} - kept
    if not stale:
        return None
    papers = [p for p in rec["papers"] if p not in stale]
    if not papers:
        return {}
    evidence = [e for e in json.loads(rec["evidence"] or "[]") if e.get("paper") not in stale]
    return {"papers": papers, "support": len(papers), "evidence": json_text(evidence)}


def _drop_stale_support(driver, database, paper_ids, fresh_papers, summary) -> None:
    """Take the reloaded papers out of the shared relations this build no longer has them
    support; delete a relation left with no paper."""
    ids = set(paper_ids)
    for rtype, ends in EDGE_ENDS.items():
        for a, b in ends:
            if a in _PER_PAPER_SOURCES:
                continue
            records, _, _ = driver.execute_query(
                f"MATCH (x:{a})-[r:{rtype}]->(y:{b}) "
                "WHERE any(p IN r.papers WHERE p IN $ids) "
                "RETURN x.key AS u, y.key AS v, r.papers AS papers, r.evidence AS evidence",
                ids=paper_ids,
                database_=database,
            )
            rows, gone = [], []
            for rec in records:
                kept = fresh_papers.get((rec["u"], rtype, rec["v"]), set())
                props = _without_stale_support(rec, ids, kept)
                if props == {}:
                    gone.append({"u": rec["u"], "v": rec["v"]})
                elif props:
                    rows.append({"u": rec["u"], "v": rec["v"], "props": props})
            match = (
                f"UNWIND $rows AS row MATCH (x:{a} {{key: row.u}})-[r:{rtype}]->"
                f"(y:{b} {{key: row.v}}) "
            )
            if rows:
                run_write(driver, database, match + "SET r += row.props", rows)
            if gone:
                run_write(driver, database, match + "DELETE r", gone)
            if rows or gone:
                summary.stale_removed[rtype] += len(rows) + len(gone)


def _drop_stale(
    driver, database, source: GraphSource, reloaded: set[str], summary: LoadSummary
) -> dict[str, set[str]]:
    """Remove what reloaded papers no longer say: their mentions, proposals and results
    missing from this build, and their support of shared relations this build does not
    repeat. Return the keys of entities whose counts changed, by label."""
    touched: dict[str, set[str]] = defaultdict(set)
    paper_ids = sorted(p.removeprefix("paper:") for p in reloaded)
    fresh, fresh_papers = _fresh_edges(source, reloaded, set(paper_ids))
    _drop_stale_links(driver, database, paper_ids, fresh, summary, touched)
    _drop_stale_results(driver, database, source, paper_ids, summary)
    _drop_stale_support(driver, database, paper_ids, fresh_papers, summary)
    return touched


def _known_papers(driver, database, source: GraphSource, batch_size: int) -> tuple[set[str], int]:
    """The keys of this build's papers the database already has, and how many papers the
    build has."""
    known: set[str] = set()
    n_papers = 0
    for batch in batched((k for k, _ in source.nodes("Paper")), batch_size):
        n_papers += len(batch)
        records, _, _ = driver.execute_query(
            "UNWIND $keys AS k MATCH (p:Paper {key: k}) RETURN p.key AS key",
            keys=batch,
            database_=database,
        )
        known.update(r["key"] for r in records)
    return known, n_papers


class _Batches:
    """Run ``(step, n, fn)`` write tasks on a thread pool, at most ``2 * parallel`` queued
    at a time, adding each one's counters to ``summary`` as it finishes."""

    def __init__(self, pool, parallel: int, summary: LoadSummary, on_batch) -> None:
        self.pool, self.parallel, self.summary, self.on_batch = pool, parallel, summary, on_batch

    def run(self, tasks, *, node: bool) -> None:
        pending: deque = deque()
        for step, n, fn in tasks:
            pending.append((step, n, self.pool.submit(fn)))
            if len(pending) >= 2 * self.parallel:
                self._done(*pending.popleft(), node=node)
        while pending:
            self._done(*pending.popleft(), node=node)

    def _done(self, step: str, n: int, future, *, node: bool) -> None:
        for label, counters in future.result():
            if counters is not None:
                add_counters(self.summary, counters, label, node=node)
        if n:
            self.summary.rows[step.split(" ")[0]] += n  # the label, or the relationship type
            if self.on_batch:
                self.on_batch(step, n)


def _node_tasks(driver, database, source, label, batch_size, known):
    rows = ({"key": k, "props": node_props(d, label)} for k, d in source.nodes(label))
    for batch in batched(rows, batch_size):
        yield label, len(batch), partial(node_batch, driver, database, label, batch, known)


def _entity_tasks(driver, database, source, label, batch_size, existing):
    rows = ({"key": k, "props": entity_props(d, label)} for k, d in source.nodes(label))
    for batch in batched(rows, batch_size):
        fn = partial(entity_batch, driver, database, label, batch, existing[label])
        yield label, len(batch), fn


def _edge_tasks(driver, database, source, batch_size, known, existing):
    for rtype, a, b, batch in edge_batches(source, batch_size):
        if a in _PER_PAPER_SOURCES:
            fn = partial(per_paper_edges, driver, database, rtype, a, b, batch, known)
        else:
            fn = partial(shared_edges, driver, database, rtype, a, b, batch, existing)
        yield f"{rtype} {a}->{b}", len(batch), fn


def _recount_tasks(driver, database, batch_size, keys_by_label):
    for label in ENTITY_LABELS:
        for batch in batched(sorted(keys_by_label.get(label, ())), batch_size):
            yield f"recount {label}", 0, partial(recount_batch, driver, database, label, batch)


def load_neo4j(
    G: nx.MultiDiGraph | GraphSource,
    driver,
    *,
    database: str | None = None,
    batch_size: int = DEFAULT_BATCH,
    on_batch: Callable[[str, int], None] | None = None,
    replace: bool = False,
    parallel: int = DEFAULT_PARALLEL,
    removed: Iterable[str] = (),
) -> LoadSummary:
    """Merge ``G`` (a graph, or a build's tables streamed) into the Neo4j database behind
    ``driver``; return what was written.

    With ``replace``, papers already in the database take exactly this build's
    extraction: their mentions, proposals, results and relation support that this build
    no longer has are removed (this scans the relationships those papers support).
    ``parallel`` batches are in flight at once, each in its own transaction (a batch
    never repeats a node or relationship another one writes, so they need no order;
    deadlocks on shared end nodes are retried by the driver).
    ``on_batch(step, n)`` is called after each batch of ``n`` rows (for progress bars).
    ``removed`` are entity keys the build's curation took out of the graph (dropped,
    merged into another, retyped): they are deleted from the database first, with their
    relationships.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    if parallel < 1:
        raise ValueError("parallel must be at least 1")
    source = graph_source(G)
    summary = LoadSummary()
    # MERGE needs the key constraints; the name and full-text indexes are created after
    # the load, so that a first load does not update them node by node (nothing changes
    # when they are already there)
    apply_schema(driver, database, indexes=False)
    known, n_papers = _known_papers(driver, database, source, batch_size)
    summary.papers_reloaded = len(known)
    summary.papers_new = n_papers - len(known)
    touched = _drop_stale(driver, database, source, known, summary) if known and replace else {}
    delete_entities(driver, database, removed, summary)
    # an entity new to the database is mentioned only by this build's papers, so it takes
    # the build's counts; one already there is recounted from the graph at the end
    existing: dict[str, set[str]] = defaultdict(set)
    with ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="kg-neo4j") as pool:
        batches = _Batches(pool, parallel, summary, on_batch)
        for label in ("Paper", "Result"):
            batches.run(_node_tasks(driver, database, source, label, batch_size, known), node=True)
        for label in ENTITY_LABELS:
            tasks = _entity_tasks(driver, database, source, label, batch_size, existing)
            batches.run(tasks, node=True)
        batches.run(_edge_tasks(driver, database, source, batch_size, known, existing), node=False)
        recount = {lb: existing[lb] | touched.get(lb, set()) for lb in ENTITY_LABELS}
        batches.run(_recount_tasks(driver, database, batch_size, recount), node=True)
    apply_schema(driver, database)
    return summary


def refresh_properties(
    G: nx.MultiDiGraph | GraphSource,
    driver,
    label: str,
    names: Sequence[str],
    *,
    database: str | None = None,
    batch_size: int = DEFAULT_BATCH,
) -> int:
    """Set the properties ``names`` of the ``label`` nodes in the database to those of the
    same nodes of ``G`` where they differ; return how many nodes were set. Nodes the
    database does not hold are left out. ``kg update --neo4j`` loads only the papers it
    added or replaced, and this brings the other papers' results up to date with what
    the build decided over the whole graph (their leaderboards)."""
    check_label(label)
    unknown = set(names) - set(NODE_PROPERTIES[label])
    if unknown:
        raise ExportError(f"{label} nodes have no properties {sorted(unknown)}")
    fields = ", ".join(f"n.`{k}` AS `{k}`" for k in names)
    rows = ((k, {n: d.get(n) for n in names}) for k, d in graph_source(G).nodes(label))
    changed = 0
    for batch in batched(rows, batch_size):
        records, _, _ = driver.execute_query(
            f"UNWIND $keys AS k MATCH (n:{label} {{key: k}}) RETURN n.key AS key, {fields}",
            keys=[k for k, _ in batch],
            database_=database,
        )
        held = {r["key"]: {n: r[n] for n in names} for r in records}
        # all of names, None too: SET n += {p: null} removes p
        stale = [{"key": k, "props": p} for k, p in batch if k in held and held[k] != p]
        if stale:
            query = f"UNWIND $rows AS row MATCH (n:{label} {{key: row.key}}) SET n += row.props"
            run_write(driver, database, query, stale)
            changed += len(stale)
    return changed


def database_counts(driver, database: str | None = None) -> dict[str, int]:
    """Return the number of nodes per kg label and relationships per type in the database."""
    out: dict[str, int] = {}
    for label in NODE_LABELS:
        records, _, _ = driver.execute_query(
            f"MATCH (n:{label}) RETURN count(n) AS n", database_=database
        )
        out[label] = records[0]["n"]
    for rtype in EDGE_ENDS:
        records, _, _ = driver.execute_query(
            f"MATCH ()-[r:{rtype}]->() RETURN count(r) AS n", database_=database
        )
        out[rtype] = records[0]["n"]
    return out
